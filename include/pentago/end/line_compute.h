// The backward engine's kernel: one output block line of slice n computed from its one input
// block line of slice n+1 (core reference §3.6 and §5.3), block by block.
#pragma once
#include <span>
#include <vector>

#include "pentago/base/super.h"
#include "pentago/layout/line_mapping.h"

namespace pentago {

// Computes output block k of `dep.output` into `output` (block_nodes values, C order, store
// format (win, notlose) of the player to move), i.e. this line's contribution: the value of
// every node taking only moves in quadrant dep.output.dimension. `inputs[b]` is input block b
// along dep.input (uncompressed, store format); for slice 35 inputs is empty.
void compute_line_block(const line_dependency& dep, std::span<const superinfo_t* const> inputs,
                        int k, superinfo_t* output);

// Number of output nodes in block k of the line times empty cells in its quadrant: a
// measure of work.
uint64_t line_block_moves(const line_dependency& dep, int k);

// The complete values of block b of a slice-35 section (which has no inputs): the OR of its
// lines' contributions, into `value` (resized). `first`, if given, receives the first
// line's contribution alone (a block after one of its contributions).
void compute_top_block(const section_t& s, const block_t& b, std::vector<superinfo_t>& value,
                       std::vector<superinfo_t>* first = nullptr);

}  // namespace pentago
