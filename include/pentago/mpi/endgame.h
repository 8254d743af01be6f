// The pentago-endgame program: MPI set-up, option handling, the run's plan, the shared slice
// loop with the MPI slice computer, and job-wide abort on any error.
#pragma once
#include <string>

namespace pentago {

// Runs the whole program (MPI_Init_thread .. MPI_Finalize); returns the exit code:
// 0 success (or checkpoint), 2 usage error (bad options, restart file, memory plan refusal).
// Runtime failures abort the job with exit 1.
int run_endgame(int argc, char** argv);
std::string endgame_usage();

}  // namespace pentago
