// Deterministic pseudorandom slice values for meaningless mode.
#include "pentago/end/meaningless.h"

namespace pentago {
namespace {

uint64_t mix(uint64_t k) {
  k = ~k + (k << 18);
  k ^= k >> 31;
  k *= 21;
  k ^= k >> 11;
  k += k << 6;
  k ^= k >> 22;
  return k;
}

}  // namespace

int meaningless(board_t board, uint64_t salt) {
  int bit = 0;
  for (int g = 0; g < 8; g++) bit ^= int(mix(transform_board(symmetry_t(g, 0), board) ^ salt) & 1);
  return bit;
}

super_t super_meaningless(board_t board, uint64_t salt) {
  super_t s;
  for (int r = 0; r < 256; r++)
    if (meaningless(transform_board(symmetry_t(0, r), board), salt)) s.set(r);
  return s;
}

superinfo_t meaningless_value(board_t board) {
  superinfo_t v;
  v.win = super_meaningless(board, 0) | super_meaningless(board, 1) | super_meaningless(board, 2) |
          super_meaningless(board, 3);
  v.notlose = v.win | super_meaningless(board, 7);
  return v;
}

}  // namespace pentago
