// count_block at every SIMD level against a node-by-node count: blocks of random bits (whose
// popcounts need not divide by the node's symmetry, so each node's shift must apply to its own
// count) and the solver's blocks of slice 35, in every block shape of their sections.
#include <gtest/gtest.h>

#include <random>

#include "pentago/base/super.h"
#include "pentago/end/block_store.h"
#include "pentago/end/line_compute.h"
#include "pentago/layout/blocks.h"
#include "pentago/layout/quadrant_states.h"
#include "pentago/layout/section.h"
#include "simd_levels.h"

using namespace pentago;

namespace {

// Node by node: popcount >> (the sum of the four quadrants' symmetry exponents).
section_counts_t count_by_node(const section_t& s, const block_t& b,
                               const std::vector<superinfo_t>& values) {
  const auto shape = block_shape(s, b);
  section_counts_t c{0, 0, 0};
  size_t n = 0;
  for (int i0 = 0; i0 < shape[0]; i0++)
    for (int i1 = 0; i1 < shape[1]; i1++)
      for (int i2 = 0; i2 < shape[2]; i2++)
        for (int i3 = 0; i3 < shape[3]; i3++, n++) {
          const int index[4] = {i0, i1, i2, i3};
          int shift = 0;
          for (int q = 0; q < 4; q++)
            shift += quadrant_symmetry_exponent(
                rmin_bucket(s.counts[q][0], s.counts[q][1])[block_size * b[q] + index[q]]);
          c[0] += uint64_t(popcount(values[n].win)) >> shift;
          c[1] += uint64_t(popcount(values[n].notlose)) >> shift;
          c[2] += uint64_t(256) >> shift;
        }
  return c;
}

// Every block of the sections, with `fill` giving its values.
template <class fill_t>
void expect_every_level_counts_by_node(const std::vector<section_t>& sections, fill_t fill) {
  test::simd_level_guard_t guard;
  int blocks = 0;
  for (const section_t& s : sections)
    for (uint64_t f = 0; f < section_block_count(s); f++) {
      const block_t b = block_from_index(s, f);
      std::vector<superinfo_t> values(size_t(block_nodes(s, b)));
      fill(s, b, values);
      const section_counts_t expected = count_by_node(s, b, values);
      for (const simd_level_t level : test::supported_simd_levels()) {
        set_simd_level(level);
        ASSERT_EQ(count_block(s, b, values), expected)
            << s.name() << " block " << f << " at " << simd_name(level);
      }
      blocks++;
    }
  EXPECT_GT(blocks, 0);
}

}  // namespace

TEST(count_block, random_bits_count_node_by_node_at_every_level) {
  std::mt19937_64 rng(7);
  // Sections whose quadrants include symmetric states (shifts 0 to 8) and blocks of every
  // shape, so that both the 8-node steps and their tails run.
  const auto slices = descendant_sections(section_t::parse("44444454"));
  std::vector<section_t> sections(slices[34].begin(), slices[34].end());
  sections.push_back(section_t::parse("00000000"));
  sections.push_back(section_t::parse("10011001"));
  sections.push_back(section_t::parse("11001100"));
  expect_every_level_counts_by_node(
      sections, [&](const section_t&, const block_t&, std::vector<superinfo_t>& values) {
        for (auto& v : values)
          for (int i = 0; i < 4; i++) v.win.w[i] = rng(), v.notlose.w[i] = rng();
      });
}

TEST(count_block, solver_blocks_count_node_by_node_at_every_level) {
  const auto slices = descendant_sections(section_t::parse("44444454"));
  expect_every_level_counts_by_node(
      slices[35], [](const section_t& s, const block_t& b, std::vector<superinfo_t>& values) {
        compute_top_block(s, b, values);
      });
}
