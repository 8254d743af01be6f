// count_block's sums at the avx512vbmi level (count_block_avx512_loop.h: one VPOPCNTDQ
// instruction per node for its eight words' popcounts).
#include "count_block_avx512_loop.h"

namespace pentago::detail {

extern const shifted_counts_fn_t shifted_counts_avx512vbmi = simd::PENTAGO_ISA::shifted_counts;

}  // namespace pentago::detail
