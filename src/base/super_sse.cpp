// SSE2/SSSE3 instantiation of the super kernels: two 128-bit halves, as in the paper.
#include "pentago/base/simd/super_kernels.h"
#include "pentago/base/simd/vector_sse.h"

namespace pentago::detail {

extern const super_kernels_t sse_kernels = simd::sse::make_kernels<simd::sse::vec_sse_t>();

}  // namespace pentago::detail
