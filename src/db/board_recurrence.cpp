// The per-board recurrence of docs/formats.md, "Supers" (see board_recurrence.h).
#include "pentago/db/board_recurrence.h"

#include "pentago/base/board.h"

namespace pentago {

superinfo_t best_over_children(board_t board, int n,
                               const std::function<superinfo_t(board_t child)>& child_value) {
  const int turn = n & 1;
  const side_t me = unpack(board, turn), op = unpack(board, 1 - turn);
  const super_t mine = super_wins(me), theirs = super_wins(op), over = mine | theirs;
  super_t win, notlose;
  for (side_t rest = empty_cells(board); rest; rest &= rest - 1) {
    const side_t cell = rest & -rest;
    const super_t placed = super_wins(me | cell);
    win |= placed;  // five on placement wins at once
    if (n == 35) {
      win |= rmax(placed & ~theirs);
      notlose |= rmax(placed | ~theirs);
    } else {
      const int index = __builtin_ctzll(cell);
      const superinfo_t child = child_value(place_stone(board, turn, index / 16, index % 16));
      win |= rmax(~child.notlose);
      notlose |= rmax(~child.win);
    }
  }
  return {(win & ~over) | (mine & ~theirs), ((notlose | win) & ~over) | mine};
}

}  // namespace pentago
