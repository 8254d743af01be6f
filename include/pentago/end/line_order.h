// The order in which the engine computes a slice's lines: section by section, sections that
// read the same child sections next to each other (so a decoded input block is soon read
// again: input_cache.h), and within a section slab by slab along its full quadrants and, in a
// slab, as a growing box of block coordinates, so that every output block receives all of its
// line contributions close together. Few blocks are
// then incomplete at any time, which is what the last slice of a run holds when its complete
// blocks are counted and dropped.
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "pentago/layout/blocks.h"

namespace pentago {

// The order in which a slice's sections run (their indices in `order`): a greedy walk that
// puts sections reading the same child sections (of the slice above) next to each other, so
// that an input block's readers come close together. The next section is the one sharing
// the most children with the latest section that shares any with one still to come (lowest
// index on ties, and when none shares any). The same on every rank.
std::vector<int> section_completion_order(const slice_lines_t& order);
// Each section's place in that order (indexed like `order`).
std::vector<int> section_completion_ranks(const slice_lines_t& order);

// A line's place in completion order as one number, for the line along `dimension` with the
// 3-D `base` in the section whose place in section_completion_order is `section_rank`, whose
// block shape is `blocks` and whose open quadrants are the bits of `open` (open_quadrants):
// lines sort by it exactly as sort_lines_for_completion sorts them, so it serves as the time
// at which every rank reaches the line. Throws if the rank is 2^22 or more.
uint64_t completion_time(int section_rank, const std::array<int, 4>& blocks, uint8_t open,
                         int dimension, const std::array<uint8_t, 3>& base);

// Sorts lines (all of one slice) into completion order: by section in
// section_completion_order; then by slab, the line's coordinates along the section's full
// quadrants (no line crosses those axes, so a slab's blocks complete on their own); then by a
// box growing in proportion to the open axes (the largest of the line's base coordinates
// along them, each as a fraction of its axis); then dimension, then base.
void sort_lines_for_completion(std::vector<line_t>& lines, const slice_lines_t& order);

// Every line of the slice, in completion order.
std::vector<line_t> lines_in_completion_order(const slice_lines_t& order);

// The most nodes held at once by incomplete blocks of section s (reached by some but not all
// of their lines) when its lines run one at a time in the given order.
uint64_t incomplete_peak_nodes(const section_t& s, std::span<const line_t> ordered);
// The same for a whole slice whose lines run in completion order: the largest section's peak,
// each section simulated once per process, and none whose bound cannot exceed the peak so far.
uint64_t incomplete_peak_nodes(const slice_lines_t& order);
// A bound on a section's incomplete peak: the nodes of its largest slab (lines never cross a
// slab, and slabs run one after another); 0 where every block completes with its one line.
uint64_t incomplete_peak_bound(const section_t& s);

// How many lines of the slice read each block of each section of the slice above (indexed as
// `above`): every (section, dimension) pair whose child standardizes to that section reads
// each of its blocks exactly once, through one line of its sheaf. A block can be freed once
// that many reads are done.
std::vector<int> input_readers(const slice_lines_t& order, const slice_lines_t& above);

// Peak store bytes of computing a slice from the one above when input blocks are freed after
// their last reader, with the lines in completion order. Slices of at most
// max_simulated_lines lines are simulated line by line (a dropped slice, when
// dropped_held_bytes >= 0, holds only its incomplete blocks); larger ones are estimated section
// by section: the inputs some later (or the current) section still reads plus the outputs of
// the sections done so far (or dropped_held_bytes). Inputs and outputs are in bytes per node.
// In a simulated dropped slice the first `pooled_nodes` incomplete nodes at any time are held
// outside the store (uncompressed partial blocks); the estimate leaves that to the caller's
// dropped_held_bytes.
constexpr uint64_t max_simulated_lines = uint64_t(1) << 22;
double paired_store_peak(const slice_lines_t& order, const slice_lines_t& above, double input_bytes,
                         double output_bytes, double dropped_held_bytes = -1,
                         double pooled_nodes = 0);

}  // namespace pentago
