// Internal to data: granule elision's restore loop at both AVX-512 levels (granule_elision.h),
// written once for granule_elision_avx512.cpp, which stores each restored node as it is, and
// granule_elision_avx512vbmi.cpp, which undoes the interleave filter on it first. Each lane's
// source is built first, as an index: a kept lane's literal, a marked lane the source of the
// lane 4 below it (two steps within the node), and a marked lane of the first group the same
// lane of the node before's last group. One two-source dword permutation of the node's literals
// and the node before then makes the node; only that step waits for the node before.
#pragma once
#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace pentago::simd::PENTAGO_ISA {

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
inline constexpr kept_ranks_t kept_ranks = make_kept_ranks();

// How far ahead of the node being restored the loop fetches the literals: a block is mostly
// read from memory, as a stream the hardware prefetchers follow too slowly (restores from
// blocks spread over 256 MiB ran 1.4 times as fast with it, `granule_elision_bench`).
constexpr size_t restore_prefetch_bytes = 2048;

// The restore loop: `store(n, node)` gets each restored node, filtered, in order.
template <class store_t>
inline void restore_nodes(const uint8_t* mask, const uint8_t* literal, const uint8_t* end,
                          size_t nodes, store_t store) {
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
    __builtin_prefetch(literal + restore_prefetch_bytes);
    // Near the end a masked load, which never touches the lanes it leaves out.
    const __m512i packed = end - literal >= 64
                               ? _mm512_loadu_si512(literal)
                               : _mm512_maskz_loadu_epi32(__mmask16((1u << count) - 1), literal);
    const __m512i x = _mm512_permutex2var_epi32(packed, source, before);
    store(n, x);
    literal += 4 * size_t(count);
    before = x;
  }
}

}  // namespace pentago::simd::PENTAGO_ISA
