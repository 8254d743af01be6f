// Positions in play and their notation (pentago/base/position.h): the text forms round-trip,
// malformed and impossible positions are one-line usage errors, and the mover and the value by
// the rules follow the game.
#include "pentago/base/position.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pentago/util/error.h"

namespace pentago {
namespace {

// A compact board from its top rows ('_' empty, '0' black, '1' white); the rest empty.
std::string rows(std::initializer_list<const char*> top) {
  std::string s;
  for (const char* r : top) s += r;
  return s + std::string(36 - s.size(), '_');
}

TEST(position, parses_codes_compact_boards_and_pictures) {
  const board_t b = pack(cell_bit(0, 5) | cell_bit(3, 2), cell_bit(5, 0));
  std::string expected(36, '_');
  expected[0] = '0', expected[21] = '0', expected[35] = '1';
  EXPECT_EQ(compact_board(b), expected);
  for (const bool m : {false, true}) {
    const position_t p{b, m};
    EXPECT_EQ(parse_position(position_code(p)), p);
    EXPECT_EQ(parse_position(compact_board(b) + (m ? "m" : "")), p);
    EXPECT_EQ(parse_position("  " + position_code(p) + "\n"), p);
  }
  EXPECT_EQ(parse_position(str_board(b)).board, b);
  EXPECT_EQ(position_code({b, true}), std::to_string(b) + "m");
  // Malformed and impossible boards are usage errors of one line.
  for (const std::string& bad : std::vector<std::string>{
           "", "12x", "m", "0m",                  // nobody has placed in the empty board
           "00________________________________",  // 34 cells
           rows({"00"}),                          // two black stones, no white
           std::string(5000, '_'), "99999999999999999999999",
           rows({"00000_", "111_11"}) + "m"}) {  // black won before white placed
    try {
      (void)parse_position(bad);
      ADD_FAILURE() << "accepted '" << bad.substr(0, 40) << "'";
    } catch (const usage_error_t& e) {
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    }
  }
}

TEST(position, mover_and_rules_value) {
  const board_t one = parse_position(rows({"0"})).board;
  EXPECT_EQ(position_mover({0, false}), 0);
  EXPECT_EQ(position_mover({one, false}), 1);
  EXPECT_EQ(position_mover({one, true}), 0);  // black placed and must rotate
  EXPECT_FALSE(rules_value({one, false}).has_value());
  // Black placed a fifth stone in a row: a win at once, before rotating.
  const position_t five = parse_position(rows({"00000_", "1111__"}) + "m");
  EXPECT_EQ(rules_value(five), 1);
  // White has five in a row and black is to place: black has lost.
  EXPECT_EQ(rules_value(parse_position(rows({"11111_", "0000_0"}))), -1);
  EXPECT_STREQ(value_word(-1), "loss");
  EXPECT_STREQ(value_word(0), "tie");
  EXPECT_STREQ(value_word(1), "win");
  EXPECT_STREQ(color_name(1), "white");
}

}  // namespace
}  // namespace pentago
