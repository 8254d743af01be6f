// Tests of quadrant-state tables, sections and slices against the contract and published ids.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <fstream>

#include "pentago/layout/blocks.h"
#include "pentago/layout/quadrant_states.h"
#include "pentago/layout/section.h"
#include "pentago/util/error.h"

using namespace pentago;

namespace {
// Section ids (first column) of a published counts file; tiny reader independent of data/.
std::vector<uint64_t> published_sigs(int n) {
  std::ifstream in(std::string(PENTAGO_SHARED_DATA) + "/counts-" + std::to_string(n) + ".npy",
                   std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), {});
  EXPECT_GE(bytes.size(), 10u);
  const size_t header = 10 + (uint8_t(bytes[8]) | uint8_t(bytes[9]) << 8);
  std::vector<uint64_t> sigs;
  for (size_t p = header; p + 32 <= bytes.size(); p += 32) {
    uint64_t v;
    std::memcpy(&v, &bytes[p], 8);
    sigs.push_back(v);
  }
  return sigs;
}
}  // namespace

TEST(quadrant_states, buckets) {
  EXPECT_EQ(rmin_flat().size(), 4995u);
  EXPECT_EQ(rmin_offsets().size(), 56u);
  // Examples from the contract.
  auto b10 = rmin_bucket(1, 0);
  ASSERT_EQ(b10.size(), 3u);
  EXPECT_EQ(b10[0], 1);
  EXPECT_EQ(b10[1], 3);
  EXPECT_EQ(b10[2], 81);
  auto b11 = rmin_bucket(1, 1);
  EXPECT_EQ(b11[0], 5);
  EXPECT_EQ(b11[1], 21);
  EXPECT_EQ(b11[2], 7);
  EXPECT_EQ(b11[3], 15);
  EXPECT_EQ(rmin_bucket(3, 3).size(), 420u);
  EXPECT_EQ(rmin_moved(3, 3), 384);
  for (int b = 0; b <= 9; b++)
    for (int w = 0; b + w <= 9; w++) {
      const auto bucket = rmin_bucket(b, w);
      const int moved = rmin_moved(b, w);
      EXPECT_EQ(moved % 2, 0);
      for (int j = 0; j < int(bucket.size()); j++) {
        // Reflection maps j to j^1 among moved entries and fixes the rest.
        const quadrant_t r = reflect_quadrant(bucket[j]);
        const int jr = rmin_inverse(r) >> 2;
        EXPECT_EQ(jr, j < moved ? j ^ 1 : j);
      }
    }
}

TEST(quadrant_states, inverse) {
  for (int v = 0; v < quadrant_states; v++) {
    const int b = quadrant_count(quadrant_t(v), 0), w = quadrant_count(quadrant_t(v), 1);
    const uint16_t inv = rmin_inverse(quadrant_t(v));
    const quadrant_t rep = rmin_bucket(b, w)[inv >> 2];
    ASSERT_EQ(rotate_quadrant(rep, inv & 3), v);
    for (int r = 0; r < (inv & 3); r++) ASSERT_NE(rotate_quadrant(rep, r), v);
  }
}

TEST(sections, parse_and_print) {
  const section_t s = section_t::parse("44444554");
  EXPECT_EQ(s.sum(), 34);
  EXPECT_EQ(s.str(), "44444554");
  EXPECT_EQ(s.name(), "34-44444554");
  EXPECT_EQ(section_t::parse("34-44444554"), s);
  EXPECT_EQ(section_t::from_sig(s.sig()), s);
  EXPECT_EQ(section_t::from_sig(0x0008000908010900ULL).name(), "35-09189080");
  for (const char* bad : {"", "1234567", "123456789", "4444455x", "91000000", "00000001",
                          "10000000x", "33-44444554", "a-44444554"})
    EXPECT_THROW(section_t::parse(bad), usage_error_t) << bad;
  EXPECT_EQ(section_t::parse("00000000").hash(), 0xebe54d10660ea4b5ULL);
  EXPECT_EQ(section_t::parse("33333333").hash(), 0xebe239060d8bdd2bULL);
  EXPECT_EQ(section_t::parse("44444554").hash(), 0xebe20c782298efe1ULL);
}

TEST(sections, slices_match_published_ids) {
  const auto full = descendant_sections(section_t(), 35);
  for (int n = 0; n <= 35; n++) {
    const auto sigs = published_sigs(n);
    const auto sections = slice_sections(n);
    ASSERT_EQ(sections.size(), sigs.size()) << "slice " << n;
    ASSERT_EQ(full[n].size(), sigs.size()) << "slice " << n;
    for (size_t i = 0; i < sigs.size(); i++) {
      ASSERT_EQ(sections[i].sig(), sigs[i]) << "slice " << n << " row " << i;
      ASSERT_EQ(full[n][i].sig(), sigs[i]) << "slice " << n << " row " << i;
    }
  }
  EXPECT_EQ(slice_sections(24).size(), 8239u);
}

TEST(lines, canonical_order_round_trips) {
  for (int n : {3, 10, 34}) {
    const auto sections = slice_sections(n);
    slice_lines_t lines(sections);
    for (uint64_t i = 0; i < lines.total_lines(); i += 1 + i / 50) {
      const line_t line = lines.line(i);
      ASSERT_EQ(lines.index(line.section, line.dimension, line.block(0)), int64_t(i));
      ASSERT_FALSE(line.section.quadrant_full(line.dimension));
    }
  }
}
