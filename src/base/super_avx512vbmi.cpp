// AVX-512 VBMI and GFNI instantiation of the super kernels: the AVX2 kernels, except that a
// symmetry transforms a pair register with the byte-permutation steps of vector_avx512vbmi.h
// (the line kernel's steps at this level, whose tests check both halves), so the super kernel
// tests check those steps for every symmetry.
#include "pentago/base/simd/super_kernels.h"
#include "pentago/base/simd/vector_avx2.h"
#include "pentago/base/simd/vector_avx512.h"
#include "pentago/base/simd/vector_avx512vbmi.h"

namespace pentago::detail {

extern const super_kernels_t avx512vbmi_kernels{
    simd::avx512vbmi::rmax_kernel<simd::avx512vbmi::vec_avx2_t>,
    simd::avx512vbmi::wins_kernel<simd::avx512vbmi::vec_avx2_t>,
    simd::avx512vbmi::transform_kernel<simd::avx512vbmi::vec_pair512_t>};

}  // namespace pentago::detail
