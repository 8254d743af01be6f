// Internal to mid: one layer of the midgame solver (its geometry and read-only tables), the job
// of solving its rows, and the row kernels per SIMD level (midgame_rows_*.cpp).
#pragma once
#include <cstdint>
#include <vector>

#include "pentago/base/super.h"
#include "pentago/mid/halfsuper.h"
#include "pentago/mid/midgame.h"

namespace pentago::detail {

constexpr int midgame_max_spots = 36 - midgame_min_stones;

// Geometry and read-only tables of one layer (shared by all its rows).
struct midgame_layer_t {
  int n = 0, k0 = 0, k1 = 0;
  int parity = 0;          // halfsuper class of this layer's positions (after rotation)
  bool rows_by_mover = 0;  // rows are M (else J)
  int row_size = 0, col_size = 0, col_space = 0;  // |row set|, |column set|, spots free of a row
  int free_count = 0;                             // empty spots: spots - n
  uint64_t rows = 0, cols = 0;
  std::vector<uint32_t> row_sets;  // absolute spot masks
  // Per column (relative mask within the row's free spots): its elements, and per empty spot
  // f: the relative index j of the spot and the child's byte offset in its row of the next
  // layer (bytes, not entries: an address operand scales by 8 at most).
  std::vector<uint8_t> col_elements, free_index;
  std::vector<uint32_t> child_offset;
  // Wins of the mover per absolute k0-set (this layer's class), of the player who just placed
  // per absolute k1-set (pairs: this class, then the other: before the rotation).
  std::vector<halfsuper_t> mover_wins, placer_wins;
};

// Solving the rows of `layer` from `next` (nullptr at a leaf layer) into `out`. `win_bit`: the
// stored bit means "the mover wins" (else "the mover does not lose"). Layers 0 and 1 also copy
// their values into `results` (root, then one per spot). `stream`: write with non-temporal
// stores (layers much larger than the caches).
struct midgame_row_job_t {
  const midgame_layer_t* layer = nullptr;
  const midgame_layer_t* next = nullptr;
  const halfsuper_t* next_data = nullptr;
  halfsuper_t* out = nullptr;
  halfsuper_t* results = nullptr;
  bool win_bit = false;
  bool stream = false;
};

// The kernels of one SIMD level: rows [begin, end) of a job, and halfsuper rmax as that level
// computes it.
struct midgame_row_kernels_t {
  void (*solve_rows)(const midgame_row_job_t& job, uint64_t begin, uint64_t end);
  halfsuper_t (*rmax)(halfsuper_t h);
};

// The kernels of `level` (the CPU must support it: simd_supported).
const midgame_row_kernels_t& midgame_kernels_for(simd_level_t level);

}  // namespace pentago::detail
