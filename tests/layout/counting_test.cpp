// Tests of board counting up to symmetry and of the per-slice layout sizes against the paper's
// headline numbers, brute-force enumeration and the published counts files.
#include "pentago/layout/counting.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <unordered_set>

#include "pentago/base/symmetry.h"
#include "pentago/layout/blocks.h"
#include "pentago/layout/section.h"
#include "pentago/util/error.h"

using namespace pentago;

namespace {

// Rows [sig, black wins, white wins, total] of a published counts-N.npy: an 80-byte numpy
// header, then 4 little-endian uint64 per row.
std::vector<std::array<uint64_t, 4>> published_counts(int n) {
  const std::string path =
      std::string(PENTAGO_SHARED_DATA) + "/counts-" + std::to_string(n) + ".npy";
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), {});
  const size_t header = 80;
  EXPECT_GE(bytes.size(), header);
  EXPECT_EQ(std::memcmp(bytes.data(), "\x93NUMPY", 6), 0) << path;
  EXPECT_EQ(10 + (uint8_t(bytes[8]) | uint8_t(bytes[9]) << 8), int(header)) << path;
  EXPECT_EQ((bytes.size() - header) % 32, 0u) << path;
  std::vector<std::array<uint64_t, 4>> rows((bytes.size() - header) / 32);
  for (size_t r = 0; r < rows.size(); r++)
    for (int c = 0; c < 4; c++) std::memcpy(&rows[r][c], &bytes[header + 32 * r + 8 * c], 8);
  return rows;
}

// Every board with `black` black and `white` white stones, as packed boards.
std::vector<board_t> enumerate_boards(int black, int white) {
  std::vector<board_t> boards;
  // Choose black cells, then white cells among the remaining ones, in increasing cell order.
  auto place = [&](auto&& self, int cell, int b, int w, side_t bs, side_t ws) -> void {
    if (b == 0 && w == 0) {
      boards.push_back(pack(bs, ws));
      return;
    }
    if (cell == board_cells || board_cells - cell < b + w) return;
    const side_t bit = side_t(1) << bit_of_cell(cell);
    if (b) self(self, cell + 1, b - 1, w, bs | bit, ws);
    if (w) self(self, cell + 1, b, w - 1, bs, ws | bit);
    self(self, cell + 1, b, w, bs, ws);
  };
  place(place, 0, black, white, 0, 0);
  return boards;
}

section_t empty_root() { return section_t(); }

}  // namespace

TEST(counting, cell_permutations) {
  // The identity fixes every cell; every element is a bijection that agrees with
  // transform_side and composes like the group.
  const auto identity = cell_permutation(symmetry_t());
  for (int c = 0; c < board_cells; c++) EXPECT_EQ(identity[c], c);
  for (int k = 0; k < 2048; k += 7) {
    const symmetry_t s = symmetry_t::from_index(k);
    const auto perm = cell_permutation(s);
    std::set<int> image(perm.begin(), perm.end());
    EXPECT_EQ(image.size(), size_t(board_cells));
    const symmetry_t t = symmetry_t::from_index((k * 37 + 11) % 2048);
    const auto pt = cell_permutation(t), pst = cell_permutation(s * t);
    for (int c = 0; c < board_cells; c++) EXPECT_EQ(pst[c], perm[pt[c]]) << k;
  }
  // One global CCW turn moves the lower-left corner (0,0) to the lower-right (5,0).
  const auto turn = cell_permutation(symmetry_t(1, 0));
  const int corner = cell_of_bit(__builtin_ctzll(cell_bit(0, 0)));
  EXPECT_EQ(side_t(1) << bit_of_cell(turn[corner]), cell_bit(5, 0));
}

TEST(counting, all_boards) {
  // The identity fixes every board, so Burnside with the trivial group is plain counting.
  const auto identity = cell_permutation(symmetry_t());
  uint64_t total = 0;
  for (int n = 0; n <= 36; n++) {
    EXPECT_EQ(fixed_boards(identity, (n + 1) / 2, n / 2), all_boards(n)) << n;
    EXPECT_EQ(count_boards(n, 1), all_boards(n));
    total += all_boards(n);
  }
  EXPECT_EQ(all_boards(1), 36u);
  EXPECT_EQ(all_boards(2), 1260u);
  EXPECT_EQ(all_boards(36), 9075135300u);
  EXPECT_EQ(total, 24072650378629801u);
}

TEST(counting, d4_total) {
  // Paper §III: 3,009,081,623,421,558 positions with symmetries removed.
  uint64_t total = 0;
  for (int n = 0; n <= 36; n++) total += count_boards(n, 8);
  EXPECT_EQ(total, 3009081623421558u);
  EXPECT_EQ(count_boards(0, 8), 1u);
  EXPECT_EQ(count_boards(1, 8), 6u);  // D4 has 6 orbits on the 36 cells
}

TEST(counting, full_group_small_slices) {
  const uint64_t expected[] = {1,     3,      30,      227,      2013,    13065,
                               90641, 493844, 2746022, 12420352, 56322888};
  for (int n = 0; n <= 10; n++) EXPECT_EQ(count_boards(n, 2048), expected[n]) << n;
}

