// The line kernel compiled for AVX-512: the AVX2 kernel, with each node's (win, notlose)
// pair from its children in one 512-bit register.
#include "line_kernel_simd.h"
#include "pentago/base/simd/vector_avx2.h"
#include "pentago/base/simd/vector_avx512.h"

namespace pentago::detail {

extern void (*const line_block_avx512)(const line_block_job_t&) =
    simd::avx512::line_block_kernel<simd::avx512::vec_avx2_t, simd::avx512::vec_pair512_t>;

}  // namespace pentago::detail
