// count_block's sums at the AVX-512 level (count_block_avx512_loop.h: popcounts by nibble
// table lookups).
#include "count_block_avx512_loop.h"

namespace pentago::detail {

extern const shifted_counts_fn_t shifted_counts_avx512 = simd::PENTAGO_ISA::shifted_counts;

}  // namespace pentago::detail
