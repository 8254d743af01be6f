// The line kernel compiled for portable 64-bit words.
#include "line_kernel_simd.h"
#include "pentago/base/simd/vector_portable.h"

namespace pentago::detail {

extern void (*const line_block_portable)(const line_block_job_t&) =
    simd::portable::line_block_kernel<simd::portable::vec_portable_t>;

}  // namespace pentago::detail
