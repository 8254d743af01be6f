// Granule elision (granule_elision.h) with AVX-512: a 64-byte node of sixteen granules per step.
// Eliding compares the node with the 64 bytes that start 16 bytes before it (one dword compare
// gives the node's sixteen mask bits) and packs the kept granules to the front with one dword
// compress. Restoring builds each lane's source first, as an index: a kept lane's literal, a
// marked lane the source of the lane 4 below it (two steps within the node), and a marked lane
// of the first group the same lane of the node before's last group. One two-source dword
// permutation of the node's literals and the node before then writes the node; only that step
// waits for the node before.
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

// For each byte of mask bits (a lane per bit, set where the lane is kept): each lane's rank
// among the kept lanes below it, a byte per lane (zero in the marked lanes).
struct kept_ranks_t {
  uint64_t lanes[256];
};
constexpr kept_ranks_t make_kept_ranks() {
  kept_ranks_t r{};
  for (unsigned kept = 0; kept < 256; kept++) {
    uint64_t ranks = 0;
    int rank = 0;
    for (int lane = 0; lane < 8; lane++)
      if (kept >> lane & 1) ranks |= uint64_t(rank++) << (8 * lane);
    r.lanes[kept] = ranks;
  }
  return r;
}
constexpr kept_ranks_t kept_ranks = make_kept_ranks();

void restore(const uint8_t* mask, const uint8_t* literal, const uint8_t* end, size_t nodes,
             uint8_t* filtered) {
  // Indices 16 and up of the permutation select the node before: lane 12 + k % 4 of it, its
  // last group, for lane k.
  const __m512i from_before =
      _mm512_set_epi32(31, 30, 29, 28, 31, 30, 29, 28, 31, 30, 29, 28, 31, 30, 29, 28);
  __m512i before = _mm512_setzero_si512();  // the first group has no marks (checked by the caller)
  for (size_t n = 0; n < nodes; n++) {
    uint16_t bits;
    std::memcpy(&bits, mask + 2 * n, 2);
    const unsigned marked = bits, kept = ~marked & 0xffffu;
    const unsigned low = kept & 0xffu, high = kept >> 8;
    const unsigned low_count = unsigned(__builtin_popcount(low));
    const unsigned count = low_count + unsigned(__builtin_popcount(high));
    // The kept lanes' literals: the high half's ranks start after the low half's kept lanes.
    const uint64_t high_ranks = kept_ranks.lanes[high] + 0x0101010101010101ull * low_count;
    __m512i source =
        _mm512_cvtepu8_epi32(_mm_set_epi64x(int64_t(high_ranks), int64_t(kept_ranks.lanes[low])));
    // The marked lanes: the first group's from the node before, the others from the lane 4
    // below, then, where that one was marked too, the lane 8 below (which by then holds its
    // own source).
    const unsigned twice = marked & (marked << 4);
    source = _mm512_mask_mov_epi32(source, __mmask16(marked & 0xfu), from_before);
    source = _mm512_mask_mov_epi32(source, __mmask16(marked & 0xfff0u),
                                   _mm512_alignr_epi32(source, from_before, 12));
    source = _mm512_mask_mov_epi32(source, __mmask16(twice & 0xff00u),
                                   _mm512_alignr_epi32(source, from_before, 8));
    // Near the end a masked load, which never touches the lanes it leaves out.
    const __m512i packed = end - literal >= 64
                               ? _mm512_loadu_si512(literal)
                               : _mm512_maskz_loadu_epi32(__mmask16((1u << count) - 1), literal);
    const __m512i x = _mm512_permutex2var_epi32(packed, source, before);
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
