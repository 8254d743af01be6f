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
#include "pentago/mpi/trace.h"
#include "pentago/util/worker_pool.h"

namespace pentago {

class mpi_computer : public slice_computer {
 public:
  mpi_computer(const engine_options& o, const std::vector<std::vector<section_t>>& slices,
               const run_plan& plan, trace_recorder* trace);

  bool leader() const override { return rank_ == 0; }
  int ranks() const override { return ranks_; }
  int threads_per_rank() const override { return o_.threads; }
  std::unique_ptr<block_store> new_store(int n, const block_store_options& options,
                                         compacting_store& heap, buffer_pool* partials,
                                         slice_report& report) override;
  const slice_lines& current_lines() const override { return part_->lines(); }
  const slice_lines& lines_above() const override { return above_->lines(); }
  void compute(int n, block_store& store, block_store* above, slice_report& report) override;
  void release_above() override { above_.reset(); }
  void fill_meaningless(block_store& store) override;
  void read_restart(const std::string& path, block_store& store) override;
  void write_counts_and_samples(const std::string& dir, int n, const block_store& store) override;
  uint64_t write_slice(const std::string& path, int n, const block_store& store) override;
  bool any(bool mine) override;
  void measure(const block_store& store, const compacting_store& heap, const buffer_pool& partials,
               slice_report& report) override;
  uint64_t resident_high_water() override;

 private:
  const engine_options& o_;
  const std::vector<std::vector<section_t>>& slices_;
  const int rank_, ranks_;
  buffer_pool line_buffers_;  // the flow's line buffers, within the plan's line memory
  worker_pool pool_;
  endgame_comms comms_;
  flow_limits limits_;
  trace_recorder* trace_;
  std::unique_ptr<partition_t> part_, above_;
  flow_stats stats_;
};

}  // namespace pentago
