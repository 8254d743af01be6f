// SSE2/SSSE3 vector type of the SIMD kernels: a 256-bit value as two 128-bit halves.
// Include only in files compiled for this ISA (see super_kernels.h).
#pragma once
#include <immintrin.h>

#include "pentago/base/simd/super_tables.h"

namespace pentago::simd::sse {

using detail::super_tables;

// (x[i], y[k]) for 64-bit words i, k of two halves.
template <int i, int k>
inline __m128i pick(__m128i x, __m128i y) {
  return _mm_castpd_si128(_mm_shuffle_pd(_mm_castsi128_pd(x), _mm_castsi128_pd(y), i | k << 1));
}

struct vec_sse_t {
  __m128i lo, hi;  // words (0, 1) and (2, 3)
  static constexpr bool has_nibble_map = true;

  static vec_sse_t load(const super_t& s) {
    return {_mm_loadu_si128((const __m128i*)s.w), _mm_loadu_si128((const __m128i*)(s.w + 2))};
  }
  void store(super_t& s) const {
    _mm_storeu_si128((__m128i*)s.w, lo);
    _mm_storeu_si128((__m128i*)(s.w + 2), hi);
  }
  // A streaming store past the caches (s 16-byte aligned), ordered by stream_fence.
  void stream(super_t& s) const {
    _mm_stream_si128((__m128i*)s.w, lo);
    _mm_stream_si128((__m128i*)(s.w + 2), hi);
  }
  static void stream_fence() { _mm_sfence(); }
  static vec_sse_t zero() { return {_mm_setzero_si128(), _mm_setzero_si128()}; }
  static vec_sse_t ones() { return splat(~uint64_t(0)); }
  static vec_sse_t splat(uint64_t x) {
    const __m128i v = _mm_set1_epi64x((long long)x);
    return {v, v};
  }
  friend vec_sse_t operator&(vec_sse_t a, vec_sse_t b) {
    return {_mm_and_si128(a.lo, b.lo), _mm_and_si128(a.hi, b.hi)};
  }
  friend vec_sse_t operator|(vec_sse_t a, vec_sse_t b) {
    return {_mm_or_si128(a.lo, b.lo), _mm_or_si128(a.hi, b.hi)};
  }
  friend vec_sse_t operator^(vec_sse_t a, vec_sse_t b) {
    return {_mm_xor_si128(a.lo, b.lo), _mm_xor_si128(a.hi, b.hi)};
  }
  friend vec_sse_t andnot(vec_sse_t a, vec_sse_t b) {
    return {_mm_andnot_si128(a.lo, b.lo), _mm_andnot_si128(a.hi, b.hi)};
  }
  friend vec_sse_t shl64(vec_sse_t a, int r) {
    return {_mm_slli_epi64(a.lo, r), _mm_slli_epi64(a.hi, r)};
  }
  friend vec_sse_t shr64(vec_sse_t a, int r) {
    return {_mm_srli_epi64(a.lo, r), _mm_srli_epi64(a.hi, r)};
  }
  friend vec_sse_t shl16(vec_sse_t a, int r) {
    return {_mm_slli_epi16(a.lo, r), _mm_slli_epi16(a.hi, r)};
  }
  friend vec_sse_t shr16(vec_sse_t a, int r) {
    return {_mm_srli_epi16(a.lo, r), _mm_srli_epi16(a.hi, r)};
  }

  template <int p0, int p1, int p2, int p3>
  friend vec_sse_t groups(vec_sse_t a) {
    constexpr uint64_t w = detail::group_shuffle_word(p0, p1, p2, p3);
    const __m128i m = _mm_set_epi64x(w + 0x0808080808080808ULL, w);
    return {_mm_shuffle_epi8(a.lo, m), _mm_shuffle_epi8(a.hi, m)};
  }
  // Word p of the super as its half and the position in it.
  template <int p>
  static __m128i half(vec_sse_t a) {
    return p < 2 ? a.lo : a.hi;
  }
  template <int p0, int p1, int p2, int p3>
  friend vec_sse_t words(vec_sse_t a) {
    return {pick<p0 & 1, p1 & 1>(half<p0>(a), half<p1>(a)),
            pick<p2 & 1, p3 & 1>(half<p2>(a), half<p3>(a))};
  }
  friend vec_sse_t rotr_words(vec_sse_t a, int k) {
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
  friend vec_sse_t transpose_groups(vec_sse_t a) {
    // Rows are words (4 groups each): the classic two-round 16-bit unpack transpose.
    const __m128i x = _mm_unpacklo_epi16(a.lo, a.hi), y = _mm_unpackhi_epi16(a.lo, a.hi);
    return {_mm_unpacklo_epi16(x, y), _mm_unpackhi_epi16(x, y)};
  }
  friend vec_sse_t nibble_map(vec_sse_t a, uint64_t t0, uint64_t t1) {
    const __m128i low = _mm_set1_epi8(0x0f);
    const __m128i table = _mm_set_epi64x(t1, t0), table_high = _mm_set_epi64x(t1 << 4, t0 << 4);
    auto map = [&](__m128i x) {
      const __m128i lo = _mm_and_si128(x, low), hi = _mm_and_si128(_mm_srli_epi16(x, 4), low);
      return _mm_or_si128(_mm_shuffle_epi8(table, lo), _mm_shuffle_epi8(table_high, hi));
    };
    return {map(a.lo), map(a.hi)};
  }
};

}  // namespace pentago::simd::sse
