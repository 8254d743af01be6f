// The checks pentago-endgame makes on a restart file before anything is planned or created,
// identically on every rank: the file holds a slice this run can resume from, with the root's
// descendants, and its meaningless-N marker (or its absence) agrees with --meaningless.
#pragma once
#include <string>
#include <vector>

#include "pentago/end/engine_options.h"
#include "pentago/layout/section.h"

namespace pentago {

// The slice of o.restart (-1 without --restart). `slices[n]` are the root's descendants. Throws
// usage_error with one line. Collective (rank 0 reads the file's sections).
int check_restart(const engine_options_t& o, const std::vector<std::vector<section_t>>& slices,
                  int top, int bottom);

// K of the meaningless-K marker in the folder of a restart file (the run that wrote it), or 0.
int meaningless_marker_of(const std::string& restart);

}  // namespace pentago
