// Private interface of the super kernels: the constant tables shared by the three SIMD
// instantiations, and the node kernel that line compute (src/end/line_compute.cpp) runs on
// whole output blocks.
#pragma once
#include <cstdint>

#include "pentago/base/super.h"

namespace pentago::detail {

// Compile-time copies of board.cpp's quadrant rotation and win lines (core §1.5, §1.6); the
// kernel tests compare super_wins with won() on rotated boards.
constexpr int rotate_ccw(int mask) {
  constexpr int ccw_dest[9] = {6, 3, 0, 7, 4, 1, 8, 5, 2};
  int r = 0;
  for (int i = 0; i < 9; i++)
    if (mask >> i & 1) r |= 1 << ccw_dest[i];
  return r;
}

constexpr side_t win_line(int line) {
  // 12 horizontal (x = 0..1, y = 0..5), 12 vertical, 4 diagonal, 4 anti-diagonal.
  int x, y, dx, dy;
  if (line < 12)
    x = line / 6, y = line % 6, dx = 1, dy = 0;
  else if (line < 24)
    x = (line - 12) / 2, y = (line - 12) % 2, dx = 0, dy = 1;
  else if (line < 28)
    x = (line - 24) / 2, y = (line - 24) % 2, dx = 1, dy = 1;
  else
    x = (line - 28) / 2, y = 4 + (line - 28) % 2, dx = 1, dy = -1;
  side_t s = 0;
  for (int k = 0; k < 5; k++) s |= cell_bit(x + k * dx, y + k * dy);
  return s;
}

// Two words of win nibbles: nibble j of word h describes win line 16h + j.
struct nibbles_t {
  uint64_t h[2];
};

struct super_tables_t {
  // win_nibbles[q][mask]: nibble j of word h is the set of CCW turns r of quadrant q under
  // which rotated `mask` covers the quadrant-q cells of win line 16h + j (all 4 if untouched).
  nibbles_t win_nibbles[4][512];
  // Expansions of a 4-bit set of turns along one axis into the 256-bit layout.
  uint64_t axis0[16], axis1[16], axis2[16];
  super_t axis3[16];
  // rotate_low[k]: in each nibble, the bits that come from above when it is rotated down by k.
  uint64_t rotate_low[4];
  // rotate_words[k]: 32-bit lane indices that rotate the four words down by k.
  uint32_t rotate_words[4][8];
};

extern const super_tables_t super_tables;

// One output block of a block line, prepared by line compute. Per node (C order over `shape`,
// indices i0..i3) it computes the recurrence of core reference §3.6 restricted to moves in
// quadrant d. Every per-axis table is indexed [axis][index along that axis].
struct line_block_job {
  int shape[4];
  int d;      // the line's quadrant, where the mover places a stone
  bool last;  // slice 35: every placement fills the board, no child values
  // Win nibbles of the mover's and the opponent's stones.
  nibbles_t mine[4][8], theirs[4][8];
  // Along d: the OR over empty cells e of the nibbles of the mover's stones plus e, which
  // give the union over placements of the immediate wins (super_wins is monotone per line).
  nibbles_t placed[8];
  // Children (not last). Every child symmetry is sigma = (global, l): the kernel ANDs the
  // children shifted along child_axis by their own amount, then shifts the other axes by the
  // node's amount and applies the global part once per node.
  int global;
  int child_axis;
  uint8_t node_shift[4][8];      // local shifts on axes != child_axis (0 along d)
  int32_t node_offset[2][4][8];  // input offsets per stride kind (0 along d)
  struct child_t {
    const superinfo_t* base;  // add node_offset[kind][..] summed over the axes
    int kind;
    int shift;  // turns along child_axis
  };
  child_t children[8][9];  // per index along d
  int child_count[8];
  superinfo_t* output;
};

// The kernels of one SIMD level that have no place in the public function table.
struct internal_kernels {
  void (*line_block)(const line_block_job& job);
};
const internal_kernels& internal_kernels_for(simd_level level);

}  // namespace pentago::detail
