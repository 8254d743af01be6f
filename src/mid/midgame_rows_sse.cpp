// The midgame row kernels compiled for SSSE3.
#include "midgame_rows.h"

namespace pentago::detail {

extern const midgame_row_kernels_t midgame_rows_sse = {simd::sse::midgame_solve_rows,
                                                       simd::sse::midgame_rmax};

}  // namespace pentago::detail
