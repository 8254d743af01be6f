// The midgame row kernels compiled for SSE2 only (the x86-64 baseline; no pshufb).
#include "midgame_rows.h"

namespace pentago::detail {

extern const midgame_row_kernels_t midgame_rows_portable = {simd::portable::midgame_solve_rows,
                                                            simd::portable::midgame_rmax};

}  // namespace pentago::detail
