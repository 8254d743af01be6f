// Counting boards and data layout sizes: boards per slice up to symmetry (Burnside over the 8
// global or all 2048 symmetries) and per-slice sections, nodes, blocks and block lines
// (docs/layout.md, "What pentago-analyze counts").
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "pentago/base/symmetry.h"
#include "pentago/layout/section.h"

namespace pentago {

constexpr int board_cells = 36;

// Cell index 9q + i of side bit 16q + i (i < 9), and back.
constexpr int cell_of_bit(int bit) { return 9 * (bit / 16) + bit % 16; }
constexpr int bit_of_cell(int cell) { return 16 * (cell / 9) + cell % 9; }

// The permutation of the 36 cells by a symmetry: cell c moves to perm[c].
using cell_permutation_t = std::array<uint8_t, board_cells>;
cell_permutation_t cell_permutation(symmetry_t s);

// Number of colourings of the 36 cells with exactly `black` black and `white` white stones
// that a cell permutation leaves unchanged: every cycle must be one colour (or empty).
uint64_t fixed_boards(const cell_permutation_t& perm, int black, int white);

// Boards with n stones (ceil(n/2) black, floor(n/2) white), 0 <= n <= 36, counted up to a
// symmetry group of `symmetries` elements: 1 (no reduction), 8 (global D4) or 2048 (D4 with
// all local quadrant rotations). Burnside: the average over the group of fixed_boards.
// Throws usage_error for any other group size or n out of range.
uint64_t count_boards(int n, int symmetries);
// C(36, n) * C(n, floor(n/2)): every n-stone board, by binomials (the same as count_boards(n, 1)).
uint64_t all_boards(int n);

// How many distinct sections the 8 global transforms of `s` give (1, 2, 4 or 8): the weight
// of a standardized section when summing over a whole slice.
int section_multiplicity(const section_t& s);

// Layout sizes of one slice of standardized sections.
struct slice_sizes_t {
  int slice = 0;
  uint64_t sections = 0;
  uint64_t nodes = 0;           // sum of section sizes (products of shapes)
  uint64_t blocks = 0;          // sum of prod ceil(shape / 8)
  uint64_t lines = 0;           // block lines along all 4 dimensions
  uint64_t lines_computed = 0;  // block lines along non-full dimensions only
  slice_sizes_t& operator+=(const slice_sizes_t& o);
};

slice_sizes_t slice_sizes(int slice, const std::vector<section_t>& sections);

// Sizes of every slice from the root's slice to 36 among the root's standardized descendants.
// Slice 36 (never stored by the solver) holds the standardized children of slice 35. For the
// empty root 00000000 these are all sections of slices 0..36.
std::vector<slice_sizes_t> descendant_sizes(const section_t& root);

// Overcount of the data layout relative to storing each position once up to the 8 global
// symmetries (paper §III): rotation abstraction stores 256 boards per 2048-class, and
// sections store every rotation-minimal board of a standardized section, also those a
// symmetry of the section maps to each other. Sums are over slices 0..36.
struct overcount_t {
  uint64_t boards8 = 0;     // sum of count_boards(n, 8)
  uint64_t boards2048 = 0;  // sum of count_boards(n, 2048)
  uint64_t nodes = 0;       // sum of section sizes over all standardized sections
  double rotation() const;  // 256 * boards2048 / boards8 (5.4%)
  double sections() const;  // nodes / boards2048 (9.3%)
  double total() const;     // rotation() * sections() (15.2%)
};
overcount_t overcount();

// Average number of moves over all positions up to D4, sum of (36 - n) count_boards(n, 8)
// divided by the sum of count_boards(n, 8): places to put a stone (12.2); each of them is
// followed by one of 8 quadrant rotations (97.3 with rotations).
double branching_factor();

}  // namespace pentago
