// How pentago-endgame computes a slice for the shared slice loop (slice_loop.h): each rank
// holds its partition's blocks, the communication flow (flow.h) computes them across ranks,
// counts, samples and slice files are written collectively (slice_io.h), and the slice
// report's sums and maxima are reduced to rank 0.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "pentago/end/engine_options.h"
#include "pentago/end/partition.h"
#include "pentago/end/slice_loop.h"
#include "pentago/mpi/comm.h"
#include "pentago/mpi/flow.h"
#include "pentago/mpi/node_staging.h"
#include "pentago/mpi/trace.h"
#include "pentago/util/worker_pool.h"

namespace pentago {

class mpi_computer_t : public slice_computer_t {
 public:
  mpi_computer_t(const engine_options_t& o, const std::vector<std::vector<section_t>>& slices,
                 const run_plan_t& plan, trace_recorder_t* trace);

  bool leader() const override { return rank_ == 0; }
  int ranks() const override { return ranks_; }
  int threads_per_rank() const override { return o_.threads; }
  std::unique_ptr<block_store_t> new_store(int n, const block_store_options_t& options,
                                           compacting_store_t& heap, buffer_pool_t* partials,
                                           slice_report_t& report) override;
  const slice_lines_t& current_lines() const override { return part_->lines(); }
  const slice_lines_t& lines_above() const override { return above_->lines(); }
  void compute(int n, block_store_t& store, block_store_t* above, slice_report_t& report) override;
  void release_above() override { above_.reset(); }
  void fill_meaningless(block_store_t& store) override;
  void read_restart(const std::string& path, block_store_t& store) override;
  void write_counts_and_samples(const std::string& dir, int n, const block_store_t& store) override;
  uint64_t write_slice(const std::string& path, int n, const block_store_t& store) override;
  bool any(bool mine) override;
  void measure(const block_store_t& store, const compacting_store_t& heap,
               const buffer_pool_t& partials, slice_report_t& report) override;
  uint64_t resident_high_water() override;
  const node_staging_t& staging() const { return staging_; }

 private:
  const engine_options_t& o_;
  const std::vector<std::vector<section_t>>& slices_;
  const int rank_, ranks_;
  buffer_pool_t line_buffers_;  // the flow's line buffers, within the plan's line memory
  worker_pool_t pool_;
  endgame_comms_t comms_;
  node_staging_t staging_;  // shared memory slots with the ranks of this node
  flow_limits_t limits_;
  trace_recorder_t* trace_;
  std::unique_ptr<partition_t> part_, above_;
  flow_stats_t stats_;
};

}  // namespace pentago
