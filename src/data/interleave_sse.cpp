// The interleave filter of compress.h for SSE2: byte unpack, then a bit-level perfect
// shuffle within 16-bit lanes.
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "interleave_simd.h"

namespace pentago::simd::PENTAGO_ISA {
namespace {

// Each 16-bit lane holds (low byte a, high byte b); the result has a's bits at even
// positions and b's at odd positions. Three delta swaps (Hacker's Delight 7-2).
inline __m128i shuffle16_sse(__m128i x) {
  __m128i t = _mm_and_si128(_mm_xor_si128(x, _mm_srli_epi16(x, 4)), _mm_set1_epi16(0x00f0));
  x = _mm_xor_si128(x, _mm_xor_si128(t, _mm_slli_epi16(t, 4)));
  t = _mm_and_si128(_mm_xor_si128(x, _mm_srli_epi16(x, 2)), _mm_set1_epi16(0x0c0c));
  x = _mm_xor_si128(x, _mm_xor_si128(t, _mm_slli_epi16(t, 2)));
  t = _mm_and_si128(_mm_xor_si128(x, _mm_srli_epi16(x, 1)), _mm_set1_epi16(0x2222));
  return _mm_xor_si128(x, _mm_xor_si128(t, _mm_slli_epi16(t, 1)));
}

inline __m128i unshuffle16_sse(__m128i x) {
  __m128i t = _mm_and_si128(_mm_xor_si128(x, _mm_srli_epi16(x, 1)), _mm_set1_epi16(0x2222));
  x = _mm_xor_si128(x, _mm_xor_si128(t, _mm_slli_epi16(t, 1)));
  t = _mm_and_si128(_mm_xor_si128(x, _mm_srli_epi16(x, 2)), _mm_set1_epi16(0x0c0c));
  x = _mm_xor_si128(x, _mm_xor_si128(t, _mm_slli_epi16(t, 2)));
  t = _mm_and_si128(_mm_xor_si128(x, _mm_srli_epi16(x, 4)), _mm_set1_epi16(0x00f0));
  return _mm_xor_si128(x, _mm_xor_si128(t, _mm_slli_epi16(t, 4)));
}

void interleave_sse(const superinfo_t* in, superinfo_t* out, size_t n) {
  for (size_t i = 0; i < n; i++) {
    const __m128i* p = reinterpret_cast<const __m128i*>(&in[i]);
    const __m128i a0 = _mm_loadu_si128(p), a1 = _mm_loadu_si128(p + 1);
    const __m128i b0 = _mm_loadu_si128(p + 2), b1 = _mm_loadu_si128(p + 3);
    __m128i* q = reinterpret_cast<__m128i*>(&out[i]);
    _mm_storeu_si128(q, shuffle16_sse(_mm_unpacklo_epi8(a0, b0)));
    _mm_storeu_si128(q + 1, shuffle16_sse(_mm_unpackhi_epi8(a0, b0)));
    _mm_storeu_si128(q + 2, shuffle16_sse(_mm_unpacklo_epi8(a1, b1)));
    _mm_storeu_si128(q + 3, shuffle16_sse(_mm_unpackhi_epi8(a1, b1)));
  }
}

void uninterleave_sse(const superinfo_t* in, superinfo_t* out, size_t n) {
  const __m128i low = _mm_set1_epi16(0x00ff);
  for (size_t i = 0; i < n; i++) {
    const __m128i* p = reinterpret_cast<const __m128i*>(&in[i]);
    const __m128i x0 = unshuffle16_sse(_mm_loadu_si128(p));
    const __m128i x1 = unshuffle16_sse(_mm_loadu_si128(p + 1));
    const __m128i x2 = unshuffle16_sse(_mm_loadu_si128(p + 2));
    const __m128i x3 = unshuffle16_sse(_mm_loadu_si128(p + 3));
    __m128i* q = reinterpret_cast<__m128i*>(&out[i]);
    _mm_storeu_si128(q, _mm_packus_epi16(_mm_and_si128(x0, low), _mm_and_si128(x1, low)));
    _mm_storeu_si128(q + 1, _mm_packus_epi16(_mm_and_si128(x2, low), _mm_and_si128(x3, low)));
    _mm_storeu_si128(q + 2, _mm_packus_epi16(_mm_srli_epi16(x0, 8), _mm_srli_epi16(x1, 8)));
    _mm_storeu_si128(q + 3, _mm_packus_epi16(_mm_srli_epi16(x2, 8), _mm_srli_epi16(x3, 8)));
  }
}

}  // namespace
}  // namespace pentago::simd::PENTAGO_ISA

namespace pentago::detail {

extern const interleave_fn_t interleave_sse = simd::PENTAGO_ISA::interleave_sse;
extern const interleave_fn_t uninterleave_sse = simd::PENTAGO_ISA::uninterleave_sse;

}  // namespace pentago::detail
