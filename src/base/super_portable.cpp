// Portable 64-bit instantiation of the super kernels (four uint64 words).
#include "pentago/base/simd/super_kernels.h"
#include "pentago/base/simd/vector_portable.h"

namespace pentago::detail {

extern const super_kernels_t portable_kernels =
    simd::portable::make_kernels<simd::portable::vec_portable_t>();

}  // namespace pentago::detail
