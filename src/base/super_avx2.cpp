// AVX2 instantiation of the super kernels: one 256-bit register per super.
#include <immintrin.h>

#include "super_kernels.h"

namespace pentago::detail {
namespace {

struct vec_avx2 {
  __m256i v;
  static vec_avx2 load(const super_t& s) { return {_mm256_load_si256((const __m256i*)s.w)}; }
  void store(super_t& s) const { _mm256_store_si256((__m256i*)s.w, v); }
  static vec_avx2 zero() { return {_mm256_setzero_si256()}; }
  static vec_avx2 splat(uint64_t x) { return {_mm256_set1_epi64x((long long)x)}; }
  friend vec_avx2 operator&(vec_avx2 a, vec_avx2 b) { return {_mm256_and_si256(a.v, b.v)}; }
  friend vec_avx2 operator|(vec_avx2 a, vec_avx2 b) { return {_mm256_or_si256(a.v, b.v)}; }
  friend vec_avx2 operator^(vec_avx2 a, vec_avx2 b) { return {_mm256_xor_si256(a.v, b.v)}; }
  friend vec_avx2 shl_lanes(vec_avx2 a, int r) {
    return {_mm256_sll_epi64(a.v, _mm_cvtsi32_si128(r))};
  }
  friend vec_avx2 shr_lanes(vec_avx2 a, int r) {
    return {_mm256_srl_epi64(a.v, _mm_cvtsi32_si128(r))};
  }
  friend vec_avx2 rotr_words(vec_avx2 a, int k) {
    switch (k & 3) {
      case 0:
        return a;
      case 1:
        return {_mm256_permute4x64_epi64(a.v, _MM_SHUFFLE(0, 3, 2, 1))};
      case 2:
        return {_mm256_permute4x64_epi64(a.v, _MM_SHUFFLE(1, 0, 3, 2))};
      default:
        return {_mm256_permute4x64_epi64(a.v, _MM_SHUFFLE(2, 1, 0, 3))};
    }
  }
  friend vec_avx2 shr_words(vec_avx2 a, int k) {
    switch (k) {
      case 0:
        return a;
      case 1:
        return {_mm256_blend_epi32(_mm256_permute4x64_epi64(a.v, _MM_SHUFFLE(3, 3, 2, 1)),
                                   _mm256_setzero_si256(), 0xc0)};
      case 2:
        return {_mm256_blend_epi32(_mm256_permute4x64_epi64(a.v, _MM_SHUFFLE(3, 3, 3, 2)),
                                   _mm256_setzero_si256(), 0xf0)};
      case 3:
        return {_mm256_blend_epi32(_mm256_permute4x64_epi64(a.v, _MM_SHUFFLE(3, 3, 3, 3)),
                                   _mm256_setzero_si256(), 0xfc)};
      default:
        return zero();
    }
  }
  friend vec_avx2 shl_words(vec_avx2 a, int k) {
    switch (k) {
      case 0:
        return a;
      case 1:
        return {_mm256_blend_epi32(_mm256_permute4x64_epi64(a.v, _MM_SHUFFLE(2, 1, 0, 0)),
                                   _mm256_setzero_si256(), 0x03)};
      case 2:
        return {_mm256_blend_epi32(_mm256_permute4x64_epi64(a.v, _MM_SHUFFLE(1, 0, 0, 0)),
                                   _mm256_setzero_si256(), 0x0f)};
      case 3:
        return {_mm256_blend_epi32(_mm256_permute4x64_epi64(a.v, _MM_SHUFFLE(0, 0, 0, 0)),
                                   _mm256_setzero_si256(), 0x3f)};
      default:
        return zero();
    }
  }
};

}  // namespace

extern const super_kernels avx2_kernels = make_kernels<vec_avx2>();

}  // namespace pentago::detail
