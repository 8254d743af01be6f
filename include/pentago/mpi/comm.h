// MPI plumbing for the endgame solver: checked calls, the job-wide abort that names the rank
// and the cause, and the communicators the flow uses.
#pragma once
#include <mpi.h>

#include <string>

namespace pentago {

// Aborts every rank of the job after printing "pentago-endgame: rank R: message" (one line).
[[noreturn]] void abort_job(const std::string& message);
// Throws pentago::error naming the MPI call if rc is not MPI_SUCCESS.
void mpi_check(int rc, const char* call);
#define PENTAGO_MPI(call) ::pentago::mpi_check((call), #call)

int mpi_rank(MPI_Comm comm = MPI_COMM_WORLD);
int mpi_size(MPI_Comm comm = MPI_COMM_WORLD);

// One duplicate of MPI_COMM_WORLD per message kind, so tags never collide across kinds.
struct endgame_comms_t {
  MPI_Comm request = MPI_COMM_NULL;   // line owner -> input block owner: (section, block, tag)
  MPI_Comm response = MPI_COMM_NULL;  // input block owner -> requester: compressed block
  MPI_Comm output = MPI_COMM_NULL;    // line owner -> output block owner: uncompressed block
  MPI_Comm barrier = MPI_COMM_NULL;   // MPI_Ibarrier at the end of each slice
  endgame_comms_t();
  ~endgame_comms_t();
  endgame_comms_t(const endgame_comms_t&) = delete;
  endgame_comms_t& operator=(const endgame_comms_t&) = delete;
};

}  // namespace pentago
