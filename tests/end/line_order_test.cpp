// Completion order of lines: a permutation of the slice's lines, grouped by section, that holds
// fewer incomplete blocks at once than the canonical or a random order, as simulated, and the
// completion time that numbers it.
#include "pentago/end/line_order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "pentago/layout/section.h"

using namespace pentago;

namespace {

bool same_line(const line_t& a, const line_t& b) { return a == b; }

std::vector<line_t> canonical_lines(const slice_lines& order) {
  std::vector<line_t> lines;
  for (uint64_t i = 0; i < order.total_lines(); i++) lines.push_back(order.line(i));
  return lines;
}

// The first `count` sections of a slice (fewer if it has fewer).
std::vector<section_t> first_sections(int slice, size_t count) {
  const auto sections = slice_sections(slice);
  return {sections.begin(), sections.begin() + long(std::min(count, sections.size()))};
}

}  // namespace

TEST(line_order, completion_order_is_a_permutation_grouped_by_section) {
  const auto some = first_sections(30, 3);
  ASSERT_EQ(some.size(), 3u);
  const slice_lines order(some);
  const auto canonical = canonical_lines(order);
  const auto ordered = lines_in_completion_order(order);
  ASSERT_EQ(ordered.size(), canonical.size());
  for (const auto& line : canonical)
    EXPECT_EQ(std::count_if(ordered.begin(), ordered.end(),
                            [&](const line_t& l) { return same_line(l, line); }),
              1);
  for (size_t i = 1; i < ordered.size(); i++)
    EXPECT_LE(order.section_index(ordered[i - 1].section), order.section_index(ordered[i].section));
  // Sorting any shuffle gives the same order.
  auto shuffled = canonical;
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(5));
  sort_lines_for_completion(shuffled, order);
  ASSERT_EQ(shuffled.size(), ordered.size());
  for (size_t i = 0; i < ordered.size(); i++) EXPECT_TRUE(same_line(shuffled[i], ordered[i]));
}

TEST(line_order, completion_order_holds_fewer_incomplete_blocks) {
  // The largest section of a slice with four open quadrants in most sections.
  const auto sections = slice_sections(16);
  section_t big = sections[0];
  for (const auto& s : sections) {
    if (s.open_quadrant_count() == 4 && section_block_count(s) > section_block_count(big)) big = s;
  }
  ASSERT_GE(section_block_count(big), 81u);
  const slice_lines one(std::span<const section_t>(&big, 1));
  const auto canonical = canonical_lines(one);
  const auto ordered = lines_in_completion_order(one);
  auto shuffled = canonical;
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(11));
  const uint64_t completion = incomplete_peak_nodes(big, ordered);
  const uint64_t in_canonical = incomplete_peak_nodes(big, canonical);
  const uint64_t in_random = incomplete_peak_nodes(big, shuffled);
  EXPECT_EQ(completion, incomplete_peak_nodes(one));
  EXPECT_GT(completion, 0u);
  EXPECT_LT(completion, in_canonical);
  EXPECT_LT(completion, in_random);
  // The growing cube holds at most about 27/64 of the section at once, plus edge effects.
  EXPECT_LT(double(completion), 0.6 * double(big.size()));
}

// completion_time numbers the completion order: strictly increasing along it, section by
// section and, within a section, with the growing box (the largest base coordinate as a
// fraction of its axis) never shrinking.
TEST(line_order, completion_time_numbers_the_completion_order) {
  const auto some = first_sections(31, 4);
  ASSERT_EQ(some.size(), 4u);
  const slice_lines order(some);
  const auto ordered = lines_in_completion_order(order);
  double last_box = -1;
  int last_section = -1;
  uint64_t last_time = 0;
  for (size_t i = 0; i < ordered.size(); i++) {
    const line_t& line = ordered[i];
    const int si = order.section_index(line.section);
    const auto blocks = section_blocks(line.section);
    const uint64_t t = completion_time(si, blocks, line.dimension, line.base);
    if (i) {
      EXPECT_GT(t, last_time) << i;
    }
    last_time = t;
    double box = 0;
    for (int a = 0, j = 0; a < 4; a++)
      if (a != line.dimension) box = std::max(box, (line.base[j++] + 0.5) / blocks[a]);
    if (si != last_section) last_box = -1;
    EXPECT_GE(box, last_box - 1e-3) << i;  // (the key's box is in 1/4096ths)
    last_box = std::max(last_box, box);
    last_section = si;
  }
  EXPECT_THROW(completion_time(1 << 22, {1, 1, 1, 1}, 0, {0, 0, 0}), std::exception);
}
