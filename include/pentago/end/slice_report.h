// The report of one computed (or synthesized) slice: every number the solver measures about
// it, gathered by the slice loop from either driver, printed to the log in one format by both
// and written, unchanged, as the slice's object of the run record (run_record.h).
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pentago/util/worker_pool.h"

namespace pentago {

// A file the slice wrote: counts-N.npy, sparse-N.npy (with samples), slice-N.pentago and its
// .index sidecar (with bytes; the slice file also with seconds).
struct written_file {
  std::string name;
  std::optional<uint64_t> samples, bytes;
  std::optional<double> seconds;
};

struct slice_report {
  int slice = 0;
  uint64_t sections = 0, blocks = 0, nodes = 0;
  bool synthesized = false;    // the meaningless slice: values made up, nothing computed
  double seconds = 0;          // compute + io
  double compute_seconds = 0;  // the slice's blocks computed (or synthesized) and frozen
  double io_seconds = 0;       // counts, samples and slice files written
  double elapsed = 0;          // since the run started
  double eta = 0;              // for the slices left, at the run's rate so far
  double nodes_per_second_per_core = 0;
  std::optional<double> compression;  // compressed / uncompressed store bytes; none if not stored
  bool dropped = false;               // complete blocks counted, then freed
  bool recomputed = false;  // slice 35 not stored: counted, then computed again by slice 34
  // Worker thread seconds by activity, summed over ranks; idle share of all of them.
  activity_times worker_seconds{};
  double idle_fraction = 0;
  // MPI only: compressed input bytes received, output blocks sent to other ranks.
  std::optional<uint64_t> traffic_bytes_in, output_blocks_sent;
  // Summed over ranks: input blocks of the slice above read on their own rank, and those read
  // from the input cache instead of decoded (block_store::read_input).
  uint64_t input_reads = 0, input_cache_hits = 0;
  struct memory_t {
    uint64_t resident_high_water = 0;  // max over ranks (VmHWM)
    uint64_t limit = 0;                // --memory per rank
    uint64_t plan_store_bytes = 0;     // the plan's store of this slice per rank
    uint64_t store_bytes = 0;          // measured high water of the store, max over ranks
    double plan_ratio = 0;
    // The arena's limit and the pool's budget at the slice's end (with a lent arena, less and
    // more than the plan's), and writes that raised a lent arena's limit back, summed.
    uint64_t arena_live = 0, arena_touched = 0, arena_bytes = 0, arena_limit_raises = 0;
    uint64_t partial_bytes = 0, partial_plan_bytes = 0;
    // Of the budget, what the arena lent during the slice (block_store::lend_freed_arena).
    uint64_t arena_lent_in_slice = 0;
    // Summed over ranks: contributions compressed into incomplete blocks, and partial blocks
    // compressed to free their buffer (block_store::partial_recompressions, _evictions).
    uint64_t partial_recompressions = 0, partial_evictions = 0;
    // MPI only: lines in flight and other ranks' outputs waiting, at most, and the plan's.
    std::optional<uint64_t> line_bytes;
    uint64_t line_plan_bytes = 0;
  } memory;
  // MPI only: min and max over ranks of lines, line blocks, line nodes, blocks, block nodes.
  struct load_balance_t {
    std::array<std::pair<int64_t, int64_t>, 5> ranges;  // in the order of load_names
  };
  static constexpr std::array<const char*, 5> load_names = {"lines", "line_blocks", "line_nodes",
                                                            "blocks", "nodes"};
  std::optional<load_balance_t> load_balance;
  std::vector<written_file> files;
  std::vector<activity_times> per_rank_worker_seconds;  // --per-rank-times; empty otherwise

  bool over_memory() const { return memory.resident_high_water > memory.limit; }
};

// The log lines of a report: "slice N: ... nodes in ...", worker time, plan vs measured (with
// a warning line when the resident set exceeded --memory), files written, per-rank times.
std::vector<std::string> format_slice_report(const slice_report& report);

}  // namespace pentago
