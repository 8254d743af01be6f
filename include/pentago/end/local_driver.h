// The in-process backward solver (no MPI): the shared slice loop (slice_loop.h) with each
// slice's block lines computed on a thread pool, writing counts, samples, slice files with
// their sidecars, the log and the run record.
#pragma once
#include "pentago/end/engine_options.h"

namespace pentago {

// The options of pentago-endgame-local (engine_options with the local program's defaults).
using local_options_t = engine_options_t;

// Parses the command line of pentago-endgame-local; throws usage_error.
local_options_t parse_local_options(int argc, char** argv);
std::string local_usage();

// Runs the solver; throws usage_error (nothing created) if the memory plan refuses the run.
void run_local(const local_options_t& options);

}  // namespace pentago
