// Uniformly random unfinished positions with a given number of stones, reproducible from a seed.
//
// The distribution: uniform over the set of boards with ceil(n/2) black and floor(n/2) white
// stones (the counts of every position to place with n stones; black moves first) on which
// neither colour has five in a row. Each draw picks n distinct cells as a uniformly random
// ordered sequence (a partial Fisher-Yates shuffle with unbiased draws), gives the first
// ceil(n/2) to black and the rest to white, and is rejected and redrawn if either colour has
// five in a row. Draws are independent (with replacement), so a sample of a small set repeats
// boards. The random stream is Threefry keyed by (seed, n): the first k positions of a sample
// do not depend on its size.
#pragma once
#include <cstdint>
#include <vector>

#include "pentago/base/board.h"

namespace pentago::python {

// `count` positions to place with `stones` stones (0..35); throws usage_error otherwise, and
// pentago::error if too many draws are rejected.
std::vector<board_t> random_positions(int stones, uint64_t count, uint64_t seed);

}  // namespace pentago::python
