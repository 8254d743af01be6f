// The MPI slice computer: partitions, the flow, collective outputs and reduced reports.
#include "pentago/mpi/mpi_computer.h"

#include <algorithm>

#include "pentago/end/meaningless.h"
#include "pentago/end/rank_overhead.h"
#include "pentago/end/slice_counters.h"
#include "pentago/mpi/slice_io.h"
#include "pentago/util/error.h"

namespace pentago {
namespace {

// The largest line buffer (line_buffer_nodes): a full 8^4 block behind its message header.
constexpr size_t max_line_buffer_nodes = 1 + buffer_pool_t::block_nodes;

std::vector<block_key_t> keys_of(const partition_t& p, int rank) {
  std::vector<block_key_t> keys;
  for (const auto& b : p.rank_blocks(rank))
    keys.push_back({p.lines().section_index(b.section), b.block});
  return keys;
}

// The ranks' counters combined on rank 0 as the table says (one MPI_SUM, one MPI_MAX).
void reduce_to_root(slice_counters_t& counters) {
  for (const auto combine : {counter_combine_t::sum, counter_combine_t::max}) {
    const std::vector<uint64_t> local = counter_values(counters, combine);
    std::vector<uint64_t> combined(local.size());
    PENTAGO_MPI(MPI_Reduce(local.data(), combined.data(), int(local.size()), MPI_UINT64_T,
                           combine == counter_combine_t::sum ? MPI_SUM : MPI_MAX, 0,
                           MPI_COMM_WORLD));
    if (mpi_rank() == 0) set_counter_values(counters, combine, combined);
  }
}

}  // namespace

mpi_computer_t::mpi_computer_t(const engine_options_t& o,
                               const std::vector<std::vector<section_t>>& slices,
                               const run_plan_t& plan, trace_recorder_t* trace)
    : o_(o),
      slices_(slices),
      rank_(mpi_rank()),
      ranks_(mpi_size()),
      // The plan's line memory, and one more buffer: the flow always keeps one output
      // receive posted (flow.cpp, incoming_budget).
      line_buffers_(plan.line_bytes + sizeof(superinfo_t) * max_line_buffer_nodes,
                    max_line_buffer_nodes, page_size_t::huge),
      pool_(o.threads - 1),
      staging_(node_staging_plan_bytes(ranks_, o.shared_memory), rank_ != o.test_unshared_rank),
      limits_{o.gather_limit, o.line_limit, plan.line_bytes, o.mode},
      trace_(trace) {
  if (rank_ == o.test_slow_merge_rank) limits_.test_merge_delay_ms = o.test_slow_merge_ms;
}

std::unique_ptr<block_store_t> mpi_computer_t::new_store(int n,
                                                         const block_store_options_t& options,
                                                         compacting_store_t& heap,
                                                         buffer_pool_t* partials,
                                                         slice_report_t& report) {
  above_ = std::move(part_);
  part_ = std::make_unique<partition_t>(slices_[n], ranks_, o_.randomize);
  // Load balance: min and max over ranks, one MPI_MAX of the negated mins and the maxes.
  const auto values = rank_load(*part_, rank_).values();
  std::array<int64_t, 2 * load_t::fields> local, global{};
  for (int i = 0; i < load_t::fields; i++)
    local[i] = -values[i], local[load_t::fields + i] = values[i];
  PENTAGO_MPI(MPI_Reduce(local.data(), global.data(), int(local.size()), MPI_INT64_T, MPI_MAX, 0,
                         MPI_COMM_WORLD));
  slice_report_t::load_balance_t balance;
  for (int i = 0; i < 5; i++) balance.ranges[i] = {-global[i], global[load_t::fields + i]};
  report.load_balance = balance;
  return std::make_unique<block_store_t>(slices_[n], keys_of(*part_, rank_), options, heap,
                                         partials);
}

void mpi_computer_t::compute(int n, block_store_t& store, block_store_t* above, slice_report_t&) {
  if (n == o_.test_fail_slice && rank_ == o_.test_fail_rank)
    pool_.push_back([] { throw pentago_error_t("injected failure (--test-fail)"); });
  stats_ = compute_slice_flow(n, *part_, store, above ? above_.get() : nullptr, above, comms_,
                              staging_, pool_, line_buffers_, limits_, trace_);
}

void mpi_computer_t::fill_meaningless(block_store_t& store) {
  for (int f = 0; f < store.blocks(); f++)
    pool_.push_back([&store, f] {
      auto values = meaningless_block(store.section(f), store.key(f).block);
      store.set(f, values);
    });
  pool_.wait_idle();
  if (pool_.failed()) throw pentago_error_t(pool_.failure());
}

void mpi_computer_t::read_restart(const std::string& path, block_store_t& store) {
  read_restart_blocks(path, store, pool_);
}

void mpi_computer_t::write_counts_and_samples(const std::string& dir, int n,
                                              const block_store_t& store) {
  pentago::write_counts_and_samples(dir, n, store, MPI_COMM_WORLD);
}

uint64_t mpi_computer_t::write_slice(const std::string& path, int n, const block_store_t& store) {
  return write_slice_parallel(path, n, *part_, store, pool_, MPI_COMM_WORLD, o_.level);
}

bool mpi_computer_t::any(bool mine) {
  int flag = mine;
  PENTAGO_MPI(MPI_Allreduce(MPI_IN_PLACE, &flag, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  return flag != 0;
}

void mpi_computer_t::measure(const block_store_t& store, const compacting_store_t& heap,
                             const buffer_pool_t& partials, slice_report_t& r) {
  const auto times = pool_.take_times();
  activity_times_t sum{};
  PENTAGO_MPI(MPI_Reduce(times.data(), sum.data(), int(times.size()), MPI_DOUBLE, MPI_SUM, 0,
                         MPI_COMM_WORLD));
  std::vector<double> per_rank(o_.per_rank_times && rank_ == 0 ? times.size() * ranks_ : 0);
  if (o_.per_rank_times)
    PENTAGO_MPI(MPI_Gather(times.data(), int(times.size()), MPI_DOUBLE, per_rank.data(),
                           int(times.size()), MPI_DOUBLE, 0, MPI_COMM_WORLD));
  slice_counters_t counters = measure_slice_counters(store, heap, partials);
  counters.traffic_bytes_in = stats_.input_bytes;
  counters.output_blocks_sent = stats_.outputs_sent;
  counters.shared_memory_blocks = stats_.shared_memory_blocks;
  counters.line_bytes = stats_.line_bytes_high_water;
  reduce_to_root(counters);
  stats_ = {};
  if (rank_ != 0) return;
  r.worker_seconds = sum;
  double all = 0;
  for (const double t : sum) all += t;
  r.idle_fraction = sum[size_t(activity_t::idle)] / std::max(all, 1e-9);
  r.counters = counters;
  r.mpi = true;
  if (!store.drops_complete_blocks()) r.compression = compression_ratio(counters);
  for (size_t k = 0; k < per_rank.size() / times.size(); k++) {
    activity_times_t t{};
    std::copy_n(per_rank.begin() + long(k * times.size()), times.size(), t.begin());
    r.per_rank_worker_seconds.push_back(t);
  }
}

uint64_t mpi_computer_t::resident_high_water() {
  uint64_t high = pentago::resident_high_water(), max_high = 0;
  PENTAGO_MPI(MPI_Reduce(&high, &max_high, 1, MPI_UINT64_T, MPI_MAX, 0, MPI_COMM_WORLD));
  return max_high;
}

}  // namespace pentago
