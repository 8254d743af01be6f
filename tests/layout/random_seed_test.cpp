// Tests of the sparse-sample seeds: section_t::hash and the draws it seeds (docs/formats.md,
// "Samples").
#include <gtest/gtest.h>

#include "pentago/layout/section.h"
#include "pentago/util/random.h"

namespace pentago {
namespace {

TEST(RandomSeed, SectionHashExamples) {
  EXPECT_EQ(section_t::parse("00000000").hash(), 0xebe54d10660ea4b5ULL);
  EXPECT_EQ(section_t::parse("33333333").hash(), 0xebe239060d8bdd2bULL);
  EXPECT_EQ(section_t::parse("44444554").hash(), 0xebe20c782298efe1ULL);
}

TEST(RandomSeed, FirstDrawsOfRootSection) {
  random_t rng(section_t::parse("00000000").hash());  // zero-extended to 128 bits
  EXPECT_EQ(rng.bits<uint32_t>(), 3269237950u);
  EXPECT_EQ(rng.bits<uint32_t>(), 690490447u);
  EXPECT_EQ(rng.bits<uint32_t>(), 1860320174u);
  EXPECT_EQ(rng.bits<uint32_t>(), 1848935616u);
}

// A sample index of the root section (shape 1x1x1x1) is always zero but still uses 4 draws.
TEST(RandomSeed, SampleIndexConsumesFourDraws) {
  const section_t root = section_t::parse("00000000");
  random_t rng(root.hash());
  EXPECT_EQ(rng.uniform_index(root.shape()), (std::array<int, 4>{0, 0, 0, 0}));
  EXPECT_EQ(rng.counter(), 4u);
}

}  // namespace
}  // namespace pentago
