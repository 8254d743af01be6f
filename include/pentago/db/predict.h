// Resource prediction for an MPI run of pentago-endgame (parallel reference §2.5, §6.4): per
// slice, the per-rank load from the partition (all ranks, or a sample of them for big runs),
// the per-rank memory (compressed block stores of two slices, block tables, line buffers,
// samples, slice-file output), output bytes and a time estimate, and whether the engine's
// plan (run_plan.h, the same code pentago-endgame runs) fits in the memory given.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "pentago/end/run_plan.h"
#include "pentago/layout/section.h"
#include "pentago/util/random.h"

namespace pentago {

// Output nodes per CPU-second per core of pentago-endgame, measured with scripts/bench-scale on
// roots 44444554, 25263480 and 44444454 (2 ranks x 3 threads on 2 cores; docs/tools.md).
constexpr double calibrated_speed = 1.0e6;

struct predict_options {
  section_t root;
  int ranks = 0;                      // required
  int threads = 6;                    // per rank: 1 communication thread + threads - 1 workers
  uint64_t memory = 0;                // bytes per rank, required
  int save = -1;                      // slices <= save are written (-1: none)
  uint128 key = 17;                   // --randomize (0: the simple partition)
  int samples = 256;                  // sparse samples per section
  int meaningless = 0;                // slice K synthesized (not computed)
  int restart = -1;                   // slice read from a restart file; computing starts below it
  int stop_after = -1;                // lowest slice computed; -1: the root's slice
  int slices_lo = 0, slices_hi = 35;  // --slices: evaluate only these computed slices
  int line_limit = 8;                 // lines allocated at once (pentago-endgame --line-limit)
  // Output nodes per CPU second of one core, measured on whole runs (docs/tools.md).
  double speed = calibrated_speed;
  double snappy_ratio = 0;  // in-memory compression of store blocks; 0: the measured per-slice
                            // ratios of the engine's plan (store_ratio)
  double xz_ratio = 0.15;   // slice-file compression (2013 run: 0.12 at slice 18, 0.19 at 17)
  int rank_samples = 64;    // ranks whose load is computed when there are more (0: all)
  uint64_t rank_lines = uint64_t(1) << 18;  // lines per rank examined before sampling lines
  int jobs = 0;                             // threads computing loads (0: all hardware threads)
};

// Memory constants of the estimate (parallel §2.5, this engine's block store and writer).
constexpr double heap_slack = 1.1;                      // compacting store heap ratio
constexpr uint64_t block_slack_bytes = 1024;            // per block in the heap estimate
constexpr uint64_t block_table_bytes = 128;             // per block per store: tables, maps, locks
constexpr uint64_t sample_bytes = 160;                  // a recorded sample on its owner
constexpr uint64_t gathered_sample_bytes = 300;         // rank 0 while writing sparse-N.npy
constexpr uint64_t fixed_rank_bytes = 64 << 20;         // MPI buffers, stacks, code, partitions
constexpr uint64_t max_rank_chunk = uint64_t(1) << 31;  // a rank's slice-file data (MPI int)

// Statistic over the ranks examined: min, max and (when sampled) an extrapolated max.
struct rank_range {
  double min = 0, max = 0, mean = 0, projected_max = 0;
};

struct slice_prediction {
  int slice = 0;
  bool saved = false;
  uint64_t sections = 0, blocks = 0, nodes = 0, lines = 0;
  int ranks_examined = 0;      // ranks whose load was computed
  bool lines_sampled = false;  // per-rank loads estimated from a sample of their lines
  rank_range rank_lines, rank_blocks, rank_block_nodes, rank_line_nodes;
  uint64_t max_line_bytes = 0;  // largest line in flight: inputs, outputs, receive slack
  // Per rank (projected max over ranks): the stores of this and the previous slice, block
  // tables, the line buffers that fit, and the total while computing and while saving.
  uint64_t store = 0, tables = 0, line_memory = 0, compute_peak = 0, save_peak = 0;
  int line_parallelism = 0;
  uint64_t save_chunk = 0;    // a rank's compressed share of the slice file (projected max)
  uint64_t output_bytes = 0;  // uncompressed slice file data (64 bytes per node) if saved
  double seconds = 0;
};

struct prediction {
  std::vector<slice_prediction> slices;  // top slice first
  uint64_t peak = 0;                     // per rank, over slices
  int peak_slice = -1;
  // pentago-endgame's own plan for the same run (run_plan.h): its admission figure per rank,
  // compared with --memory before it starts, and the arena it maps per rank.
  uint64_t engine_plan = 0;
  uint64_t engine_arena = 0;
  double seconds = 0;
  uint64_t output_bytes = 0, output_xz_bytes = 0;
  bool fits = true;
  std::string reason;   // why not, one line
  std::string warning;  // the per-rank projection exceeds --memory at some slice, one line
};

prediction predict(const predict_options& options);
// The engine's view of the same run (for make_run_plan).
run_request engine_request(const predict_options& options);
// The report printed by pentago-predict (table and summary, several lines).
std::string format_prediction(const predict_options& options, const prediction& p);

predict_options parse_predict_options(int argc, char** argv);  // throws usage_error
std::string predict_usage();

}  // namespace pentago
