// The node kernel of line compute: one output block of a block line, described by a
// line_block_job that line compute prepares, computed by SIMD code compiled per ISA
// (line_kernel_portable/sse/avx2.cpp) and chosen at run time like base's super kernels.
#pragma once
#include <cstdint>

#include "pentago/base/simd/super_tables.h"
#include "pentago/base/super.h"

namespace pentago {

using detail::nibbles_t;

// One output block of a block line, prepared by line compute. Per node (C order over `shape`,
// indices i0..i3) it computes the recurrence's loop over empty cells (docs/formats.md,
// "Supers") restricted to moves in quadrant d: the line's contribution, before the last step
// masks the nodes where a side has five in a row already. With `finish`, each node written
// (merged where merge_with is set) also takes that last step: the block's last line. With
// `step_only` there is no line: the job is the last step over a block holding the max of all
// its lines' contributions, and reads shape, mine, theirs and output only, rewriting output
// in place. Every per-axis table is indexed [axis][index along that axis].
struct line_block_job_t {
  int shape[4];
  int d;           // the line's quadrant, where the mover places a stone
  bool last;       // slice 35: every placement fills the board, no child values
  bool finish;     // the recurrence's last step on each node written
  bool step_only;  // no line: only the last step, over output in place
  // Win nibbles of the mover's and the opponent's stones.
  nibbles_t mine[4][8], theirs[4][8];
  // Along d: the OR over empty cells e of the nibbles of the mover's stones plus e, which
  // give the union over placements of the immediate wins (super_wins is monotone per line).
  nibbles_t placed[8];
  // Children (not last). Every child symmetry is sigma = (global, l): the kernel ANDs the
  // children shifted along child_axis by their own amount, then shifts the other axes by the
  // node's amount and applies the global part once per node.
  int global;
  int child_axis;
  uint8_t node_shift[4][8];      // local shifts on axes != child_axis (0 along d)
  int32_t node_offset[2][4][8];  // input offsets per stride kind (0 along d)
  struct child_t {
    const superinfo_t* base;  // add node_offset[kind][..] summed over the axes
    int kind;
    int shift;  // turns along child_axis
  };
  child_t children[8][9];  // per index along d
  int child_count[8];
  superinfo_t* output;
  // Where set, each output node is merged with max (OR) with the node here (which may be
  // output itself); with stream, output is written with streaming stores past the caches.
  const superinfo_t* merge_with;
  bool stream;
};

// Computes the job's output block with the kernels of the current SIMD level. Each thread
// keeps the previous block's win tables for the quadrants whose stones and shape the next
// block shares (a line's blocks share all but d's).
void run_line_block(const line_block_job_t& job);
// The same at a given level (tests); throws pentago::error if the CPU lacks it.
void run_line_block(simd_level_t level, const line_block_job_t& job);
// Makes this thread's next block build all of its tables afresh (tests).
void forget_kept_line_tables();
namespace detail {
// Bumped by forget_kept_line_tables: tables kept under another value are not used.
extern thread_local uint64_t kept_line_tables_epoch;
}  // namespace detail

}  // namespace pentago
