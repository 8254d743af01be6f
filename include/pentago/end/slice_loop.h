// The one slice loop of the backward solver, run by both drivers: from the top slice (35, a
// synthesized meaningless slice or a restart file) down to the bottom, each slice gets a new
// store, the plan's drop decision, its input reads announced, its blocks computed, the reads
// checked, the slice above released and the store frozen; then counts, samples and (for
// slices <= --save) the slice file with its .index sidecar are written, a slice report is
// printed to the log and added to the run record, and a checkpoint is taken if asked for.
// How a slice is computed is the driver's part (slice_computer): threads in one process, or
// the MPI flow across ranks.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pentago/end/block_store.h"
#include "pentago/end/compacting_store.h"
#include "pentago/end/engine_options.h"
#include "pentago/end/line_order.h"
#include "pentago/end/run_log.h"
#include "pentago/end/run_plan.h"
#include "pentago/end/run_record.h"
#include "pentago/end/slice_report.h"

namespace pentago {

// A driver's way of computing slices. Calls marked collective are made by every process of
// the run in the same order; the others are local. Only the leader writes the log and record.
class slice_computer_t {
 public:
  virtual ~slice_computer_t() = default;
  virtual bool leader() const = 0;
  virtual int ranks() const = 0;
  virtual int threads_per_rank() const = 0;  // cores a rank uses, for nodes/s/core
  // This process's blocks of slice n in a new store with `options` (samples, codecs); slice n
  // becomes the current layout and the previous current one the layout above. Collective
  // (MPI: the partition, load balance into `report`).
  virtual std::unique_ptr<block_store_t> new_store(int n, const block_store_options_t& options,
                                                   compacting_store_t& heap,
                                                   buffer_pool_t* partials,
                                                   slice_report_t& report) = 0;
  // The block lines of the current slice and of the slice above.
  virtual const slice_lines_t& current_lines() const = 0;
  virtual const slice_lines_t& lines_above() const = 0;
  // Computes every block of `store` (slice n) from `above` (slice n+1, null at 35). Collective.
  virtual void compute(int n, block_store_t& store, block_store_t* above,
                       slice_report_t& report) = 0;
  // The layout above is no longer needed.
  virtual void release_above() = 0;
  virtual void fill_meaningless(block_store_t& store) = 0;
  virtual void read_restart(const std::string& path, block_store_t& store) = 0;
  // counts-N.npy and sparse-N.npy of the frozen store. Collective.
  virtual void write_counts_and_samples(const std::string& dir, int n,
                                        const block_store_t& store) = 0;
  // slice-N.pentago of the frozen store; returns its size in bytes. Collective.
  virtual uint64_t write_slice(const std::string& path, int n, const block_store_t& store) = 0;
  // True on every process if `mine` is true on any. Collective.
  virtual bool any(bool mine) = 0;
  // Worker times, traffic and memory of the slice just finished into `report` (on the leader;
  // sums and maxima over ranks). Collective.
  virtual void measure(const block_store_t& store, const compacting_store_t& heap,
                       const buffer_pool_t& partials, slice_report_t& report) = 0;
  // The largest resident high water over ranks (on the leader). Collective.
  virtual uint64_t resident_high_water() = 0;
};

// Everything the loop needs besides the computer.
struct slice_loop_setup_t {
  const engine_options_t* options = nullptr;
  const run_plan_t* plan = nullptr;
  const std::vector<std::vector<section_t>>* slices = nullptr;
  int restart_slice = -1;                 // the slice of options->restart, or -1
  page_size_t pages = page_size_t::base;  // the arena's and partial pool's (choose_pages)
  // Where --huge-pages is auto, the probe that chose `pages`: the arena's and the partial
  // pool's chunks then take the size a first_touch_chooser_t starting from it chooses.
  std::optional<page_probe_t> page_probe;
  run_log_t* log = nullptr;
  run_record_t* record = nullptr;  // the leader's; null elsewhere
  // Polled after each slice: true if this process was asked to checkpoint (a signal).
  std::function<bool()> checkpoint_requested;
  // The command that resumes from a saved slice file (logged and recorded at a checkpoint).
  std::function<std::string(const std::string& slice_path)> resume_command;
};

struct slice_loop_result_t {
  std::vector<int> slices;                         // computed (or synthesized), top first
  bool checkpoint = false;                         // stopped at a checkpoint
  uint64_t heap_high_water = 0;                    // this process's arena: most live bytes at once
  std::optional<first_touch_stats_t> first_touch;  // this process's, where chosen per chunk
};

// Runs the slices of the plan. The caller has written the log header and the record's header
// and writes the "done" line and record.
slice_loop_result_t run_slice_loop(const slice_loop_setup_t& setup, slice_computer_t& computer);

// Peak resident memory of this process (VmHWM), in bytes.
uint64_t resident_high_water();

}  // namespace pentago
