// Packed pentago boards: side bitmasks, radix-3 quadrants, stones, rotations, five in a row,
// and the decimal / 6x6 picture text forms (docs/formats.md, "Boards", a data contract).
#pragma once
#include <array>
#include <cstdint>
#include <string>

namespace pentago {

// One player's stones: quadrant q uses bits 16q..16q+8, cell i = 3*(x%3) + y%3.
using side_t = uint64_t;
// Both players: quadrant q is a 16-bit radix-3 number (digit 0 empty, 1 black, 2 white).
using board_t = uint64_t;
// One packed quadrant, 0 .. 3^9-1.
using quadrant_t = uint16_t;

constexpr side_t side_mask = 0x01ff01ff01ff01ffULL;
constexpr int quadrant_states = 19683;  // 3^9

inline int popcount(uint64_t x) { return __builtin_popcountll(x); }

// Bit of cell (x, y), 0 <= x, y < 6, (0, 0) the lower-left corner.
constexpr side_t cell_bit(int x, int y) {
  return side_t(1) << (16 * (2 * (x / 3) + y / 3) + 3 * (x % 3) + y % 3);
}

inline quadrant_t quadrant(board_t board, int q) { return quadrant_t(board >> 16 * q); }
inline board_t quadrants(quadrant_t q0, quadrant_t q1, quadrant_t q2, quadrant_t q3) {
  return board_t(q0) | board_t(q1) << 16 | board_t(q2) << 32 | board_t(q3) << 48;
}

// Radix-3 packing of a 9-bit mask (sum of 3^i over set bits), and its inverse per colour.
extern const std::array<uint16_t, 512> pack_table;
extern const std::array<std::array<uint16_t, 2>, quadrant_states> unpack_table;

board_t pack(side_t black, side_t white);
side_t unpack(board_t board, int color);  // color 0 = black, 1 = white

inline int count_stones(board_t board) { return popcount(unpack(board, 0) | unpack(board, 1)); }
// Black (0) moves when the counts are equal; white (1) when black has one more stone.
int board_turn(board_t board);

// Quadrant-local rotations of a 9-bit mask: CCW ("left"), CW ("right"), anti-diagonal flip.
extern const std::array<uint16_t, 512> rotate_ccw_table;
extern const std::array<uint16_t, 512> rotate_cw_table;
extern const std::array<uint16_t, 512> reflect_table;
// Same on packed quadrants (both colours): turned CCW once, and reflected.
quadrant_t rotate_quadrant_ccw(quadrant_t q);
quadrant_t reflect_quadrant(quadrant_t q);
quadrant_t rotate_quadrant(quadrant_t q, int ccw_turns);

// Rotate quadrant q of a side or board: dir +1 = CCW, -1 = CW.
side_t rotate_side(side_t side, int q, int dir);
board_t rotate_board(board_t board, int q, int dir);

// The 32 five-in-a-row lines as side masks.
extern const std::array<side_t, 32> win_lines;
bool won(side_t side);

// Stone placement: adds colour `color` at cell bit index `bit` (16q+i). The cell must be empty.
board_t place_stone(board_t board, int color, int q, int i);
inline side_t empty_cells(board_t board) {
  return side_mask & ~(unpack(board, 0) | unpack(board, 1));
}

// Game status of a position from the view of the player to move, or nullopt-like 2 when the
// game goes on: returns 1 win, 0 tie, -1 loss (rule 1 and 2 of the move rule), else 2.
int terminal_value(board_t board);

// Move notation, printed and read by every front end:
//   cell     "a1".."f6": row letter (a = top row of the picture, y = 5) and column 1..6 (x + 1)
//   turn     "q0".."q3" (0 lower left, 1 upper left, 2 lower right, 3 upper right) then "cw"
//            or "ccw"; direction +1 = counterclockwise, -1 = clockwise
//   move     "c4 q3 cw"; a placement that makes five in a row wins at once: the cell alone
//            (direction 0).
std::string cell_name(int x, int y);
std::string cell_name_of_bit(int bit);  // a bit index 16q + i of side_t
std::string rotation_name(int quadrant, int direction);
std::string move_name(int x, int y, int quadrant, int direction);
std::string move_name(int bit, int quadrant, int direction);  // the cell as a side_t bit

// Text forms. str_board is the debug picture (docs/formats.md, "Boards"); parse_board accepts the
// decimal board_t or that picture (with or without the counts line) and validates the position:
// digits, stone overlap, and that black has as many stones as white or one more.
std::string str_board(board_t board);
board_t parse_board(const std::string& text);
// Checks a packed board: every quadrant < 3^9 and stone counts a game can reach.
void check_board(board_t board);

}  // namespace pentago
