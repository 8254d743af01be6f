// Internal to end: count_block's sums (count_block_simd.h) with AVX-512, eight nodes per step,
// included by each AVX-512 level's file. Each node's 512 bits give eight 64-bit popcounts (one
// instruction with VPOPCNTDQ, else nibble table lookups and byte sums), four of win and four of
// notlose; a transposing tree of adds turns the eight nodes' into one register of their win
// counts and one of their notlose counts, which shift by the nodes' own shifts and add up.
#pragma once
#include <immintrin.h>

#include "count_block_simd.h"

namespace pentago::simd::PENTAGO_ISA {
namespace {

// The eight 64-bit popcounts of a node's bits: win's four words, then notlose's.
inline __m512i word_popcounts(const superinfo_t& node) {
  const __m512i x = _mm512_loadu_si512(&node);
#ifdef __AVX512VPOPCNTDQ__
  return _mm512_popcnt_epi64(x);
#else
  const __m512i nibble = _mm512_set1_epi8(0x0f);
  const __m512i table =
      _mm512_broadcast_i32x4(_mm_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4));
  const __m512i low = _mm512_shuffle_epi8(table, _mm512_and_si512(x, nibble));
  const __m512i high =
      _mm512_shuffle_epi8(table, _mm512_and_si512(_mm512_srli_epi16(x, 4), nibble));
  return _mm512_sad_epu8(_mm512_add_epi8(low, high), _mm512_setzero_si512());
#endif
}

// Sums of the 128-bit lanes' pairs: lanes (a0 + a1, b0 + b1) of each 128-bit lane.
inline __m512i pair_sums(__m512i a, __m512i b) {
  return _mm512_add_epi64(_mm512_unpacklo_epi64(a, b), _mm512_unpackhi_epi64(a, b));
}

// For two registers from pair_sums, whose 128-bit lanes hold two nodes' sums of win's first
// two words, of its last two, of notlose's first two and of its last two: the nodes' win
// and notlose counts, a's two nodes then b's (lane sums 0 + 1 and 2 + 3 of a, then of b).
inline __m512i lane_sums(__m512i a, __m512i b) {
  return _mm512_add_epi64(_mm512_shuffle_i64x2(a, b, _MM_SHUFFLE(2, 0, 2, 0)),
                          _mm512_shuffle_i64x2(a, b, _MM_SHUFFLE(3, 1, 3, 1)));
}

inline uint64_t lanes_sum(__m512i x) {
  alignas(64) uint64_t lane[8];
  _mm512_store_si512(lane, x);
  uint64_t sum = 0;
  for (const uint64_t v : lane) sum += v;
  return sum;
}

std::array<uint64_t, 3> shifted_counts(const superinfo_t* values, const uint8_t* shifts, size_t n) {
  __m512i win = _mm512_setzero_si512(), notlose = win, total = win;
  const __m512i all = _mm512_set1_epi64(256);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m512i p[8];
    for (int k = 0; k < 8; k++) p[k] = word_popcounts(values[i + k]);
    // Per 128-bit lane L of node pairs (2k, 2k + 1): that lane's two words summed, per node.
    // Lanes 0-1 of a node hold win's words, 2-3 notlose's.
    const __m512i q0 = pair_sums(p[0], p[1]), q1 = pair_sums(p[2], p[3]);
    const __m512i q2 = pair_sums(p[4], p[5]), q3 = pair_sums(p[6], p[7]);
    // (win 0 1, notlose 0 1, win 2 3, notlose 2 3) and the same for nodes 4-7.
    const __m512i t0 = lane_sums(q0, q1), t1 = lane_sums(q2, q3);
    const __m512i wins = _mm512_shuffle_i64x2(t0, t1, _MM_SHUFFLE(2, 0, 2, 0));
    const __m512i notloses = _mm512_shuffle_i64x2(t0, t1, _MM_SHUFFLE(3, 1, 3, 1));
    const __m512i shift =
        _mm512_cvtepu8_epi64(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(shifts + i)));
    win = _mm512_add_epi64(win, _mm512_srlv_epi64(wins, shift));
    notlose = _mm512_add_epi64(notlose, _mm512_srlv_epi64(notloses, shift));
    total = _mm512_add_epi64(total, _mm512_srlv_epi64(all, shift));
  }
  // The last n % 8 nodes one at a time.
  const std::array<uint64_t, 3> tail =
      detail::shifted_counts_portable(values + i, shifts + i, n - i);
  return {lanes_sum(win) + tail[0], lanes_sum(notlose) + tail[1], lanes_sum(total) + tail[2]};
}

}  // namespace
}  // namespace pentago::simd::PENTAGO_ISA
