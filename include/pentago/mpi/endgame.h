// The pentago-endgame program: MPI set-up, option handling, the slice loop with outputs,
// restart and checkpoints, reports, and job-wide abort on any error.
#pragma once

namespace pentago {

// Runs the whole program (MPI_Init_thread .. MPI_Finalize); returns the exit code:
// 0 success (or checkpoint), 2 usage error. Runtime failures abort the job with exit 1.
int run_endgame(int argc, char** argv);

}  // namespace pentago
