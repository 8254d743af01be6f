// Board-at-a-time forward search: the plain reference engine, exact win/tie/loss negamax with
// alpha-beta over one concrete board (no rotation abstraction), under the full move rule.
#pragma once
#include <cstdint>
#include <memory>

#include "pentago/base/board.h"
#include "pentago/search/lockless_table.h"

namespace pentago {

// Outcome of a position for the player to move.
enum class game_value_t : int { loss = -1, tie = 0, win = 1 };
const char* value_name(game_value_t v);  // "loss", "tie" or "win"

class board_searcher_t {
 public:
  // A transposition table of 2^table_bits buckets, or none if table_bits is 0.
  explicit board_searcher_t(int table_bits = 16);

  // Value of the position for the player to move (docs/formats.md, "Boards"): rule 1 (fives already
  // on the board) first, then a full board is a tie, else the best move.
  game_value_t value(board_t board);

  // Positions visited since construction.
  uint64_t nodes() const { return nodes_; }

 private:
  int negamax(side_t me, side_t op, int alpha, int beta);

  std::unique_ptr<lockless_table_t<1>> table_;
  uint64_t nodes_ = 0;
};

// One-shot convenience: value(board) with a fresh small table.
game_value_t board_value(board_t board);

}  // namespace pentago
