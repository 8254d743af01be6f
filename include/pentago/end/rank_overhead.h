// Memory per rank that grows with the number of ranks in the job: MPI's per-peer
// state, measured on this machine with MPICH 4.0.2 (ch4, shared memory) as the resident set
// of a rank that only initializes MPI, at 16, 64 and 128 ranks. The run plan's fixed 32 MiB
// holds it up to a few hundred ranks; at thousands of ranks it is a term of its own.
#pragma once
#include <cstdint>

namespace pentago {

// Resident bytes per rank per other rank of the job (MPI_Init alone: 15.6 MiB at 16 ranks,
// 16.4 MiB at 64, 17.5 MiB at 128, i.e. 17.3 KiB per added rank), rounded up.
constexpr uint64_t mpi_peer_bytes = 18 << 10;

// The rank-count term of a rank's memory: mpi_peer_bytes for every other rank. Treating every
// peer like a same-node peer is an upper bound for transports that keep less state per
// remote peer, and about right for connection-oriented ones (one endpoint per peer).
uint64_t rank_count_bytes(int ranks);

// Shared memory that each rank of a job of several ranks maps for blocks passed between the
// ranks of its node (mpi/node_staging.h): its own slots and those of its node's other ranks,
// in equal shares, all resident once used. Nothing with --shared-memory off or one rank.
constexpr uint64_t node_staging_bytes = 16 << 20;
uint64_t node_staging_plan_bytes(int ranks, bool shared_memory);

}  // namespace pentago
