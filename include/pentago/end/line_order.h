// The order in which the engine computes a slice's lines: section by section, and within a
// section as a growing cube of block coordinates, so that every output block receives all of
// its line contributions close together. Few blocks are then incomplete at any time, which is
// what the last slice of a run holds when its complete blocks are counted and dropped.
#pragma once
#include <cstdint>
#include <vector>

#include "pentago/layout/blocks.h"

namespace pentago {

// Sorts lines (all of one slice) into completion order: by section index in `order`, then by
// the largest of the line's three base coordinates, then dimension, then base.
void sort_lines_for_completion(std::vector<line_t>& lines, const slice_lines& order);

// Every line of the slice, in completion order.
std::vector<line_t> lines_in_completion_order(const slice_lines& order);

// The most nodes held at once by incomplete blocks (reached by some but not all of their
// lines) when the slice's lines run one at a time in completion order.
uint64_t incomplete_peak_nodes(const slice_lines& order);

}  // namespace pentago
