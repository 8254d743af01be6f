// Internal to data: the interleave filter's pieces with AVX-512 VBMI and GFNI (the method is in
// interleave_avx512vbmi.cpp's header comment), shared by its loops and by the granule restore
// that undoes the filter on each node it restores (granule_elision_avx512vbmi.cpp).
#pragma once
#include <immintrin.h>

#include <array>
#include <cstdint>

namespace pentago::simd::PENTAGO_ISA {

// The gf2p8affineqb matrix that sets output bit i of each byte to input bit from[i] (or 0
// for -1): row i is byte 7 - i of the 64-bit matrix.
constexpr uint64_t bit_matrix(const std::array<int, 8>& from) {
  uint64_t m = 0;
  for (int i = 0; i < 8; i++)
    if (from[i] >= 0) m |= uint64_t(1) << from[i] << (8 * (7 - i));
  return m;
}

// Interleaving: the win bits of a nibble to the even bits, the notlose bits to the odd ones.
constexpr uint64_t win_low = bit_matrix({0, -1, 1, -1, 2, -1, 3, -1});
constexpr uint64_t win_high = bit_matrix({4, -1, 5, -1, 6, -1, 7, -1});
constexpr uint64_t notlose_low = bit_matrix({-1, 0, -1, 1, -1, 2, -1, 3});
constexpr uint64_t notlose_high = bit_matrix({-1, 4, -1, 5, -1, 6, -1, 7});
// Uninterleaving: the even (win) or odd (notlose) bits to the low or high nibble.
constexpr uint64_t even_low = bit_matrix({0, 2, 4, 6, -1, -1, -1, -1});
constexpr uint64_t even_high = bit_matrix({-1, -1, -1, -1, 0, 2, 4, 6});
constexpr uint64_t odd_low = bit_matrix({1, 3, 5, 7, -1, -1, -1, -1});
constexpr uint64_t odd_high = bit_matrix({-1, -1, -1, -1, 1, 3, 5, 7});

inline __m512i lanes(uint64_t low, uint64_t high) {
  return _mm512_set_epi64(int64_t(high), int64_t(high), int64_t(high), int64_t(high), int64_t(low),
                          int64_t(low), int64_t(low), int64_t(low));
}

// Byte permutations: byte k of the result is byte index(k) of the source.
struct alignas(64) byte_map_t {
  uint8_t bytes[64];
};
template <class F>
constexpr byte_map_t make_byte_map(F index) {
  byte_map_t m{};
  for (int k = 0; k < 64; k++) m.bytes[k] = uint8_t(index(k));
  return m;
}
// Bytes 0-31 of a table for the even output bytes, then the same bytes for the odd ones.
constexpr byte_map_t win_bytes = make_byte_map([](int k) { return k & 31; });
constexpr byte_map_t notlose_bytes = make_byte_map([](int k) { return 32 + (k & 31); });
// Output byte j from byte j / 2 (even j) or 32 + j / 2 (odd j) of the merged halves.
constexpr byte_map_t order = make_byte_map([](int j) { return (j & 1) * 32 + j / 2; });
// Uninterleaving: even input bytes to bytes 0-31, odd ones to 32-63.
constexpr byte_map_t split = make_byte_map([](int k) { return k < 32 ? 2 * k : 2 * (k - 32) + 1; });

inline __m512i load(const byte_map_t& m) { return _mm512_load_si512(m.bytes); }

// Undoes the filter on one node: the bytes' even bits back to the win table and the odd ones
// to the notlose table.
struct node_uninterleaver_t {
  __m512i halves = load(split);
  __m512i win_gather = lanes(even_low, even_high);
  __m512i notlose_gather = lanes(odd_low, odd_high);

  __m512i operator()(__m512i filtered) const {
    const __m512i x = _mm512_permutexvar_epi8(halves, filtered);
    // Byte k of the win table is w's byte k (low nibble) or-ed with its byte 32 + k.
    const __m512i w = _mm512_gf2p8affine_epi64_epi8(x, win_gather, 0);
    const __m512i l = _mm512_gf2p8affine_epi64_epi8(x, notlose_gather, 0);
    const __m512i low_halves = _mm512_shuffle_i64x2(w, l, 0x44);   // w lanes 0-3, l lanes 0-3
    const __m512i high_halves = _mm512_shuffle_i64x2(w, l, 0xee);  // w lanes 4-7, l lanes 4-7
    return _mm512_or_si512(low_halves, high_halves);
  }
};

}  // namespace pentago::simd::PENTAGO_ISA
