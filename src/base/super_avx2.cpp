// AVX2 instantiation of the super kernels: one 256-bit register per super.
#include "pentago/base/simd/super_kernels.h"
#include "pentago/base/simd/vector_avx2.h"

namespace pentago::detail {

extern const super_kernels_t avx2_kernels = simd::avx2::make_kernels<simd::avx2::vec_avx2_t>();

}  // namespace pentago::detail
