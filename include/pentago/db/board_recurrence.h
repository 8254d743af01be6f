// The per-board recurrence (docs/formats.md, "Supers") with its children's values given: what
// pentago-check's
// --integrity recomputes for every stored board of a slice (the engine computes the same
// relation line by line in end/line_kernel, the forward search inside its own node loop).
#pragma once
#include <functional>

#include "pentago/base/super.h"

namespace pentago {

// The value of `board` (n stones) for its mover at all 256 rotations, in store convention,
// from the values of its children (n + 1 stones, store convention for their own mover) given
// by child_value. Rule 1 (fives already on the board) and immediate wins on placement are
// applied here; for n = 35 the children are valued by the rules and child_value is not called.
superinfo_t best_over_children(board_t board, int n,
                               const std::function<superinfo_t(board_t child)>& child_value);

}  // namespace pentago
