// The midgame row kernels compiled for AVX2 (the SSSE3 code with VEX encodings).
#include "midgame_rows.h"

namespace pentago::detail {

extern const midgame_row_kernels_t midgame_rows_avx2 = {simd::avx2::midgame_solve_rows,
                                                        simd::avx2::midgame_rmax};

}  // namespace pentago::detail
