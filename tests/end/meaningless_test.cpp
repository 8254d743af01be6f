// The fast meaningless values equal their definition (XOR over the 8 global symmetries, salts
// 0-3 for win and 7 for notlose).
#include "pentago/end/meaningless.h"

#include <gtest/gtest.h>

#include "pentago/util/random.h"

using namespace pentago;

namespace {

TEST(meaningless, value_equals_its_definition) {
  random_t random(make_uint128(71, 3));
  for (int i = 0; i < 200; i++) {
    // Random positions: each cell empty, black or white.
    side_t black = 0, white = 0;
    for (int x = 0; x < 6; x++)
      for (int y = 0; y < 6; y++) {
        const int c = int(random.bits<uint64_t>() % 3);
        (c == 1 ? black : c == 2 ? white : black) |= c ? cell_bit(x, y) : 0;
      }
    const board_t board = pack(black, white);
    const super_t win = super_meaningless(board, 0) | super_meaningless(board, 1) |
                        super_meaningless(board, 2) | super_meaningless(board, 3);
    const superinfo_t v = meaningless_value(board);
    ASSERT_TRUE(v.win == win) << board;
    ASSERT_TRUE(v.notlose == (win | super_meaningless(board, 7))) << board;
  }
}

}  // namespace
