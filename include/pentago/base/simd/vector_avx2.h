// AVX2 vector type of the SIMD kernels: one 256-bit register per value.
// Include only in files compiled for AVX2 or above (see super_kernels.h); it lives in their
// PENTAGO_ISA namespace, so that each ISA gets its own copy.
#pragma once
#include <immintrin.h>

#include "pentago/base/simd/super_tables.h"

namespace pentago::simd::PENTAGO_ISA {

using detail::super_tables;

struct vec_avx2_t {
  __m256i v;
  static constexpr bool has_nibble_map = true;

  static vec_avx2_t load(const super_t& s) { return {_mm256_loadu_si256((const __m256i*)s.w)}; }
  void store(super_t& s) const { _mm256_storeu_si256((__m256i*)s.w, v); }
  // A streaming store past the caches (s 32-byte aligned), ordered by stream_fence.
  void stream(super_t& s) const { _mm256_stream_si256((__m256i*)s.w, v); }
  static void stream_fence() { _mm_sfence(); }
  static vec_avx2_t zero() { return {_mm256_setzero_si256()}; }
  static vec_avx2_t ones() { return {_mm256_set1_epi64x(-1)}; }
  static vec_avx2_t splat(uint64_t x) { return {_mm256_set1_epi64x((long long)x)}; }
  friend vec_avx2_t operator&(vec_avx2_t a, vec_avx2_t b) { return {_mm256_and_si256(a.v, b.v)}; }
  friend vec_avx2_t operator|(vec_avx2_t a, vec_avx2_t b) { return {_mm256_or_si256(a.v, b.v)}; }
  friend vec_avx2_t operator^(vec_avx2_t a, vec_avx2_t b) { return {_mm256_xor_si256(a.v, b.v)}; }
  friend vec_avx2_t andnot(vec_avx2_t a, vec_avx2_t b) { return {_mm256_andnot_si256(a.v, b.v)}; }
  friend vec_avx2_t shl64(vec_avx2_t a, int r) { return {_mm256_slli_epi64(a.v, r)}; }
  friend vec_avx2_t shr64(vec_avx2_t a, int r) { return {_mm256_srli_epi64(a.v, r)}; }
  friend vec_avx2_t shl16(vec_avx2_t a, int r) { return {_mm256_slli_epi16(a.v, r)}; }
  friend vec_avx2_t shr16(vec_avx2_t a, int r) { return {_mm256_srli_epi16(a.v, r)}; }

  template <int p0, int p1, int p2, int p3>
  friend vec_avx2_t groups(vec_avx2_t a) {
    constexpr uint64_t w = detail::group_shuffle_word(p0, p1, p2, p3);
    constexpr uint64_t w8 = w + 0x0808080808080808ULL;
    return {_mm256_shuffle_epi8(a.v, _mm256_set_epi64x(w8, w, w8, w))};
  }
  template <int p0, int p1, int p2, int p3>
  friend vec_avx2_t words(vec_avx2_t a) {
    return {_mm256_permute4x64_epi64(a.v, p0 | p1 << 2 | p2 << 4 | p3 << 6)};
  }
  friend vec_avx2_t rotr_words(vec_avx2_t a, int k) {
    const __m256i idx = _mm256_loadu_si256((const __m256i*)super_tables.rotate_words[k]);
    return {_mm256_permutevar8x32_epi32(a.v, idx)};
  }
  friend vec_avx2_t transpose_groups(vec_avx2_t a) {
    // In each lane, pair group j of its two words into dword j; then interleave the lanes.
    const __m256i pair = _mm256_set_epi64x(0x0f0e07060d0c0504LL, 0x0b0a030209080100LL,
                                           0x0f0e07060d0c0504LL, 0x0b0a030209080100LL);
    const __m256i interleave = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    return {_mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(a.v, pair), interleave)};
  }
  friend vec_avx2_t nibble_map(vec_avx2_t a, uint64_t t0, uint64_t t1) {
    const __m256i low = _mm256_set1_epi8(0x0f);
    const __m256i table = _mm256_set_epi64x(t1, t0, t1, t0);
    const __m256i table_high = _mm256_set_epi64x(t1 << 4, t0 << 4, t1 << 4, t0 << 4);
    const __m256i lo = _mm256_and_si256(a.v, low);
    const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(a.v, 4), low);
    return {_mm256_or_si256(_mm256_shuffle_epi8(table, lo), _mm256_shuffle_epi8(table_high, hi))};
  }
};

}  // namespace pentago::simd::PENTAGO_ISA
