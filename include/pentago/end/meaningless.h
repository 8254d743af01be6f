// "Meaningless" test data (docs/formats.md, "Meaningless data"): a deterministic pseudorandom value
// for every board, invariant under the 8 global symmetries, used to exercise the early-game
// machinery cheaply by replacing one slice's values.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "pentago/base/super.h"
#include "pentago/layout/blocks.h"

namespace pentago {

// XOR over the 8 global symmetries g of bit 0 of H(transform(g, board) ^ salt).
int meaningless(board_t board, uint64_t salt);
// Bit r set iff meaningless(r . board, salt) (local rotation r).
super_t super_meaningless(board_t board, uint64_t salt);
// Store-format (win, notlose) value of a board in the meaningless slice:
// win = sm(0)|sm(1)|sm(2)|sm(3), notlose = win | sm(7).
superinfo_t meaningless_value(board_t board);
// meaningless_value of every node of block b of section s, in C order.
std::vector<superinfo_t> meaningless_block(const section_t& s, const block_t& b);

// The plan's line about synthesizing slice `slice` of `nodes` nodes: each node costs 2304 board
// transforms, tens of times a computed node, so a deep meaningless slice can take longer than
// solving it for real (use a shallower --meaningless, or none, for big roots).
std::string meaningless_plan_note(int slice, uint64_t nodes);

}  // namespace pentago
