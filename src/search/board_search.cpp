// Board-at-a-time negamax with alpha-beta over win/tie/loss and a small transposition table.
#include "pentago/search/board_search.h"

#include <algorithm>

namespace pentago {
namespace {

// Transposition entries: the value lies in [lower, upper]; stored as (lower+1) | (upper+1)<<2.
uint64_t encode_bounds(int lower, int upper) {
  return uint64_t(lower + 1) | uint64_t(upper + 1) << 2;
}
int lower_bound_of(uint64_t data) { return int(data & 3) - 1; }
int upper_bound_of(uint64_t data) { return int(data >> 2 & 3) - 1; }

constexpr int loss = -1, tie = 0, win = 1;

struct child_t {
  side_t me, op;  // after the move, still from the mover's view
};

}  // namespace

board_searcher_t::board_searcher_t(int table_bits) {
  if (table_bits) table_ = std::make_unique<lockless_table_t<1>>(table_bits);
}

game_value_t board_searcher_t::value(board_t board) {
  const int turn = board_turn(board);
  return game_value_t(negamax(unpack(board, turn), unpack(board, 1 - turn), -1, 1));
}

// Value of (me to move, op) if it lies in (alpha, beta); otherwise a bound on the same side.
int board_searcher_t::negamax(side_t me, side_t op, int alpha, int beta) {
  nodes_++;
  // Rule 1: fives already on the board end the game.
  const bool me_five = won(me), op_five = won(op);
  if (me_five || op_five) return me_five && op_five ? tie : me_five ? win : loss;
  // Rule 2: a full board is a tie.
  const side_t empty = side_mask & ~(me | op);
  if (!empty) return tie;
  // Move ordering: a placement that makes five wins at once, without rotating.
  for (side_t rest = empty; rest; rest &= rest - 1)
    if (won(me | (rest & -rest))) return win;

  const board_t key = pack(me, op);
  const int alpha_in = alpha, beta_in = beta;
  if (table_) {
    lockless_table_t<1>::data_t data;
    if (table_->probe(key, data)) {
      const int lower = lower_bound_of(data[0]), upper = upper_bound_of(data[0]);
      if (lower == upper || lower >= beta) return lower;
      if (upper <= alpha) return upper;
      alpha = std::max(alpha, lower);
      beta = std::min(beta, upper);
    }
  }

  // Place, then rotate one of 4 quadrants either way. Results decided by the rotation itself
  // are scored at once; the rest are searched afterwards.
  int best = loss;
  child_t open[8 * 36];
  int open_count = 0;
  const bool fills_board = popcount(empty) == 1;
  for (side_t rest = empty; rest; rest &= rest - 1) {
    const side_t placed = me | (rest & -rest);
    for (int q = 0; q < 4; q++)
      for (int dir : {1, -1}) {
        const side_t m = rotate_side(placed, q, dir), o = rotate_side(op, q, dir);
        const bool m_five = won(m), o_five = won(o);
        int v;
        if (m_five)
          v = o_five ? tie : win;  // rule 1 on the rotated board
        else if (o_five)
          v = loss;
        else if (fills_board)
          v = tie;  // rule 2
        else {
          open[open_count++] = {m, o};
          continue;
        }
        best = std::max(best, v);
      }
  }
  for (int i = 0; i < open_count && std::max(alpha, best) < beta; i++) {
    const int v = -negamax(open[i].op, open[i].me, -beta, -std::max(alpha, best));
    best = std::max(best, v);
  }

  if (table_) {
    // Fail low: an upper bound; fail high: a lower bound; otherwise exact.
    const int lower = best >= beta_in || best > alpha_in ? best : loss;
    const int upper = best <= alpha_in ? best : best >= beta_in ? win : best;
    table_->store(key, {encode_bounds(lower, upper)}, popcount(empty));
  }
  return best;
}

const char* value_name(game_value_t v) {
  return v == game_value_t::win ? "win" : v == game_value_t::tie ? "tie" : "loss";
}

game_value_t board_value(board_t board) { return board_searcher_t(12).value(board); }

}  // namespace pentago
