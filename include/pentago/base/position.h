// Positions in play and their notation: a board with whether its mover has placed and must
// still rotate, its text forms (the decimal code of the published data with an optional "m",
// the 6x6 picture, the compact 36-character form; docs/formats.md, "Text forms"), the player to
// move, the checks that make a position possible, its value by the rules alone, and its moves
// valued and ordered best first. Shared by the query path, the explorer's WebAssembly engine
// and every front end.
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

struct position_hash_t {
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

// The best value of `moves` and the source it came from (the first move of that value); -2
// and `source` unchanged for no moves.
template <class Move, class Source>
void best_value(const std::vector<Move>& moves, int& value, Source& source) {
  value = -2;
  for (const Move& m : moves)
    if (m.value > value) value = m.value, source = m.source;
}

// A rotation as a move of a position to rotate (the same fields).
template <class Move, class Rotation>
Move rotation_as_move(const Rotation& r) {
  Move m;
  m.move = r.move, m.child = r.child, m.value = r.value, m.source = r.source;
  m.distance = r.distance;
  return m;
}

// A position's moves with its value, source and distance from them (position_moves).
template <class Move>
struct valued_moves_t {
  std::vector<Move> moves;  // best first (sort_best_first)
  int value = -2;           // for the player to move; the source of the first best move
  decltype(Move{}.source) source{};
  int distance = -1;     // best_distance
  bool complete = true;  // false: some child could not be valued yet, and was left out
};

// The moves of a position whose game goes on (rules_value is nullopt), each valued for the
// player to move. To place: every empty cell in board order (rows a to f, columns 1 to 6), a
// placement making five a win at once, any other a child to rotate with its 8 rotations in
// `rotations`, best first, and the value, source and distance of the first best of them. To
// rotate: its 8 rotations. A rotation's child (a board to place) is valued for the player who
// rotated by the rules where the game ends with that turn, else by `value_child(rotation)`,
// which sets the rotation's value, source and distance and returns false where it cannot yet
// (the rotation is then left out and the result not complete). Move has move, child, value,
// source, distance and rotations (a vector of a type with the same fields but rotations); a
// default Move's source is the rules'.
template <class Move, class ValueChild>
valued_moves_t<Move> position_moves(position_t p, ValueChild&& value_child) {
  using Rotation_t = typename decltype(Move{}.rotations)::value_type;
  valued_moves_t<Move> out;
  auto rotations = [&](board_t placed) {
    std::vector<Rotation_t> list;
    for (int q = 0; q < 4; q++)
      for (const int dir : {1, -1}) {
        Rotation_t r;
        r.move = rotation_name(q, dir);
        r.child = {rotate_board(placed, q, dir), false};
        if (const auto v = rules_value(r.child)) {
          r.value = -*v;
          r.distance = *v ? 1 : -1;  // the game ends with this turn
        } else if (!value_child(r)) {
          out.complete = false;
          continue;
        }
        list.push_back(std::move(r));
      }
    sort_best_first(list);
    return list;
  };
  if (p.to_rotate) {
    for (const Rotation_t& r : rotations(p.board)) out.moves.push_back(rotation_as_move<Move>(r));
  } else {
    const int turn = position_mover(p);
    for (int y = 5; y >= 0; y--)
      for (int x = 0; x < 6; x++) {
        const side_t bit = cell_bit(x, y);
        if (!(empty_cells(p.board) & bit)) continue;
        const int i = __builtin_ctzll(bit);
        const board_t placed = place_stone(p.board, turn, i / 16, i % 16);
        Move m;
        m.move = cell_name(x, y);
        if (won(unpack(placed, turn))) {
          m.child = {placed, false};
          m.value = 1;
          m.distance = 1;
        } else {
          m.child = {placed, true};
          m.rotations = rotations(placed);
          best_value(m.rotations, m.value, m.source);
          m.distance = best_distance(m.rotations);
        }
        out.moves.push_back(std::move(m));
      }
  }
  best_value(out.moves, out.value, out.source);
  sort_best_first(out.moves);
  out.distance = best_distance(out.moves);
  return out;
}

}  // namespace pentago
