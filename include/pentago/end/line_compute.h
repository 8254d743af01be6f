// The backward engine's kernel: one output block line of slice n computed from its one input
// block line of slice n+1 (docs/formats.md, "Supers"; docs/layout.md, "Exact rules"), block by
// block.
#pragma once
#include <span>
#include <vector>

#include "pentago/base/super.h"
#include "pentago/layout/line_mapping.h"

namespace pentago {

// Computes output block k of `dep.output` into `output` (block_nodes values, C order, store
// format (win, notlose) of the player to move), i.e. this line's contribution: the value of
// every node taking only moves in quadrant dep.output.dimension, before the recurrence's last
// step (finish_block) masks the nodes where a side has five in a row already. `inputs[b]` is
// input block b along dep.input (uncompressed, store format); for slice 35 inputs is empty.
void compute_line_block(const line_dependency_t& dep, std::span<const superinfo_t* const> inputs,
                        int k, superinfo_t* output);

// Where compute_line_block writes its block: `nodes` (block_nodes values). Where `merge_with`
// is set, each node is written merged with max (OR of win and notlose) with the same node
// there, which may be `nodes` itself (the contribution accumulates in place). With `stream`,
// the writes are streaming stores that bypass the caches (for a block read again much later).
// With `finish`, the block's last line: each node written (merged) also takes the last step,
// as finish_block would after it, so that `nodes` holds the complete block.
struct line_output_t {
  superinfo_t* nodes;
  const superinfo_t* merge_with = nullptr;
  bool stream = false;
  bool finish = false;
};
void compute_line_block(const line_dependency_t& dep, std::span<const superinfo_t* const> inputs,
                        int k, const line_output_t& output);

// The recurrence's last step (docs/formats.md, "Supers") over block b of section s, in place:
// `value` holds the max over the block's lines of their contributions (compute_line_block),
// and each node where either side has five in a row takes its value from those wins alone.
// The step distributes over the max and running it again changes nothing, so it may run on
// any block after its last line has merged.
void finish_block(const section_t& s, const block_t& b, std::span<superinfo_t> value);

// The input blocks (indices along dep.input, ascending) that output block k of the line reads:
// those holding a child of one of its nodes. compute_line_block never reads the others, which
// may be null. Slice 35's lines read none.
std::vector<int> line_block_inputs(const line_dependency_t& dep, int k);

// Number of output nodes in block k of the line times empty cells in its quadrant: a
// measure of work.
uint64_t line_block_moves(const line_dependency_t& dep, int k);

// The complete values of block b of a slice-35 section (which has no inputs and one open
// quadrant, so one line gives each block its value), into `value` (block_nodes values, store
// format). Slice 34 reads its inputs this way instead of from a store (run_plan.h's recomputed).
void compute_top_block(const section_t& s, const block_t& b, std::span<superinfo_t> value);
// The same into a vector, resized.
void compute_top_block(const section_t& s, const block_t& b, std::vector<superinfo_t>& value);
// The complete values of block b of a section of slice 34 or 35 computed again, for a slice
// that reads a recomputed one (run_plan.h): slice 35's as compute_top_block; slice 34's as the
// max over its open quadrants of each one's line block, from slice 35's blocks computed again.
void compute_block_again(const section_t& s, const block_t& b, std::span<superinfo_t> value);

}  // namespace pentago
