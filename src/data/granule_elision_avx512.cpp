// Granule elision (granule_elision.h) with AVX-512: a 64-byte node of sixteen granules per step.
// Eliding compares the node with the 64 bytes that start 16 bytes before it (one dword compare
// gives the node's sixteen mask bits) and packs the kept granules to the front with one dword
// compress. Restoring spreads the node's literal granules into their lanes with the inverse
// dword expand, then fills the marked lanes: first within the node (two steps, a lane taking
// the lane 4 and then 8 below it while that one is marked too), then from the node before for
// the lanes whose chain of marks reaches it. Only that last step waits for the node before.
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "granule_elision.h"

namespace pentago::simd::PENTAGO_ISA {
namespace {

size_t elide(const uint8_t* filtered, size_t nodes, uint8_t* out) {
  uint8_t* const mask = out;
  uint8_t* literal = out + detail::elision_mask_bytes(nodes);
  for (size_t n = 0; n < nodes; n++) {
    const uint8_t* node = filtered + 64 * n;
    const __m512i x = _mm512_loadu_si512(node);
    // Nothing lies before the first node's first group: none of its granules is marked.
    const __m512i before =
        n ? _mm512_loadu_si512(node - 16) : _mm512_alignr_epi32(x, _mm512_setzero_si512(), 12);
    const __mmask16 marked =
        __mmask16(_mm512_cmpeq_epi32_mask(x, before) & (n ? 0xffffu : 0xfff0u));
    const __mmask16 kept = __mmask16(~marked);
    // All 64 bytes are stored; those past the kept granules are overwritten by the next node
    // or lie past the end (within elision_bound: the literals never run ahead of the input).
    _mm512_storeu_si512(literal, _mm512_maskz_compress_epi32(kept, x));
    literal += 4 * size_t(__builtin_popcount(kept));
    const uint16_t bits = marked;
    std::memcpy(mask + 2 * n, &bits, 2);
  }
  return size_t(literal - out);
}

// The lanes whose marks chain down through every group below them to the node before (group 0
// marked, group 1 marked above a marked group 0, ...).
inline __mmask16 reaching_before(unsigned marked) {
  unsigned reach = marked & 0xfu;
  for (int group = 1; group < 4; group++) reach |= marked & (reach << 4);
  return __mmask16(reach);
}

void restore(const uint8_t* mask, const uint8_t* literal, const uint8_t* end, size_t nodes,
             uint8_t* filtered) {
  const __m512i zero = _mm512_setzero_si512();
  __m512i before = zero;  // the first group has no marks (checked by the caller)
  for (size_t n = 0; n < nodes; n++) {
    uint16_t bits;
    std::memcpy(&bits, mask + 2 * n, 2);
    const unsigned marked = bits;
    const __mmask16 kept = __mmask16(~marked);
    const unsigned low = unsigned(kept) & 0xffu, high = unsigned(kept) >> 8;
    const int low_count = __builtin_popcount(low), count = low_count + __builtin_popcount(high);
    // Two 256-bit expands (on AMD's Zen 4 one 512-bit expand left the loop slower than the
    // SSE one: docs/design.md); near the end, masked loads, which never touch the lanes they
    // leave out.
    __m256i low_packed, high_packed;
    if (end - literal >= 64) {
      low_packed = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(literal));
      high_packed = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(literal + 4 * low_count));
    } else {
      low_packed = _mm256_maskz_loadu_epi32(__mmask8((1u << low_count) - 1), literal);
      high_packed = _mm256_maskz_loadu_epi32(__mmask8((1u << (count - low_count)) - 1),
                                             literal + 4 * low_count);
    }
    __m512i x = _mm512_inserti64x4(
        _mm512_castsi256_si512(_mm256_maskz_expand_epi32(__mmask8(low), low_packed)),
        _mm256_maskz_expand_epi32(__mmask8(high), high_packed), 1);
    // Within the node: a marked lane takes the lane 4 below, then, where that one was marked
    // too, the lane 8 below (which by then holds its own source).
    const unsigned twice = marked & (marked << 4);
    x = _mm512_mask_mov_epi32(x, __mmask16(marked), _mm512_alignr_epi32(x, zero, 12));
    x = _mm512_mask_mov_epi32(x, __mmask16(twice), _mm512_alignr_epi32(x, zero, 8));
    // From the node before: its last group, into every lane whose marks reach back to it.
    x = _mm512_mask_mov_epi32(x, reaching_before(marked),
                              _mm512_shuffle_i32x4(before, before, 0xff));
    _mm512_storeu_si512(filtered + 64 * n, x);
    literal += 4 * size_t(count);
    before = x;
  }
}

}  // namespace
}  // namespace pentago::simd::PENTAGO_ISA

namespace pentago::detail {

extern const elide_fn_t elide_granules_avx512 = simd::PENTAGO_ISA::elide;
extern const restore_fn_t restore_granules_avx512 = simd::PENTAGO_ISA::restore;

}  // namespace pentago::detail
