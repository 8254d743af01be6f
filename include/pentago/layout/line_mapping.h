// How an output block line of slice n reads exactly one input line of slice n+1 (docs/layout.md,
// "Exact rules"), and where any board's value lives in section data (the same, "Looking up any
// board").
#pragma once
#include <array>

#include "pentago/base/symmetry.h"
#include "pentago/layout/blocks.h"
#include "pentago/layout/section.h"

namespace pentago {

// The dependency of output line (S, d, base) on its child line (C*, d*, base*).
struct line_dependency_t {
  line_t output;
  section_t child;            // standardized child section C*
  int child_global = 0;       // tau: C* = child(S, d).transform(tau)
  std::array<int, 4> perm{};  // C*[i] = C[perm[i]]
  int child_dimension = 0;    // d*: perm[d*] = d
  line_t input;               // the input line (C*, d*, base*); meaningless for slice 35
  symmetry_t unmove;          // T: moves C* quadrants back to C's frame (reflecting first)

  bool reflects() const { return child_global & 4; }
  // Input block holding child index along d* (same block for j and j^1).
  int input_block(int j) const { return j / block_size; }
};

line_dependency_t line_dependency_of(const line_t& output);

// Where the child of output node k (indices into S's buckets) lives after placing a stone in
// quadrant d that gives rmin_inverse value 4j + rho: its C* indices and the symmetry sigma
// with transform_board(sigma, stored board) == the child board in S's frame.
struct child_location_t {
  std::array<int, 4> index;
  symmetry_t symmetry;
};
child_location_t locate_child(const line_dependency_t& dep, const std::array<int, 4>& k, int j,
                              int rho);

// The board at indices k of section s (rotation-minimal quadrants).
board_t section_board(const section_t& s, const std::array<int, 4>& k);

// Where a board's value is stored: standardized section, indices, and the symmetry that turns
// the stored supers into the board's (value = transform_super(symmetry, stored)).
struct board_location_t {
  section_t section;
  std::array<int, 4> index;
  symmetry_t symmetry;
};
board_location_t locate_board(board_t board);

// The section (per-quadrant stone counts) of a board.
section_t board_section(board_t board);

}  // namespace pentago
