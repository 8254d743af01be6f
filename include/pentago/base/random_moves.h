// Random moves for playouts in tests and benchmarks: a stone on a uniformly chosen empty cell,
// a random quadrant turn, open positions reached by random moves, and boards with stones on random
// cells (no reachability filter). The draws from the generator are fixed, so seeded callers get
// fixed positions.
#pragma once
#include <algorithm>
#include <vector>

#include "pentago/base/board.h"

namespace pentago {

// Places a stone of `color` on the k-th empty cell, k = rng() % (number of empty cells).
template <class Rng>
board_t place_random_stone(board_t board, int color, Rng& rng) {
  side_t rest = empty_cells(board);
  for (int pick = int(rng() % popcount(rest)); pick; pick--) rest &= rest - 1;
  const int bit = __builtin_ctzll(rest);
  return place_stone(board, color, bit / 16, bit % 16);
}

// Turns a random quadrant one way or the other. The direction is drawn first, then the
// quadrant: the order of the positions pinned in docs/performance.md.
template <class Rng>
board_t rotate_randomly(board_t board, Rng& rng) {
  const int dir = rng() & 1 ? 1 : -1;
  const int q = int(rng() % 4);
  return rotate_board(board, q, dir);
}

// A position reached by random moves from the empty board, still open, with `stones` stones:
// to place, or (to_rotate) right after the last placement, before its rotation. Games that
// end on the way are drawn again.
template <class Rng>
board_t random_open_position(Rng& rng, int stones, bool to_rotate) {
  for (;;) {
    board_t board = 0;
    bool open = true;
    for (int n = 0; n < stones && open; n++) {
      board = place_random_stone(board, n & 1, rng);
      if (won(unpack(board, n & 1))) open = false;
      if (to_rotate && n == stones - 1) break;
      board = rotate_randomly(board, rng);
      if (terminal_value(board) != 2) open = false;
    }
    if (open) return board;
  }
}

// `stones` stones on distinct random cells, black first, then alternating.
template <class Rng>
board_t random_cells_board(Rng& rng, int stones) {
  std::vector<int> cells;
  for (int b = 0; b < 64; b++)
    if (side_mask >> b & 1) cells.push_back(b);
  std::shuffle(cells.begin(), cells.end(), rng);
  side_t black = 0, white = 0;
  for (int i = 0; i < stones; i++) (i & 1 ? white : black) |= side_t(1) << cells[i];
  return pack(black, white);
}

}  // namespace pentago
