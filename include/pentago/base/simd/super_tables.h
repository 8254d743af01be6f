// Internal interface of the SIMD kernels (base's super kernels, end's line kernel): the
// constant tables shared by every instantiation. The helpers here run only at compile time
// (consteval), so no ISA-specific copy of them can reach the linker.
#pragma once
#include <cstdint>

#include "pentago/base/super.h"

// The kernels are built from many small steps that must all be inlined into them.
#define PENTAGO_INLINE inline __attribute__((always_inline))

namespace pentago::detail {

// Compile-time copies of board.cpp's quadrant rotation and win lines (docs/formats.md, "Boards");
// the kernel tests compare super_wins with won() on rotated boards.
consteval int rotate_ccw(int mask) {
  constexpr int ccw_dest[9] = {6, 3, 0, 7, 4, 1, 8, 5, 2};
  int r = 0;
  for (int i = 0; i < 9; i++)
    if (mask >> i & 1) r |= 1 << ccw_dest[i];
  return r;
}

consteval side_t win_line(int line) {
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

// Byte shuffle control of groups<p0..p3> for one 64-bit word: byte 2j + b of the word comes
// from byte 2 p_j + b (add 8 to every byte for the word above it in a 128-bit lane).
consteval uint64_t group_shuffle_word(int p0, int p1, int p2, int p3) {
  return uint64_t(0x0100 + 0x0202 * p0) | uint64_t(0x0100 + 0x0202 * p1) << 16 |
         uint64_t(0x0100 + 0x0202 * p2) << 32 | uint64_t(0x0100 + 0x0202 * p3) << 48;
}

}  // namespace pentago::detail
