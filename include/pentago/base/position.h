// Positions in play and their notation: a board with whether its mover has placed and must
// still rotate, its text forms (the decimal code of the published data with an optional "m",
// the 6x6 picture, the compact 36-character form; docs/formats.md, "Text forms"), the player to
// move, the checks that make a position possible, and its value by the rules alone. Shared by
// the query path, the explorer's WebAssembly engine and every front end.
#pragma once
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "pentago/base/board.h"

namespace pentago {

// A position in play: the board and whether its mover has placed and must still rotate.
struct position_t {
  board_t board = 0;
  bool to_rotate = false;
  bool operator==(const position_t&) const = default;
};

struct position_hash {
  size_t operator()(const position_t& p) const {
    const uint64_t h = (p.board ^ uint64_t(p.to_rotate) << 63) * 0x9e3779b97f4a7c15ULL;
    return size_t(h ^ h >> 31);
  }
};

// "<decimal board code>" or "<decimal board code>m" (to rotate), as the published data and
// the 2013 API.
std::string position_code(position_t position);
// Accepts the decimal code (optional trailing m), the 6x6 picture of str_board, or a compact
// 36-character text form (rows top to bottom, '_' or '.' empty, '0' black, '1' white; a
// trailing 'm' means to rotate), at most 4096 bytes with surrounding white space. Validates the
// position (validate_position); throws usage_error with a one-line reason.
position_t parse_position(const std::string& text);
// The compact 36-character form (rows top to bottom, '_' empty, '0' black, '1' white).
std::string compact_board(board_t board);

// Who moves at a position: 0 black, 1 white; the player to place, or the one who placed and
// must rotate.
int position_mover(position_t position);
// check_board, and for a position to rotate: someone has placed, and the game was not already
// over before that placement. Throws usage_error naming the position.
void validate_position(position_t position);
// The value of a finished position for its mover by the rules (1 win, 0 tie, -1 loss; a
// placement that makes five wins at once); nullopt while the game goes on.
std::optional<int> rules_value(position_t position);

const char* color_name(int color);  // "black", "white"
const char* value_word(int value);  // "loss", "tie", "win" for -1, 0, 1

// The order of a position's moves (any type with `value` and `distance`, -1 where unknown):
// best first by value, then the fastest win and the slowest loss (known distances before
// unknown ones), keeping the board order among equals.
template <class Move>
void sort_best_first(std::vector<Move>& moves) {
  std::stable_sort(moves.begin(), moves.end(), [](const Move& a, const Move& b) {
    if (a.value != b.value) return a.value > b.value;
    if (a.value == 0 || a.distance == b.distance) return false;
    if ((a.distance < 0) != (b.distance < 0)) return b.distance < 0;
    return a.value > 0 ? a.distance < b.distance : a.distance > b.distance;
  });
}

// The distance of the best of `moves` (sorted best first): known if every move of the best
// value has one, or the first is a win in one turn (nothing is faster); -1 otherwise or a tie.
template <class Move>
int best_distance(const std::vector<Move>& moves) {
  if (moves.empty() || moves.front().value == 0) return -1;
  if (moves.front().value > 0 && moves.front().distance == 1) return 1;
  for (const Move& m : moves)
    if (m.value == moves.front().value && m.distance < 0) return -1;
  return moves.front().distance;
}

}  // namespace pentago
