// The line kernel compiled for AVX-512 with VBMI and GFNI: the AVX-512 kernel, with the global
// symmetry step as byte permutations and bit-matrix transposes (vector_avx512vbmi.h).
#include "line_kernel_simd.h"
#include "pentago/base/simd/vector_avx2.h"
#include "pentago/base/simd/vector_avx512.h"
#include "pentago/base/simd/vector_avx512vbmi.h"

namespace pentago::detail {

extern void (*const line_block_avx512vbmi)(const line_block_job_t&) =
    simd::avx512vbmi::line_block_kernel<simd::avx512vbmi::vec_avx2_t,
                                        simd::avx512vbmi::vec_pair512_t>;

}  // namespace pentago::detail
