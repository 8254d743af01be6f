// SSE2/SSSE3 instantiation of the super kernels: two 128-bit halves, as in the paper.
#include <immintrin.h>

#include "super_kernels.h"

namespace pentago::detail {
namespace {

struct vec_sse {
  __m128i lo, hi;  // words (0, 1) and (2, 3)
  static vec_sse load(const super_t& s) {
    return {_mm_load_si128((const __m128i*)s.w), _mm_load_si128((const __m128i*)(s.w + 2))};
  }
  void store(super_t& s) const {
    _mm_store_si128((__m128i*)s.w, lo);
    _mm_store_si128((__m128i*)(s.w + 2), hi);
  }
  static vec_sse zero() { return {_mm_setzero_si128(), _mm_setzero_si128()}; }
  static vec_sse splat(uint64_t x) {
    const __m128i v = _mm_set1_epi64x((long long)x);
    return {v, v};
  }
  friend vec_sse operator&(vec_sse a, vec_sse b) {
    return {_mm_and_si128(a.lo, b.lo), _mm_and_si128(a.hi, b.hi)};
  }
  friend vec_sse operator|(vec_sse a, vec_sse b) {
    return {_mm_or_si128(a.lo, b.lo), _mm_or_si128(a.hi, b.hi)};
  }
  friend vec_sse operator^(vec_sse a, vec_sse b) {
    return {_mm_xor_si128(a.lo, b.lo), _mm_xor_si128(a.hi, b.hi)};
  }
  friend vec_sse shl_lanes(vec_sse a, int r) {
    const __m128i c = _mm_cvtsi32_si128(r);
    return {_mm_sll_epi64(a.lo, c), _mm_sll_epi64(a.hi, c)};
  }
  friend vec_sse shr_lanes(vec_sse a, int r) {
    const __m128i c = _mm_cvtsi32_si128(r);
    return {_mm_srl_epi64(a.lo, c), _mm_srl_epi64(a.hi, c)};
  }
  friend vec_sse rotr_words(vec_sse a, int k) {
    switch (k & 3) {
      case 0:
        return a;
      case 1:
        return {_mm_alignr_epi8(a.hi, a.lo, 8), _mm_alignr_epi8(a.lo, a.hi, 8)};
      case 2:
        return {a.hi, a.lo};
      default:
        return {_mm_alignr_epi8(a.lo, a.hi, 8), _mm_alignr_epi8(a.hi, a.lo, 8)};
    }
  }
  friend vec_sse shr_words(vec_sse a, int k) {
    switch (k) {
      case 0:
        return a;
      case 1:
        return {_mm_alignr_epi8(a.hi, a.lo, 8), _mm_srli_si128(a.hi, 8)};
      case 2:
        return {a.hi, _mm_setzero_si128()};
      case 3:
        return {_mm_srli_si128(a.hi, 8), _mm_setzero_si128()};
      default:
        return zero();
    }
  }
  friend vec_sse shl_words(vec_sse a, int k) {
    switch (k) {
      case 0:
        return a;
      case 1:
        return {_mm_slli_si128(a.lo, 8), _mm_alignr_epi8(a.hi, a.lo, 8)};
      case 2:
        return {_mm_setzero_si128(), a.lo};
      case 3:
        return {_mm_setzero_si128(), _mm_slli_si128(a.lo, 8)};
      default:
        return zero();
    }
  }
};

}  // namespace

extern const super_kernels sse_kernels = make_kernels<vec_sse>();

}  // namespace pentago::detail
