// The per-slice communication flow of one rank: a communication thread (the caller) serves
// requests for its input blocks, gathers the inputs of at most --gather-limit lines, hands
// work to the worker pool, sends finished output blocks to their owners, and ends the slice
// with MPI_Ibarrier once every rank has sent and received all its outputs.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "pentago/end/block_store.h"
#include "pentago/end/buffer_pool.h"
#include "pentago/end/engine_options.h"
#include "pentago/end/partition.h"
#include "pentago/mpi/comm.h"
#include "pentago/mpi/node_staging.h"
#include "pentago/mpi/trace.h"
#include "pentago/util/worker_pool.h"

namespace pentago {

struct flow_limits_t {
  int gather_limit = 16;
  int line_limit = 32;
  // Bytes for lines in flight: half for this rank's lines (inputs and outputs), half for
  // other ranks' output blocks waiting to be merged here.
  uint64_t line_memory = 0;
  thread_mode_t mode = thread_mode_t::funneled;
  int test_merge_delay_ms = 0;  // test only: each merge of another rank's output sleeps this long
};

struct flow_stats_t {
  uint64_t input_bytes = 0;   // compressed input block bytes received (the per-slice traffic)
  uint64_t outputs_sent = 0;  // output blocks sent to their owners
  // Input and output blocks to and from other ranks passed through shared memory slots.
  uint64_t shared_memory_blocks = 0;
  // The most line memory held at once: own lines in flight plus other ranks' outputs waiting
  // to be merged (at most flow_limits_t::line_memory).
  uint64_t line_bytes_high_water = 0;
};

// Computes slice n into `store` (the rank's blocks under `partition`) from `prev` (slice
// n+1's frozen store under `prev_partition`; both null for slice 35). Collective. A failure
// (a worker's job or an MPI call) aborts the job with abort_job, without unwinding the flow
// under the worker threads.
flow_stats_t compute_slice_flow(int slice, const partition_t& partition, block_store_t& store,
                                const partition_t* prev_partition, block_store_t* prev,
                                const endgame_comms_t& comms, node_staging_t& staging,
                                worker_pool_t& pool, buffer_pool_t& buffers,
                                const flow_limits_t& limits, trace_recorder_t* trace);

}  // namespace pentago
