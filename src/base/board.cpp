// Packed boards: tables for radix-3 packing and quadrant rotation, five-in-a-row, text forms.
#include "pentago/base/board.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <sstream>
#include <vector>

#include "pentago/util/error.h"

namespace pentago {
namespace {

// Destination of local cell i under each quadrant-local map (docs/formats.md, "Boards").
constexpr int ccw_dest[9] = {6, 3, 0, 7, 4, 1, 8, 5, 2};
constexpr int cw_dest[9] = {2, 5, 8, 1, 4, 7, 0, 3, 6};
constexpr int flip_dest[9] = {8, 5, 2, 7, 4, 1, 6, 3, 0};

std::array<uint16_t, 512> permute_table(const int* dest) {
  std::array<uint16_t, 512> t{};
  for (int m = 0; m < 512; m++)
    for (int i = 0; i < 9; i++)
      if (m >> i & 1) t[m] |= uint16_t(1 << dest[i]);
  return t;
}

std::array<uint16_t, 512> make_pack() {
  std::array<uint16_t, 512> t{};
  for (int m = 0; m < 512; m++) {
    int v = 0, p = 1;
    for (int i = 0; i < 9; i++, p *= 3)
      if (m >> i & 1) v += p;
    t[m] = uint16_t(v);
  }
  return t;
}

std::array<std::array<uint16_t, 2>, quadrant_states> make_unpack() {
  std::array<std::array<uint16_t, 2>, quadrant_states> t{};
  for (int v = 0; v < quadrant_states; v++) {
    int x = v;
    for (int i = 0; i < 9; i++, x /= 3)
      if (x % 3) t[v][x % 3 - 1] |= uint16_t(1 << i);
  }
  return t;
}

std::array<side_t, 32> make_win_lines() {
  std::array<side_t, 32> lines{};
  int n = 0;
  auto add = [&](int x, int y, int dx, int dy) {
    side_t s = 0;
    for (int k = 0; k < 5; k++) s |= cell_bit(x + k * dx, y + k * dy);
    lines[n++] = s;
  };
  for (int x = 0; x < 2; x++)
    for (int y = 0; y < 6; y++) add(x, y, 1, 0);
  for (int x = 0; x < 6; x++)
    for (int y = 0; y < 2; y++) add(x, y, 0, 1);
  for (int x = 0; x < 2; x++)
    for (int y = 0; y < 2; y++) add(x, y, 1, 1);
  for (int x = 0; x < 2; x++)
    for (int y = 4; y < 6; y++) add(x, y, 1, -1);
  return lines;
}

}  // namespace

const std::array<uint16_t, 512> pack_table = make_pack();
const std::array<std::array<uint16_t, 2>, quadrant_states> unpack_table = make_unpack();
const std::array<uint16_t, 512> rotate_ccw_table = permute_table(ccw_dest);
const std::array<uint16_t, 512> rotate_cw_table = permute_table(cw_dest);
const std::array<uint16_t, 512> reflect_table = permute_table(flip_dest);
const std::array<side_t, 32> win_lines = make_win_lines();

board_t pack(side_t black, side_t white) {
  board_t b = 0;
  for (int q = 0; q < 4; q++)
    b |= board_t(pack_table[black >> 16 * q & 0x1ff] + 2 * pack_table[white >> 16 * q & 0x1ff])
         << 16 * q;
  return b;
}

side_t unpack(board_t board, int color) {
  side_t s = 0;
  for (int q = 0; q < 4; q++) s |= side_t(unpack_table[quadrant(board, q)][color]) << 16 * q;
  return s;
}

int board_turn(board_t board) {
  return popcount(unpack(board, 0)) == popcount(unpack(board, 1)) ? 0 : 1;
}

quadrant_t rotate_quadrant_ccw(quadrant_t q) {
  auto& u = unpack_table[q];
  return quadrant_t(pack_table[rotate_ccw_table[u[0]]] + 2 * pack_table[rotate_ccw_table[u[1]]]);
}

quadrant_t reflect_quadrant(quadrant_t q) {
  auto& u = unpack_table[q];
  return quadrant_t(pack_table[reflect_table[u[0]]] + 2 * pack_table[reflect_table[u[1]]]);
}

quadrant_t rotate_quadrant(quadrant_t q, int ccw_turns) {
  for (int k = 0; k < (ccw_turns & 3); k++) q = rotate_quadrant_ccw(q);
  return q;
}

side_t rotate_side(side_t side, int q, int dir) {
  const auto& table = dir > 0 ? rotate_ccw_table : rotate_cw_table;
  const side_t part = side >> 16 * q & 0x1ff;
  return (side & ~(side_t(0x1ff) << 16 * q)) | side_t(table[part]) << 16 * q;
}

board_t rotate_board(board_t board, int q, int dir) {
  return pack(rotate_side(unpack(board, 0), q, dir), rotate_side(unpack(board, 1), q, dir));
}

bool won(side_t side) {
  for (side_t line : win_lines)
    if ((side & line) == line) return true;
  return false;
}

board_t place_stone(board_t board, int color, int q, int i) {
  static const int powers[9] = {1, 3, 9, 27, 81, 243, 729, 2187, 6561};
  PENTAGO_CHECK(!((unpack(board, 0) | unpack(board, 1)) >> (16 * q + i) & 1), "cell occupied");
  return board + (board_t((color + 1) * powers[i]) << 16 * q);
}

int terminal_value(board_t board) {
  const int turn = board_turn(board);
  const bool me = won(unpack(board, turn)), op = won(unpack(board, 1 - turn));
  if (me || op) return me && op ? 0 : me ? 1 : -1;
  if (count_stones(board) == 36) return 0;
  return 2;
}

std::string str_board(board_t board) {
  const side_t black = unpack(board, 0), white = unpack(board, 1);
  std::string s = "counts: 0s = " + std::to_string(popcount(black)) +
                  ", 1s = " + std::to_string(popcount(white)) + "\n\n";
  for (int y = 5; y >= 0; y--) {
    s += char('a' + 5 - y);
    s += "  ";
    for (int x = 0; x < 6; x++)
      s += black & cell_bit(x, y) ? '0' : white & cell_bit(x, y) ? '1' : '_';
    s += '\n';
  }
  return s + "\n   123456";
}

void check_board(board_t board) {
  for (int q = 0; q < 4; q++)
    if (quadrant(board, q) >= quadrant_states)
      throw usage_error_t("invalid board " + std::to_string(board) + ": quadrant " +
                          std::to_string(q) + " is not a radix-3 value below 3^9");
  const int b = popcount(unpack(board, 0)), w = popcount(unpack(board, 1));
  if (b != w && b != w + 1)
    throw usage_error_t("impossible board " + std::to_string(board) + ": " + std::to_string(b) +
                        " black and " + std::to_string(w) +
                        " white stones (black moves first, so black has as many stones as white "
                        "or one more)");
}

board_t parse_board(const std::string& text) {
  // Trim.
  size_t a = text.find_first_not_of(" \t\r\n"), e = text.find_last_not_of(" \t\r\n");
  if (a == std::string::npos) throw usage_error_t("empty board");
  const std::string t = text.substr(a, e - a + 1);
  board_t board;
  if (std::all_of(t.begin(), t.end(), [](char c) { return std::isdigit((unsigned char)c); })) {
    if (t.size() > 20) throw usage_error_t("invalid board '" + t + "': number too large");
    errno = 0;
    char* end = nullptr;
    const unsigned long long v = strtoull(t.c_str(), &end, 10);
    if (errno || *end) throw usage_error_t("invalid board '" + t + "': number too large");
    board = v;
  } else if (t.find('\n') == std::string::npos) {
    // One line, not all digits: neither a code nor a picture (a sign, "0x", a second 'm').
    std::string shown;
    for (const char c : t.substr(0, 40))
      shown += (unsigned char)c >= 0x20 && (unsigned char)c < 0x7f ? c : '?';
    throw usage_error_t("invalid board '" + shown + (t.size() > 40 ? "...'" : "'") +
                        ": a board is a decimal code (digits only; a trailing 'm' when the mover "
                        "must rotate), 36 cells of '_', '.', '0', '1', or a 6x6 picture");
  } else {
    // 6x6 picture: rows a..f (y = 5..0) of 6 characters from "_01" (also '.', 'b'/'w').
    std::istringstream in(t);
    std::string line;
    std::vector<std::string> rows;
    std::vector<char> labels;  // the row letter written before the row, or 0
    while (std::getline(in, line)) {
      size_t p = line.find_first_not_of(" \t\r");
      if (p == std::string::npos) continue;
      line = line.substr(p);
      while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.pop_back();
      if (line.rfind("counts:", 0) == 0 || line == "123456") continue;
      char label = 0;
      if (line.size() >= 3 && line[0] >= 'a' && line[0] <= 'f' && line[1] == ' ') {
        label = line[0];
        size_t q = line.find_first_not_of(' ', 1);
        line = line.substr(q);
      }
      rows.push_back(line);
      labels.push_back(label);
    }
    if (rows.size() != 6)
      throw usage_error_t("invalid board picture: expected 6 rows of 6 cells, got " +
                          std::to_string(rows.size()) + " rows");
    for (int r = 0; r < 6; r++)
      if (labels[r] && labels[r] != 'a' + r)
        throw usage_error_t("invalid board picture: row " + std::to_string(r + 1) +
                            " from the top is labelled '" + std::string(1, labels[r]) +
                            "', expected '" + std::string(1, char('a' + r)) +
                            "' (rows run a..f from the top)");
    side_t black = 0, white = 0;
    for (int r = 0; r < 6; r++) {
      if (rows[r].size() != 6)
        throw usage_error_t("invalid board picture: row " + std::string(1, char('a' + r)) +
                            " has " + std::to_string(rows[r].size()) + " cells, expected 6");
      for (int x = 0; x < 6; x++) {
        const char c = rows[r][x];
        const side_t bit = cell_bit(x, 5 - r);
        if (c == '0' || c == 'b' || c == 'B' || c == 'x' || c == 'X')
          black |= bit;
        else if (c == '1' || c == 'w' || c == 'W' || c == 'o' || c == 'O')
          white |= bit;
        else if (c != '_' && c != '.' && c != '-')
          throw usage_error_t("invalid board picture: bad cell character '" + std::string(1, c) +
                              "' in row " + std::string(1, char('a' + r)));
      }
    }
    board = pack(black, white);
  }
  check_board(board);
  return board;
}

std::string cell_name(int x, int y) { return std::string(1, char('a' + 5 - y)) + char('1' + x); }

std::string cell_name_of_bit(int bit) {
  const int q = bit / 16, i = bit % 16;
  return cell_name(3 * (q / 2) + i / 3, 3 * (q % 2) + i % 3);
}

std::string rotation_name(int quadrant, int direction) {
  return "q" + std::to_string(quadrant) + (direction > 0 ? " ccw" : " cw");
}

std::string move_name(int x, int y, int quadrant, int direction) {
  return direction ? cell_name(x, y) + " " + rotation_name(quadrant, direction) : cell_name(x, y);
}

std::string move_name(int bit, int quadrant, int direction) {
  const int q = bit / 16, i = bit % 16;
  return move_name(3 * (q / 2) + i / 3, 3 * (q % 2) + i % 3, quadrant, direction);
}

}  // namespace pentago
