// AVX-512 VBMI and GFNI instantiation of the super kernels: the AVX2 kernels, except that a
// symmetry transforms a pair register with the byte-permutation steps of vector_avx512vbmi.h
// (the line kernel's steps at this level, whose tests check both halves), so the super kernel
// tests check those steps for every symmetry.
#include "pentago/base/simd/super_kernels.h"
#include "pentago/base/simd/vector_avx2.h"
#include "pentago/base/simd/vector_avx512.h"
#include "pentago/base/simd/vector_avx512vbmi.h"

namespace pentago::simd::avx512vbmi {
namespace {

template <int g>
vec_pair512 global_of(vec_pair512 v) {
  if constexpr (g == 0)
    return v;
  else
    return global_part<g>(v);
}

void transform_pair_kernel(symmetry_t s, const super_t& in, super_t& out) {
  const vec_pair512 v = shift_all(vec_pair512::load(superinfo_t{in, in}), s.local);
  constexpr vec_pair512 (*globals[8])(vec_pair512) = {global_of<0>, global_of<1>, global_of<2>,
                                                      global_of<3>, global_of<4>, global_of<5>,
                                                      global_of<6>, global_of<7>};
  globals[s.global & 7](v).low().store(out);
}

}  // namespace
}  // namespace pentago::simd::avx512vbmi

namespace pentago::detail {

extern const super_kernels avx512vbmi_kernels{
    simd::avx512vbmi::rmax_kernel<simd::avx512vbmi::vec_avx2>,
    simd::avx512vbmi::wins_kernel<simd::avx512vbmi::vec_avx2>,
    simd::avx512vbmi::transform_pair_kernel};

}  // namespace pentago::detail
