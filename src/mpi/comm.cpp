// Checked MPI calls, job abort and communicators.
#include "pentago/mpi/comm.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "pentago/util/error.h"

namespace pentago {

void abort_job(const std::string& message) {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  const int rank = initialized && !finalized ? mpi_rank() : 0;
  std::fprintf(stderr, "pentago-endgame: rank %d: %s\n", rank, message.c_str());
  std::fflush(stderr);
  // Give the process manager a moment to forward the line: MPI_Abort kills every rank, and a
  // loaded node can lose output still in flight through the launcher's pipes.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  if (initialized && !finalized) MPI_Abort(MPI_COMM_WORLD, 1);
  std::_Exit(1);
}

void mpi_check(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(rc, text, &length);
  std::string message(text, size_t(length));
  message.resize(std::min(message.size(), message.find('\n')));  // MPICH's stack: first line
  throw pentago_error_t(std::string("MPI call failed: ") + call + ": " + message);
}

int mpi_rank(MPI_Comm comm) {
  int r = 0;
  MPI_Comm_rank(comm, &r);
  return r;
}

int mpi_size(MPI_Comm comm) {
  int s = 1;
  MPI_Comm_size(comm, &s);
  return s;
}

endgame_comms_t::endgame_comms_t() {
  PENTAGO_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &request));
  PENTAGO_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &response));
  PENTAGO_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &output));
  PENTAGO_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &barrier));
  for (MPI_Comm c : {request, response, output, barrier})
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
}

endgame_comms_t::~endgame_comms_t() {
  for (MPI_Comm* c : {&request, &response, &output, &barrier})
    if (*c != MPI_COMM_NULL) MPI_Comm_free(c);
}

}  // namespace pentago
