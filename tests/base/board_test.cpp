// Tests for packed boards, text forms and the move rule primitives.
#include "pentago/base/board.h"

#include <gtest/gtest.h>

#include "pentago/util/error.h"

using namespace pentago;

TEST(board, packing_example) {
  // The picture of docs/formats.md, "Boards": black at (0,0) and (2,5), white at (4,1).
  const side_t black = cell_bit(0, 0) | cell_bit(2, 5), white = cell_bit(4, 1);
  const board_t b = pack(black, white);
  EXPECT_EQ(b, 696214683649ULL);
  EXPECT_EQ(unpack(b, 0), black);
  EXPECT_EQ(unpack(b, 1), white);
  const std::string picture =
      "counts: 0s = 2, 1s = 1\n\n"
      "a  __0___\nb  ______\nc  ______\nd  ______\ne  ____1_\nf  0_____\n\n   123456";
  EXPECT_EQ(str_board(b), picture);
  EXPECT_EQ(parse_board(picture), b);
  EXPECT_EQ(parse_board("696214683649"), b);
  EXPECT_EQ(board_turn(b), 1);
}

TEST(board, parse_errors) {
  EXPECT_THROW(parse_board(""), usage_error_t);
  EXPECT_THROW(parse_board("12x"), usage_error_t);
  // One line that is no code: named as such, not as a picture of one row.
  for (const char* text : {"-1", "+0", "0x0", "0mm", "0M", "12x"}) {
    try {
      (void)parse_board(text);
      ADD_FAILURE() << text << " accepted";
    } catch (const usage_error_t& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("a board is a decimal code"), std::string::npos) << what;
      EXPECT_EQ(what.find("rows"), std::string::npos) << what;
    }
  }
  EXPECT_THROW(parse_board("99999999999999999999999"), usage_error_t);
  // Quadrant digit value 3^9 is not a radix-3 quadrant.
  EXPECT_THROW(parse_board("19683"), usage_error_t);
  // Two white stones and no black: no game reaches it.
  EXPECT_THROW(parse_board(std::to_string(pack(0, cell_bit(0, 0) | cell_bit(1, 1)))),
               usage_error_t);
  EXPECT_THROW(parse_board("a  __0___\nb  ______\n"), usage_error_t);
  EXPECT_THROW(parse_board("______\n______\n______\n______\n___z__\n______\n"), usage_error_t);
}

TEST(board, rotations) {
  // Four CCW turns are the identity, CCW then CW is the identity.
  for (int m = 0; m < 512; m++) {
    int x = m;
    for (int k = 0; k < 4; k++) x = rotate_ccw_table[x];
    EXPECT_EQ(x, m);
    EXPECT_EQ(rotate_cw_table[rotate_ccw_table[m]], m);
    EXPECT_EQ(reflect_table[reflect_table[m]], m);
  }
  // CCW sends the lower-left cell of quadrant 0 to its lower-right: (0,0) -> (2,0).
  EXPECT_EQ(rotate_side(cell_bit(0, 0), 0, 1), cell_bit(2, 0));
  EXPECT_EQ(rotate_side(cell_bit(0, 0), 0, -1), cell_bit(0, 2));
}

TEST(board, win_lines) {
  EXPECT_EQ(win_lines.size(), 32u);
  int three = 0;
  for (side_t line : win_lines) {
    EXPECT_EQ(popcount(line), 5);
    int quads = 0;
    for (int q = 0; q < 4; q++) quads += (line >> 16 * q & 0x1ff) != 0;
    three += quads == 3;
  }
  EXPECT_EQ(three, 4);
  EXPECT_TRUE(
      won(cell_bit(0, 0) | cell_bit(1, 1) | cell_bit(2, 2) | cell_bit(3, 3) | cell_bit(4, 4)));
  EXPECT_FALSE(won(cell_bit(0, 0) | cell_bit(1, 1) | cell_bit(2, 2) | cell_bit(3, 3)));
}
