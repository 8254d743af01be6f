// Memory per rank that grows with the rank count (see rank_overhead.h).
#include "pentago/end/rank_overhead.h"

namespace pentago {

uint64_t rank_count_bytes(int ranks) {
  return ranks > 1 ? mpi_peer_bytes * uint64_t(ranks - 1) : 0;
}

uint64_t node_staging_plan_bytes(int ranks, bool shared_memory) {
  return ranks > 1 && shared_memory ? node_staging_bytes : 0;
}

}  // namespace pentago
