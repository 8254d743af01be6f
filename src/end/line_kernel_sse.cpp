// The line kernel compiled for SSE2/SSSE3.
#include "line_kernel_simd.h"
#include "pentago/base/simd/vector_sse.h"

namespace pentago::detail {

extern void (*const line_block_sse)(const line_block_job_t&) =
    simd::sse::line_block_kernel<simd::sse::vec_sse_t>;

}  // namespace pentago::detail
