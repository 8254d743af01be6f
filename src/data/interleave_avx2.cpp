// The interleave filter of compress.h for AVX2: the SSE2 method on 256-bit vectors,
// with a lane fix-up.
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "interleave_simd.h"

namespace pentago::simd::PENTAGO_ISA {
namespace {

inline __m256i shuffle16_avx2(__m256i x) {
  __m256i t =
      _mm256_and_si256(_mm256_xor_si256(x, _mm256_srli_epi16(x, 4)), _mm256_set1_epi16(0x00f0));
  x = _mm256_xor_si256(x, _mm256_xor_si256(t, _mm256_slli_epi16(t, 4)));
  t = _mm256_and_si256(_mm256_xor_si256(x, _mm256_srli_epi16(x, 2)), _mm256_set1_epi16(0x0c0c));
  x = _mm256_xor_si256(x, _mm256_xor_si256(t, _mm256_slli_epi16(t, 2)));
  t = _mm256_and_si256(_mm256_xor_si256(x, _mm256_srli_epi16(x, 1)), _mm256_set1_epi16(0x2222));
  return _mm256_xor_si256(x, _mm256_xor_si256(t, _mm256_slli_epi16(t, 1)));
}

inline __m256i unshuffle16_avx2(__m256i x) {
  __m256i t =
      _mm256_and_si256(_mm256_xor_si256(x, _mm256_srli_epi16(x, 1)), _mm256_set1_epi16(0x2222));
  x = _mm256_xor_si256(x, _mm256_xor_si256(t, _mm256_slli_epi16(t, 1)));
  t = _mm256_and_si256(_mm256_xor_si256(x, _mm256_srli_epi16(x, 2)), _mm256_set1_epi16(0x0c0c));
  x = _mm256_xor_si256(x, _mm256_xor_si256(t, _mm256_slli_epi16(t, 2)));
  t = _mm256_and_si256(_mm256_xor_si256(x, _mm256_srli_epi16(x, 4)), _mm256_set1_epi16(0x00f0));
  return _mm256_xor_si256(x, _mm256_xor_si256(t, _mm256_slli_epi16(t, 4)));
}

void interleave_avx2(const superinfo_t* in, superinfo_t* out, size_t n) {
  for (size_t i = 0; i < n; i++) {
    const __m256i* p = reinterpret_cast<const __m256i*>(&in[i]);
    const __m256i a = _mm256_loadu_si256(p), b = _mm256_loadu_si256(p + 1);
    // Lane 0 of lo/hi: words 0-1 / 2-3 of the result; lane 1: words 4-5 / 6-7.
    const __m256i lo = shuffle16_avx2(_mm256_unpacklo_epi8(a, b));
    const __m256i hi = shuffle16_avx2(_mm256_unpackhi_epi8(a, b));
    __m256i* q = reinterpret_cast<__m256i*>(&out[i]);
    _mm256_storeu_si256(q, _mm256_permute2x128_si256(lo, hi, 0x20));
    _mm256_storeu_si256(q + 1, _mm256_permute2x128_si256(lo, hi, 0x31));
  }
}

void uninterleave_avx2(const superinfo_t* in, superinfo_t* out, size_t n) {
  const __m256i low = _mm256_set1_epi16(0x00ff);
  for (size_t i = 0; i < n; i++) {
    const __m256i* p = reinterpret_cast<const __m256i*>(&in[i]);
    const __m256i x0 = unshuffle16_avx2(_mm256_loadu_si256(p));
    const __m256i x1 = unshuffle16_avx2(_mm256_loadu_si256(p + 1));
    const __m256i lo = _mm256_permute2x128_si256(x0, x1, 0x20);
    const __m256i hi = _mm256_permute2x128_si256(x0, x1, 0x31);
    __m256i* q = reinterpret_cast<__m256i*>(&out[i]);
    _mm256_storeu_si256(q,
                        _mm256_packus_epi16(_mm256_and_si256(lo, low), _mm256_and_si256(hi, low)));
    _mm256_storeu_si256(q + 1,
                        _mm256_packus_epi16(_mm256_srli_epi16(lo, 8), _mm256_srli_epi16(hi, 8)));
  }
}

}  // namespace
}  // namespace pentago::simd::PENTAGO_ISA

namespace pentago::detail {

extern const interleave_fn_t interleave_avx2 = simd::PENTAGO_ISA::interleave_avx2;
extern const interleave_fn_t uninterleave_avx2 = simd::PENTAGO_ISA::uninterleave_avx2;

}  // namespace pentago::detail
