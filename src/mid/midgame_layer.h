// Internal to mid: a root of the midgame solver, one layer (its geometry and read-only tables),
// the job of solving its rows, the row kernels per SIMD level (midgame_rows_*.cpp), and the
// passes-to-values driver shared by the CPU solver and the batched GPU solver.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "pentago/base/super.h"
#include "pentago/mid/halfsuper.h"
#include "pentago/mid/midgame.h"
#include "pentago/util/worker_pool.h"

namespace pentago::detail {

constexpr int midgame_max_spots = 36 - midgame_min_stones;

// A root to solve: its empty cells ("spots") in increasing bit order and the two colours'
// stones.
struct midgame_root_t {
  board_t board = 0;
  bool to_rotate = false;
  int spots = 0;
  int spot_bit[36] = {};
  side_t first = 0, second = 0;  // the colour placing at layer 0, and the other
  int parity0 = 0;               // halfsuper class of layer 0: 1 when the root must rotate

  side_t side_of(uint32_t spot_mask) const {
    side_t s = 0;
    for (; spot_mask; spot_mask &= spot_mask - 1)
      s |= side_t(1) << spot_bit[__builtin_ctz(spot_mask)];
    return s;
  }
};

// Checks `board` (check_board; a board to rotate needs a stone) and values it by the rules when
// the game is over there: its one-entry list (with distance 0 for a decisive one when
// `distance`). nullopt when it needs solving.
std::optional<midgame_value_t> midgame_finished_root(board_t board, bool to_rotate, bool distance);
// The root of an open board.
midgame_root_t midgame_root(board_t board, bool to_rotate);

// One single-bit pass over a batch of roots with the same spot count: layers `top` down to 0,
// `top` a leaf (spots: the whole game). Per root, the halves of layer 0 (index 0) and layer 1
// (1 + spot). Aggressive: the bit is "layer 0's mover wins" at even layers and "the mover does
// not lose" at odd ones; else the reverse.
using midgame_pass_t =
    std::function<std::vector<std::vector<halfsuper_t>>(bool aggressive, int top)>;

// The listed values (midgame_result_t::values) of every root of a batch (one spot count), from
// the full passes and, with `distance`, the cut-off passes until every decisive entry is timed.
std::vector<std::vector<midgame_value_t>> midgame_root_values(
    const std::vector<midgame_root_t>& roots, bool distance, const midgame_pass_t& pass);

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

// The tables behind halfsuper_wins_both (halfsuper.cpp), for the batched solver's device copy:
// covered[q][mask][line], and the axis sets: quadrant 0 at parity 0 and 1, quadrants 1, 2, 3.
void copy_halfsuper_wins_tables(uint8_t (&covered)[4][512][32], halfsuper_t (&axes)[5][16]);

// The geometry of layer n of a root with `spots` spots and layer-0 class `parity0` (everything
// but the wins), and the wins of `root` for it.
midgame_layer_t midgame_layer_geometry(int spots, int n, int parity0);
void fill_midgame_wins(midgame_layer_t& layer, const midgame_root_t& root, worker_pool_t& pool);

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
