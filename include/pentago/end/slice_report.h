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

#include "pentago/end/slice_counters.h"
#include "pentago/util/worker_pool.h"

namespace pentago {

// A file the slice wrote: counts-N.npy, sparse-N.npy (with samples), slice-N.pentago and its
// .index sidecar (with bytes; the slice file also with seconds).
struct written_file_t {
  std::string name;
  std::optional<uint64_t> samples, bytes;
  std::optional<double> seconds;
};

struct slice_report_t {
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
  activity_times_t worker_seconds{};
  double idle_fraction = 0;
  // The counters the ranks measured, combined (slice_counters.h); `mpi` when pentago-endgame's
  // ranks measured them (the counters of MPI scope are given).
  slice_counters_t counters;
  bool mpi = false;
  // The plan's figures the log and the record set beside the counters.
  struct memory_t {
    uint64_t limit = 0;             // --memory per rank
    uint64_t plan_store_bytes = 0;  // the plan's store of this slice per rank
    double plan_ratio = 0;
    uint64_t line_plan_bytes = 0;  // MPI: the plan's line memory
  } memory;
  // MPI only: min and max over ranks of lines, line blocks, line nodes, blocks, block nodes.
  struct load_balance_t {
    std::array<std::pair<int64_t, int64_t>, 5> ranges;  // in the order of load_names
  };
  static constexpr std::array<const char*, 5> load_names = {"lines", "line_blocks", "line_nodes",
                                                            "blocks", "nodes"};
  std::optional<load_balance_t> load_balance;
  std::vector<written_file_t> files;
  std::vector<activity_times_t> per_rank_worker_seconds;  // --per-rank-times; empty otherwise

  bool over_memory() const { return counters.resident_high_water > memory.limit; }
  bool given(const counter_field_t& field) const { return counter_given(field, mpi, synthesized); }
};

// The log lines of a report: "slice N: ... nodes in ...", worker time, plan vs measured (with
// a warning line when the resident set exceeded --memory), files written, per-rank times.
std::vector<std::string> format_slice_report(const slice_report_t& report);

}  // namespace pentago
