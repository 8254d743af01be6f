// AVX-512 pair vector of the SIMD kernels: two supers in one 512-bit register, each 256-bit
// half operated on exactly as vec_avx2 operates on one super (so every kernel of
// super_kernels.h runs on both halves at once). The line kernel keeps a node's (win, notlose)
// pair in one of these. Needs AVX-512 F, BW and VL; include only in *_avx512*.cpp files.
#pragma once
#include <immintrin.h>

#include <array>

#include "pentago/base/simd/super_tables.h"
#include "pentago/base/simd/vector_avx2.h"

namespace pentago::simd::PENTAGO_ISA {

// Dword indices that rotate the four words of each half down by k (rotr_words).
constexpr std::array<std::array<uint32_t, 16>, 4> pair_rotate_words = []() consteval {
  std::array<std::array<uint32_t, 16>, 4> t{};
  for (int k = 0; k < 4; k++)
    for (int half = 0; half < 2; half++)
      for (int i = 0; i < 4; i++)
        for (int j = 0; j < 2; j++)
          t[k][8 * half + 2 * i + j] = uint32_t(8 * half + 2 * ((i + k) & 3) + j);
  return t;
}
();

struct vec_pair512_t {
  __m512i v;
  static constexpr bool has_nibble_map = true;

  // (low, high) = (pair.win, pair.notlose): a superinfo_t's 64 bytes in order.
  static vec_pair512_t load(const superinfo_t& pair) {
    return {_mm512_loadu_si512(static_cast<const void*>(&pair))};
  }
  // One super in both halves, and the low half back (transform_kernel over a single super).
  static vec_pair512_t load(const super_t& s) {
    return {_mm512_broadcast_i64x4(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(s.w)))};
  }
  void store(super_t& s) const { low().store(s); }
  static vec_pair512_t join(vec_avx2_t low, vec_avx2_t high) {
    return {_mm512_inserti64x4(_mm512_castsi256_si512(low.v), high.v, 1)};
  }
  // A super in the low half, zeros in the high.
  static vec_pair512_t widen(vec_avx2_t low) { return {_mm512_zextsi256_si512(low.v)}; }
  // Both halves as a superinfo_t; the streaming store past the caches needs 64-byte alignment.
  void store(superinfo_t& pair) const { _mm512_storeu_si512(static_cast<void*>(&pair), v); }
  void stream(superinfo_t& pair) const {
    _mm512_stream_si512(reinterpret_cast<__m512i*>(&pair), v);
  }
  vec_avx2_t low() const { return {_mm512_castsi512_si256(v)}; }
  vec_avx2_t high() const { return {_mm512_extracti64x4_epi64(v, 1)}; }
  static vec_pair512_t zero() { return {_mm512_setzero_si512()}; }
  static vec_pair512_t ones() { return {_mm512_set1_epi64(-1)}; }
  static vec_pair512_t splat(uint64_t x) { return {_mm512_set1_epi64((long long)x)}; }
  friend vec_pair512_t operator&(vec_pair512_t a, vec_pair512_t b) {
    return {_mm512_and_si512(a.v, b.v)};
  }
  friend vec_pair512_t operator|(vec_pair512_t a, vec_pair512_t b) {
    return {_mm512_or_si512(a.v, b.v)};
  }
  friend vec_pair512_t operator^(vec_pair512_t a, vec_pair512_t b) {
    return {_mm512_xor_si512(a.v, b.v)};
  }
  friend vec_pair512_t andnot(vec_pair512_t a, vec_pair512_t b) {
    return {_mm512_andnot_si512(a.v, b.v)};
  }
  // Shifts by a count in a register (0..64 / 0..16; the full width gives 0, as on AVX2).
  friend vec_pair512_t shl64(vec_pair512_t a, int r) {
    return {_mm512_sll_epi64(a.v, _mm_cvtsi32_si128(r))};
  }
  friend vec_pair512_t shr64(vec_pair512_t a, int r) {
    return {_mm512_srl_epi64(a.v, _mm_cvtsi32_si128(r))};
  }
  friend vec_pair512_t shl16(vec_pair512_t a, int r) {
    return {_mm512_sll_epi16(a.v, _mm_cvtsi32_si128(r))};
  }
  friend vec_pair512_t shr16(vec_pair512_t a, int r) {
    return {_mm512_srl_epi16(a.v, _mm_cvtsi32_si128(r))};
  }
  // One rotate in place of super_kernels.h's two shifts (0 <= r < 64).
  friend vec_pair512_t rotr64(vec_pair512_t a, int r) {
    return {_mm512_rorv_epi64(a.v, _mm512_set1_epi64(r))};
  }

  template <int p0, int p1, int p2, int p3>
  friend vec_pair512_t groups(vec_pair512_t a) {
    constexpr uint64_t w = detail::group_shuffle_word(p0, p1, p2, p3);
    constexpr uint64_t w8 = w + 0x0808080808080808ULL;
    return {_mm512_shuffle_epi8(a.v, _mm512_set_epi64(w8, w, w8, w, w8, w, w8, w))};
  }
  template <int p0, int p1, int p2, int p3>
  friend vec_pair512_t words(vec_pair512_t a) {
    // The immediate form of vpermq permutes within each 256-bit half.
    return {_mm512_permutex_epi64(a.v, p0 | p1 << 2 | p2 << 4 | p3 << 6)};
  }
  friend vec_pair512_t swap_halves(vec_pair512_t a) {
    return {_mm512_shuffle_i64x2(a.v, a.v, 0x4e)};
  }
  friend vec_pair512_t rotr_words(vec_pair512_t a, int k) {
    const __m512i idx = _mm512_loadu_si512(pair_rotate_words[k].data());
    return {_mm512_permutexvar_epi32(idx, a.v)};
  }
  friend vec_pair512_t transpose_groups(vec_pair512_t a) {
    const __m512i pair = _mm512_set_epi64(
        0x0f0e07060d0c0504LL, 0x0b0a030209080100LL, 0x0f0e07060d0c0504LL, 0x0b0a030209080100LL,
        0x0f0e07060d0c0504LL, 0x0b0a030209080100LL, 0x0f0e07060d0c0504LL, 0x0b0a030209080100LL);
    const __m512i interleave =
        _mm512_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15);
    return {_mm512_permutexvar_epi32(interleave, _mm512_shuffle_epi8(a.v, pair))};
  }
  friend vec_pair512_t nibble_map(vec_pair512_t a, uint64_t t0, uint64_t t1) {
    const __m512i low = _mm512_set1_epi8(0x0f);
    const __m512i table = _mm512_set_epi64(t1, t0, t1, t0, t1, t0, t1, t0);
    const __m512i table_high =
        _mm512_set_epi64(t1 << 4, t0 << 4, t1 << 4, t0 << 4, t1 << 4, t0 << 4, t1 << 4, t0 << 4);
    const __m512i lo = _mm512_and_si512(a.v, low);
    const __m512i hi = _mm512_and_si512(_mm512_srli_epi16(a.v, 4), low);
    return {_mm512_or_si512(_mm512_shuffle_epi8(table, lo), _mm512_shuffle_epi8(table_high, hi))};
  }
};

}  // namespace pentago::simd::PENTAGO_ISA
