// The line kernel compiled for AVX2.
#include "line_kernel_simd.h"
#include "pentago/base/simd/vector_avx2.h"

namespace pentago::detail {

extern void (*const line_block_avx2)(const line_block_job_t&) =
    simd::avx2::line_block_kernel<simd::avx2::vec_avx2_t>;

}  // namespace pentago::detail
