// Granule elision (granule_elision.h) with AVX-512: a 64-byte node of sixteen granules per step.
// Eliding compares the node with the 64 bytes that start 16 bytes before it (one dword compare
// gives the node's sixteen mask bits) and packs the kept granules to the front with one dword
// compress. Restoring is granule_elision_avx512.h's loop, each node stored as it is.
#include "granule_elision_avx512.h"

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

void restore(const uint8_t* mask, const uint8_t* literal, const uint8_t* end, size_t nodes,
             uint8_t* filtered) {
  restore_nodes(mask, literal, end, nodes,
                [filtered](size_t n, __m512i x) { _mm512_storeu_si512(filtered + 64 * n, x); });
}

}  // namespace
}  // namespace pentago::simd::PENTAGO_ISA

namespace pentago::detail {

extern const elide_fn_t elide_granules_avx512 = simd::PENTAGO_ISA::elide;
extern const restore_fn_t restore_granules_avx512 = simd::PENTAGO_ISA::restore;

}  // namespace pentago::detail