TEST(counting, burnside_matches_brute_force) {
  // Enumerate every board of slices 0..4, standardize, and count distinct classes.
  for (int n = 0; n <= 4; n++) {
    const auto boards = enumerate_boards((n + 1) / 2, n / 2);
    EXPECT_EQ(boards.size(), all_boards(n));
    std::unordered_set<board_t> d4, full;
    for (const board_t b : boards) {
      d4.insert(standardize(b));
      full.insert(superstandardize(b));
    }
    EXPECT_EQ(d4.size(), count_boards(n, 8)) << n;
    EXPECT_EQ(full.size(), count_boards(n, 2048)) << n;
  }
  // Unequal colour splits as well, straight from fixed_boards.
  for (const auto& [black, white] : {std::pair{3, 0}, std::pair{0, 2}, std::pair{2, 2}}) {
    std::unordered_set<board_t> full;
    for (const board_t b : enumerate_boards(black, white)) full.insert(superstandardize(b));
    uint64_t sum = 0;
    for (int k = 0; k < 2048; k++)
      sum += fixed_boards(cell_permutation(symmetry_t::from_index(k)), black, white);
    EXPECT_EQ(sum % 2048, 0u);
    EXPECT_EQ(sum / 2048, full.size()) << black << " " << white;
  }
}

TEST(counting, bad_arguments) {
  EXPECT_THROW(count_boards(37, 8), usage_error_t);
  EXPECT_THROW(count_boards(-1, 8), usage_error_t);
  EXPECT_THROW(count_boards(3, 16), usage_error_t);
  EXPECT_THROW(all_boards(37), usage_error_t);
}

TEST(counting, full_game_sizes) {
  const auto sizes = descendant_sizes(empty_root());
  ASSERT_EQ(sizes.size(), 37u);
  slice_sizes_t total;
  uint64_t max_sections = 0;
  int max_slice = -1;
  for (int n = 0; n <= 36; n++) {
    const auto& s = sizes[n];
    EXPECT_EQ(s.slice, n);
    // Descendants of the empty board are every standardized section, slice 36 included.
    const auto sections = slice_sections(n);
    EXPECT_EQ(s.sections, sections.size()) << n;
    EXPECT_EQ(s.lines_computed, slice_lines_t(sections).total_lines()) << n;
    EXPECT_LE(s.lines_computed, s.lines);
    if (s.sections > max_sections) max_sections = s.sections, max_slice = n;
    total += s;
  }
  EXPECT_EQ(sizes[36].lines_computed, 0u);  // every quadrant is full
  EXPECT_EQ(max_sections, 8239u);
  EXPECT_EQ(max_slice, 24);
  EXPECT_EQ(total.sections, 108204u);
  EXPECT_EQ(total.nodes, 13540337135288u);
  EXPECT_EQ(total.blocks, 3654002393u);
  EXPECT_EQ(total.lines, 996084744u);
  EXPECT_EQ(total.lines_computed, 858413302u);
  // Small slices by hand: slice 1 is one section (1,0,0,0,...) of shape 3x1x1x1.
  EXPECT_EQ(sizes[1].nodes, 3u);
  EXPECT_EQ(sizes[1].blocks, 1u);
  EXPECT_EQ(sizes[1].lines, 4u);
}

TEST(counting, root_sizes) {
  // A slice-36 root has only itself and no computed lines.
  const section_t full = section_t::parse("54455445");
  const auto last = descendant_sizes(full);
  ASSERT_EQ(last.size(), 1u);
  EXPECT_EQ(last[0].slice, 36);
  EXPECT_EQ(last[0].sections, 1u);
  EXPECT_EQ(last[0].nodes, full.size());
  EXPECT_EQ(last[0].lines_computed, 0u);
  // The descendants of a mid-game root are part of the full game, slice by slice.
  const auto all = descendant_sizes(empty_root());
  const section_t root = section_t::parse("33333333").standardize();
  const auto sizes = descendant_sizes(root);
  ASSERT_EQ(sizes.size(), 36u - 24 + 1);
  EXPECT_EQ(sizes[0].sections, 1u);
  EXPECT_EQ(sizes[0].nodes, root.size());
  for (const auto& s : sizes) {
    EXPECT_LE(s.sections, all[s.slice].sections);
    EXPECT_LE(s.blocks, all[s.slice].blocks);
    EXPECT_GT(s.sections, 0u);
  }
}

TEST(counting, overcount) {
  // Paper §III: rotation abstraction 5.4%, sections 9.3%, total 15.2%.
  const overcount_t o = overcount();
  EXPECT_EQ(o.boards8, 3009081623421558u);
  EXPECT_EQ(o.nodes, 13540337135288u);
  EXPECT_NEAR(100 * (o.rotation() - 1), 5.4, 0.05);
  EXPECT_NEAR(100 * (o.sections() - 1), 9.3, 0.05);
  EXPECT_NEAR(100 * (o.total() - 1), 15.2, 0.05);
  EXPECT_NEAR(o.total(), o.rotation() * o.sections(), 1e-12);
}

TEST(counting, branching_factor) {
  // Paper §II: 12.2 stone placements, 97.3 moves with rotations.
  EXPECT_NEAR(branching_factor(), 12.2, 0.05);
  EXPECT_NEAR(8 * branching_factor(), 97.3, 0.05);
}

TEST(counting, published_totals) {
  // Weighting each standardized section's board total by its number of distinct transforms
  // gives every board of the slice.
  for (const int n : {0, 1, 2, 5, 12, 24, 35}) {
    const auto rows = published_counts(n);
    const auto sections = slice_sections(n);
    ASSERT_EQ(rows.size(), sections.size()) << n;
    uint64_t total = 0;
    for (size_t r = 0; r < rows.size(); r++) {
      const section_t s = section_t::from_sig(rows[r][0]);
      EXPECT_EQ(s, sections[r]);
      total += uint64_t(section_multiplicity(s)) * rows[r][3];
    }
    EXPECT_EQ(total, all_boards(n)) << n;
  }
  EXPECT_EQ(section_multiplicity(empty_root()), 1);
  EXPECT_EQ(section_multiplicity(section_t::parse("10000000")), 4);
}
