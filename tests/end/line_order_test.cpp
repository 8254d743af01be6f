// Completion order of lines: a permutation of the slice's lines, grouped by section, that holds
// fewer incomplete blocks at once than the canonical or a random order, as simulated, and the
// completion time that numbers it; the sections' walk, which puts sections reading the same
// children next to each other.
#include "pentago/end/line_order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "pentago/layout/line_mapping.h"
#include "pentago/layout/section.h"

using namespace pentago;

namespace {

bool same_line(const line_t& a, const line_t& b) { return a == b; }

std::vector<line_t> canonical_lines(const slice_lines_t& order) {
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
  const slice_lines_t order(some);
  const auto canonical = canonical_lines(order);
  const auto ordered = lines_in_completion_order(order);
  ASSERT_EQ(ordered.size(), canonical.size());
  for (const auto& line : canonical)
    EXPECT_EQ(std::count_if(ordered.begin(), ordered.end(),
                            [&](const line_t& l) { return same_line(l, line); }),
              1);
  // Section by section, in section_completion_order.
  const auto rank = section_completion_ranks(order);
  for (size_t i = 1; i < ordered.size(); i++)
    EXPECT_LE(rank[order.section_index(ordered[i - 1].section)],
              rank[order.section_index(ordered[i].section)]);
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
  const slice_lines_t one(std::span<const section_t>(&big, 1));
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
// section; within a section, slab by slab (the coordinates along full quadrants, which no line
// crosses) and, within a slab, with the growing box (the largest base coordinate along an open
// axis, as the fraction of its axis below it) never shrinking. The sections of slice 33 each
// have a full quadrant.
TEST(line_order, completion_time_numbers_the_completion_order) {
  for (const int slice : {31, 33}) {
    const auto some = first_sections(slice, 4);
    ASSERT_EQ(some.size(), 4u);
    const slice_lines_t order(some);
    const auto ordered = lines_in_completion_order(order);
    const auto rank = section_completion_ranks(order);
    double last_box = -1;
    int last_section = -1;
    std::vector<int> last_slab;
    uint64_t last_time = 0;
    int slabs = 0;
    for (size_t i = 0; i < ordered.size(); i++) {
      const line_t& line = ordered[i];
      const int si = order.section_index(line.section);
      const auto blocks = section_blocks(line.section);
      const uint8_t open = line.section.open_quadrants();
      const uint64_t t = completion_time(rank[si], blocks, open, line.dimension, line.base);
      if (i) {
        EXPECT_GT(t, last_time) << i;
      }
      last_time = t;
      double box = 0;
      std::vector<int> slab;
      for (int a = 0, j = 0; a < 4; a++) {
        if (a == line.dimension) continue;
        const int b = line.base[j++];
        if (open >> a & 1)
          box = std::max(box, double(b) / blocks[a]);
        else
          slab.push_back(b);
      }
      if (si != last_section || slab != last_slab) {
        if (si == last_section) {
          EXPECT_GT(slab, last_slab) << i;
        }
        last_box = -1;
        slabs++;
      }
      EXPECT_GE(box, last_box - 1e-3) << i;  // (the key's box is in 1/4096ths)
      last_box = std::max(last_box, box);
      last_section = si;
      last_slab = slab;
    }
    if (slice == 33) {
      EXPECT_GT(slabs, 4);
    }
  }
  EXPECT_THROW(completion_time(1 << 22, {1, 1, 1, 1}, 15, 0, {0, 0, 0}), std::exception);
  EXPECT_THROW(completion_time(0, {1, 1, 1, 1}, 14, 0, {0, 0, 0}), std::exception);
  EXPECT_THROW(completion_time(0, {2, 2, 2, 2}, 15, 0, {0, 2, 0}), std::exception);
}

// Sections whose incomplete peak the completion order keeps low, whatever their shape: one
// with a full quadrant (its slabs complete one after another), and one with an open quadrant
// of a single block (whose lines must not hold the box back), against the canonical order.
TEST(line_order, full_quadrants_and_single_block_axes_keep_the_peak_low) {
  // 44444454's full quadrant 3 has 5 blocks: each slab (a fifth) holds at most about 4/9 of
  // itself at once. 25263480 has no full quadrant but an open quadrant 3 of one block; the box
  // grows over the others.
  struct expected_shape_t {
    const char* name;
    uint8_t open;
    int blocks3;
    double most;  // the largest peak allowed, as a share of the section's nodes
  };
  for (const auto& e :
       {expected_shape_t{"44444454", 7, 5, 0.15}, expected_shape_t{"25263480", 15, 1, 0.6}}) {
    const section_t s = section_t::parse(e.name);
    EXPECT_EQ(s.open_quadrants(), e.open) << e.name;
    EXPECT_EQ(section_blocks(s)[3], e.blocks3) << e.name;
    const slice_lines_t one(std::span<const section_t>(&s, 1));
    const double peak = double(incomplete_peak_nodes(s, lines_in_completion_order(one)));
    const double canonical = double(incomplete_peak_nodes(s, canonical_lines(one)));
    EXPECT_GT(peak, 0.0) << e.name;
    EXPECT_LT(peak, 0.6 * canonical) << e.name;
    EXPECT_LT(peak, e.most * double(s.size())) << e.name;
  }
}

// A slice's peak is its largest section's, found without simulating the sections whose slab
// bound cannot exceed it: the same as simulating every section, and every bound holds.
TEST(line_order, slice_peak_is_the_largest_section_peak) {
  for (const int slice : {29, 33}) {
    const auto sections = slice_sections(slice);
    ASSERT_GT(sections.size(), 10u);
    uint64_t most = 0;
    int below_bound = 0;
    for (const auto& s : sections) {
      const slice_lines_t one(std::span<const section_t>(&s, 1));
      const uint64_t peak = incomplete_peak_nodes(s, lines_in_completion_order(one));
      EXPECT_LE(peak, incomplete_peak_bound(s)) << s.name();
      EXPECT_LE(peak, s.size()) << s.name();
      most = std::max(most, peak);
      below_bound += peak < incomplete_peak_bound(s);
    }
    EXPECT_GT(below_bound, 0) << slice;
    EXPECT_EQ(incomplete_peak_nodes(slice_lines_t(sections)), most) << slice;
    EXPECT_EQ(incomplete_peak_nodes(slice_lines_t(sections)), most) << slice;  // remembered
  }
}

namespace {

// The distinct children (by sig) that a section's lines read.
std::set<uint64_t> children_of(const section_t& s) {
  std::set<uint64_t> children;
  for (int d = 0; d < 4; d++) {
    if (s.quadrant_full(d)) continue;
    line_t line;
    line.section = s;
    line.dimension = d;
    children.insert(line_dependency_of(line).child.sig());
  }
  return children;
}

// Sections of the walk that share no child with the section before them.
int unshared_steps(std::span<const section_t> sections, const std::vector<int>& walk) {
  int unshared = 0;
  for (size_t i = 1; i < walk.size(); i++) {
    const auto a = children_of(sections[walk[i - 1]]), b = children_of(sections[walk[i]]);
    if (std::none_of(a.begin(), a.end(), [&](uint64_t c) { return b.count(c); })) unshared++;
  }
  return unshared;
}

}  // namespace

// The sections' walk: a permutation, its ranks the inverse, the same every time, and next to
// each other sections that read the same child far more often than in index (sig) order.
TEST(line_order, section_walk_puts_sections_sharing_children_together) {
  const auto sections = slice_sections(31);
  ASSERT_GT(sections.size(), 100u);
  const slice_lines_t order(sections);
  const auto walk = section_completion_order(order);
  const auto rank = section_completion_ranks(order);
  ASSERT_EQ(walk.size(), sections.size());
  std::vector<int> sorted = walk;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); i++) ASSERT_EQ(sorted[i], int(i));
  for (size_t i = 0; i < walk.size(); i++) EXPECT_EQ(rank[walk[i]], int(i));
  EXPECT_EQ(walk, section_completion_order(order));
  EXPECT_EQ(walk[0], 0);  // the walk starts at the lowest index
  std::vector<int> by_index(sections.size());
  for (size_t i = 0; i < by_index.size(); i++) by_index[i] = int(i);
  const int walked = unshared_steps(sections, walk), indexed = unshared_steps(sections, by_index);
  EXPECT_LT(walked * 4, indexed) << walked << " of the walk's steps share no child, " << indexed
                                 << " in index order";
}
