// Memory per rank that grows with the rank count (see rank_overhead.h).
#include "pentago/end/rank_overhead.h"

namespace pentago {

uint64_t rank_count_bytes(int ranks) {
  return ranks > 1 ? mpi_peer_bytes * uint64_t(ranks - 1) : 0;
}

}  // namespace pentago
