// Positions in play and their notation (pentago/base/position.h).
#include "pentago/base/position.h"

#include <algorithm>
#include <cctype>

#include "pentago/util/error.h"

namespace pentago {

namespace {
constexpr size_t max_position_text = 4096;
}  // namespace

const char* color_name(int color) { return color ? "white" : "black"; }

const char* value_word(int value) { return value > 0 ? "win" : value < 0 ? "loss" : "tie"; }

int position_mover(position_t p) {
  const int n = count_stones(p.board);
  return p.to_rotate ? (n - 1) & 1 : n & 1;
}

void validate_position(position_t p) {
  check_board(p.board);
  if (!p.to_rotate) return;
  if (count_stones(p.board) == 0)
    throw usage_error_t("impossible position " + position_code(p) +
                        ": to rotate, but nobody has placed a stone");
  const int other = 1 - position_mover(p);
  if (won(unpack(p.board, other)))
    throw usage_error_t("impossible position " + position_code(p) + ": to rotate, but " +
                        color_name(other) +
                        " already had five in a row before the placement (the game was over)");
}

std::optional<int> rules_value(position_t p) {
  if (p.to_rotate) {
    if (won(unpack(p.board, position_mover(p)))) return 1;  // five on placement wins at once
    return std::nullopt;
  }
  const int t = terminal_value(p.board);
  if (t != 2) return t;
  return std::nullopt;
}

std::string position_code(position_t position) {
  return std::to_string(position.board) + (position.to_rotate ? "m" : "");
}

std::string compact_board(board_t board) {
  const side_t black = unpack(board, 0), white = unpack(board, 1);
  std::string s;
  for (int y = 5; y >= 0; y--)
    for (int x = 0; x < 6; x++)
      s += black & cell_bit(x, y) ? '0' : white & cell_bit(x, y) ? '1' : '_';
  return s;
}

position_t parse_position(const std::string& text) {
  if (text.size() > max_position_text)
    throw usage_error_t("board text too long (" + std::to_string(text.size()) + " bytes; at most " +
                        std::to_string(max_position_text) + ")");
  const size_t a = text.find_first_not_of(" \t\r\n"), e = text.find_last_not_of(" \t\r\n");
  if (a == std::string::npos) throw usage_error_t("empty board");
  const std::string t = text.substr(a, e - a + 1);
  auto all = [](const std::string& s, auto pred) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [&](char c) { return pred(c); });
  };
  auto digit = [](char c) { return std::isdigit((unsigned char)c) != 0; };
  auto cell = [](char c) { return c == '_' || c == '.' || c == '0' || c == '1'; };
  position_t p;
  std::string body = t;
  if (body.size() > 1 && body.back() == 'm') {
    const std::string rest = body.substr(0, body.size() - 1);
    if (all(rest, digit) || (rest.size() == 36 && all(rest, cell))) body = rest, p.to_rotate = true;
  }
  if (body.size() == 36 && all(body, cell)) {
    side_t sides[2] = {0, 0};
    for (int k = 0; k < 36; k++)
      if (body[k] == '0' || body[k] == '1') sides[body[k] - '0'] |= cell_bit(k % 6, 5 - k / 6);
    p.board = pack(sides[0], sides[1]);
  } else {
    p.board = parse_board(body);  // the decimal code or the 6x6 picture
  }
  validate_position(p);
  return p;
}

}  // namespace pentago
