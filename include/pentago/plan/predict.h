// Resource prediction for an MPI run of pentago-endgame (docs/tools.md, "pentago-predict"): per
// slice, the per-rank load from the partition (all ranks, or a sample of them for big runs),
// output bytes and a time estimate, and the engine's own memory plan (run_plan.h, the same
// code pentago-endgame runs, and the only memory figures printed) with whether it fits.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "pentago/end/engine_options.h"
#include "pentago/end/run_plan.h"
#include "pentago/layout/section.h"
#include "pentago/util/random.h"

namespace pentago {

// Output nodes per CPU-second per core of pentago-endgame, measured with scripts/bench-scale on
// roots 44444554, 25263480 and 44444454 (2 ranks x 3 threads on 2 cores; docs/tools.md).
constexpr double calibrated_speed = 1.0e6;

// pentago-endgame's options (engine_options.h, the same parser and defaults: --save 18) and
// the prediction's own.
struct predict_options_t : engine_options_t {
  predict_options_t() : engine_options_t(engine_program_t::predict) {}
  int slices_lo = 0, slices_hi = 35;  // --slices: evaluate only these computed slices
  // Output nodes per CPU second of one core, measured on whole runs (docs/tools.md).
  double speed = calibrated_speed;
  double xz_ratio = 0.15;  // slice-file compression (2013 run: 0.12 at slice 18, 0.19 at 17)
  int rank_samples = 64;   // ranks whose load is computed when there are more (0: all)
  uint64_t rank_lines = uint64_t(1) << 18;  // lines per rank examined before sampling lines
  int jobs = 0;                             // threads computing loads (0: all hardware threads)
};

// The most one rank may write of a slice file (an MPI int count).
constexpr uint64_t max_rank_chunk = uint64_t(1) << 31;

// Statistic over the ranks examined: min, max and (when sampled) an extrapolated max.
struct rank_range_t {
  double min = 0, max = 0, mean = 0, projected_max = 0;
};

struct slice_prediction_t {
  int slice = 0;
  bool saved = false;
  uint64_t sections = 0, blocks = 0, nodes = 0, lines = 0;
  int ranks_examined = 0;      // ranks whose load was computed
  bool lines_sampled = false;  // per-rank loads estimated from a sample of their lines
  rank_range_t rank_lines, rank_blocks, rank_block_nodes, rank_line_nodes;
  // The engine's plan of this slice (run_plan.h): one rank's store, this store and the one
  // above together, and the largest line in flight.
  uint64_t rank_store_bytes = 0, pair_bytes = 0, max_line_bytes = 0;
  uint64_t save_chunk = 0;    // a rank's compressed share of the slice file (projected max)
  uint64_t output_bytes = 0;  // uncompressed slice file data (64 bytes per node) if saved
  double seconds = 0;
};

struct prediction_t {
  std::vector<slice_prediction_t> slices;  // top slice first
  // pentago-endgame's own plan for the same run (run_plan.h): memory per rank is only this.
  run_plan_t engine;
  double seconds = 0;
  uint64_t output_bytes = 0, output_xz_bytes = 0;
  bool fits = true;
  std::string reason;  // why not, one line
};

prediction_t predict(const predict_options_t& options);
// The engine's view of the same run (make_run_request with --ranks, --memory, --restart).
run_request_t engine_request(const predict_options_t& options);
// The report printed by pentago-predict (table and summary, several lines).
std::string format_prediction(const predict_options_t& options, const prediction_t& p);

predict_options_t parse_predict_options(int argc, char** argv);  // throws usage_error
std::string predict_usage();

}  // namespace pentago
