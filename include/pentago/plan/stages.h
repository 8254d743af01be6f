// The staged plan of a big run (`pentago-predict --stages`): split the slices of a
// root into consecutive ranges, each a job of its own node count that restarts from the
// previous job's last slice file, so that no job holds more nodes than its own slices need.
//
// Memory: each candidate stage's per-rank need is the engine's own admission figure
// (make_run_plan, run_plan.h), taken per slice from single-slice plans at two rank counts and
// written as C + S / ranks, plus the per-peer term of rank_overhead.h. The chosen stages are
// then checked with make_run_plan on their exact request; a stage that would be refused gets
// more nodes.
//
// Time at the plan's speed (output nodes per CPU-second per thread, as pentago-predict): per
// slice, nodes * imbalance / (speed * ranks * threads), where the imbalance is the expected
// largest rank's share of the line nodes of a random partition (a sum of lines/ranks line
// sizes: 1 + cv * sqrt(R / lines) * z(R), z the expected largest of R normal draws, between
// one largest line and ceil(lines / R) of them; checked against the partition in
// tests/plan/stages_test.cpp), plus a fixed cost per slice and per job, and the slice files:
// xz of the saved and the checkpoint slices on every core, then the file system.
// Node-hours count whole nodes for the whole job; the plan minimises their sum over stages.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "pentago/plan/predict.h"

namespace pentago {

struct stage_options_t {
  predict_options_t run;           // root, --threads, --save, --samples, --speed, ... (no ranks)
  uint64_t node_memory = 0;        // bytes per node, required
  int cores_per_node = 0;          // required
  uint64_t node_reserve = 0;       // kept for the system per node (0: max(4 GiB, 5%))
  double max_job_hours = 24;       // a stage longer than this gets more nodes
  int max_stages = 4;              // stages considered (the plan is the best of 1..max)
  double job_seconds = 300;        // per job: launch, MPI start, plan, restart open
  double slice_seconds = 5;        // per slice: reductions, counts and samples, the barrier
  double fs_bandwidth = 50e9;      // bytes per second the file system writes and reads
  double xz_speed = 1.3e6;         // bytes (64 per node) per core-second at the saved --level
  double checkpoint_speed = 12e6;  // the same at --level 0, used for checkpoint-only slices
  bool verbose = false;            // also print every slice's figures
};

struct stage_slice_t {
  int slice = 0;
  uint64_t nodes = 0, lines = 0, sections = 0;
  double line_cv = 0;           // coefficient of variation of line sizes (nodes per line)
  uint64_t max_line_nodes = 0;  // the largest line's output nodes
  uint64_t line_nodes = 0;      // output nodes of all lines (nodes times non-full quadrants)
  double need_fixed = 0;        // engine plan per rank as a stage of this slice alone ...
  double need_per_rank = 0;     // ... = need_fixed + need_per_rank / ranks (ranks >= 2)
  double dropped_fixed = 0, dropped_per_rank = 0;  // the same as the run's dropped bottom
};

struct stage_t {
  int top = 35, bottom = 0;  // slices computed
  int nodes = 0, ranks = 0;
  uint64_t memory = 0;       // --memory per rank
  uint64_t plan_needed = 0;  // the engine's admission figure for this stage (make_run_plan)
  int restart_slice = -1;    // read from the previous stage's file (-1: the first stage)
  int save = -1;             // --save of the stage's job (covers its checkpoint slice)
  bool checkpoint = false;   // the bottom slice is written only for the next stage
  double compute_seconds = 0, io_seconds = 0, seconds = 0, node_hours = 0;
  uint64_t peak_bytes = 0;  // the largest per-slice need of the stage (its admission figure)
  int peak_slice = -1;
};

struct stage_plan_t {
  int ranks_per_node = 0, threads = 0;
  uint64_t rank_memory = 0;           // --memory per rank on a node
  std::vector<stage_slice_t> slices;  // top first
  std::vector<stage_t> stages;        // the best plan, top first
  std::vector<stage_t> single;        // the best single-stage job
  // The best plan with exactly k stages, k = 1..max_stages (empty when none fits).
  std::vector<std::vector<stage_t>> best_by_count;
  double node_hours = 0, single_node_hours = 0, seconds = 0, single_seconds = 0;
  bool fits = true;
  std::string reason;  // why not, one line
};

// The per-rank need of a stage [top..bottom] at `ranks`, from the per-slice figures (bottom
// dropped when `dropped`), with the per-peer term: what the plan search minimises against.
double stage_need(const std::vector<stage_slice_t>& slices, int top, int bottom, bool dropped,
                  int ranks);
// Expected largest rank's share of a slice's line nodes over the mean (>= 1).
double line_imbalance(const stage_slice_t& slice, int ranks);

stage_plan_t plan_stages(const stage_options_t& options);
std::string format_stage_plan(const stage_options_t& options, const stage_plan_t& plan);

// True if the command line asks for the staged plan (--stages anywhere).
bool stages_requested(int argc, char** argv);
// Parses the --stages command line of pentago-predict; throws usage_error (one line).
stage_options_t parse_stage_options(int argc, char** argv);
std::string stages_usage();

}  // namespace pentago
