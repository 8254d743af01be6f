// Table-driven superstandardization for the search hot path: the same result as base's
// superstandardize (least board over the 2048 symmetries, and the same symmetry reaching it),
// about ten times faster, from per-quadrant rotation-minimum tables.
#pragma once
#include "pentago/base/board.h"
#include "pentago/base/symmetry.h"

namespace pentago {

// Equal to superstandardize(board, symmetry): board and symmetry both.
board_t fast_superstandardize(board_t board, symmetry_t* symmetry);

}  // namespace pentago
