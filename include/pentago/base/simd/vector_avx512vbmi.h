// AVX-512 VBMI, VBMI2 and GFNI forms of the pair vector's symmetry steps, in place of
// super_kernels.h's shifts and masks: rotations along one axis, the local rotations (shift_all)
// and the plan of the global part (global_plan.h) as vpermb (bytes) and gf2p8affineqb (bits
// within bytes, and the 8x8 bit transposes between stages).
// Include only in *_avx512vbmi.cpp files, after vector_avx512.h.
#pragma once
#include <immintrin.h>

#include <array>

#include "pentago/base/simd/global_plan.h"
#include "pentago/base/simd/vector_avx512.h"

namespace pentago::simd::PENTAGO_ISA {

// shift_all of the pair (super_kernels.h) as one in-byte bit permutation and two byte
// permutations blended by axis 1's low bit. bit_matrix[k0 | (k1 & 1) << 2] rotates axis 0 by
// k0 and flips axis 1's low bit (in-byte bit 2) if k1 is odd; byte_source[k2 | k3 << 2 | f << 4]
// rotates axes 2 and 3 (byte bits 1-4) and flips axis 1's high bit (byte bit 0) if f. Axis 1
// carries from its low bit into its high bit when k1 is odd: the output bits whose axis-1 low
// bit is set (bits 4-7 of a byte) then come from the byte with the other high-bit flip.
struct pair_shift_tables_t {
  uint64_t bit_matrix[8];
  std::array<uint8_t, 64> byte_source[32];
};

constexpr pair_shift_tables_t pair_shift = []() consteval {
  pair_shift_tables_t t{};
  for (int k = 0; k < 8; k++)
    for (int b = 0; b < 8; b++) {
      const int source = ((b >> 2 ^ k >> 2) & 1) << 2 | ((b & 3) + (k & 3)) % 4;
      t.bit_matrix[k] |= uint64_t(1) << (8 * (7 - b) + source);
    }
  for (int k = 0; k < 32; k++)
    for (int j = 0; j < 32; j++) {
      const int a2 = (j >> 1 & 3) + (k & 3), a3 = (j >> 3 & 3) + (k >> 2 & 3);
      const int source = ((j & 1) ^ k >> 4) | (a2 & 3) << 1 | (a3 & 3) << 3;
      t.byte_source[k][j] = uint8_t(source);
      t.byte_source[k][32 + j] = uint8_t(32 + source);
    }
  return t;
}
();

// Per local rotation (8 bits: k0 | k1 << 2 | k2 << 4 | k3 << 6), shift_all's operands, so that
// the node loop decodes nothing: the bit matrix, the rows of byte_source for the two byte
// permutations, and the blend mask (bits 4-7 of every byte where k1 is odd).
struct pair_shift_step_t {
  uint64_t bit_matrix;
  uint64_t carry;
  uint32_t a, b;
};

constexpr std::array<pair_shift_step_t, 256> pair_shift_steps = []() consteval {
  std::array<pair_shift_step_t, 256> t{};
  for (int local = 0; local < 256; local++) {
    const int k0 = local & 3, k1 = local >> 2 & 3, k23 = local >> 4 & 15, flip = k1 >> 1;
    t[local] = {pair_shift.bit_matrix[k0 | (k1 & 1) << 2], k1 & 1 ? 0xf0f0f0f0f0f0f0f0ULL : 0,
                uint32_t(k23 | flip << 4), uint32_t(k23 | (flip ^ 1) << 4)};
  }
  return t;
}
();

PENTAGO_INLINE vec_pair512_t shift_all(vec_pair512_t x, int local) {
  const pair_shift_step_t& step = pair_shift_steps[local & 255];
  const __m512i v =
      _mm512_gf2p8affine_epi64_epi8(x.v, _mm512_set1_epi64((long long)step.bit_matrix), 0);
  const __m512i a =
      _mm512_permutexvar_epi8(_mm512_loadu_si512(pair_shift.byte_source[step.a].data()), v);
  const __m512i b =
      _mm512_permutexvar_epi8(_mm512_loadu_si512(pair_shift.byte_source[step.b].data()), v);
  // Even k1: a everywhere. Odd k1: b where axis 1's low bit is set (bits 4-7 of every byte).
  return {_mm512_ternarylogic_epi64(a, b, _mm512_set1_epi64((long long)step.carry), 0xd8)};
}

// super_kernels.h's rotations in one instruction each: the nibbles' bits as an in-byte bit
// permutation (pair_shift's axis-0 rotations), a 16-bit group as a funnel shift of the group
// with itself (VBMI2). 0 <= r < 4 / 16.
PENTAGO_INLINE vec_pair512_t rotr_nibbles(vec_pair512_t x, int r) {
  return {_mm512_gf2p8affine_epi64_epi8(x.v, _mm512_set1_epi64((long long)pair_shift.bit_matrix[r]),
                                        0)};
}
PENTAGO_INLINE vec_pair512_t rotr16(vec_pair512_t x, int r) {
  return {_mm512_shrdv_epi16(x.v, x.v, _mm512_set1_epi16(short(r)))};
}
// rmax's neighbours along axis 0 from two of those bit permutations: y(z) = x(z) | x(z + 2e),
// then y(z + e).
PENTAGO_INLINE vec_pair512_t axis0_neighbors(vec_pair512_t x) {
  return rotr_nibbles(x | rotr_nibbles(x, 2), 1);
}

template <int g>
struct global_tables_t {
  static constexpr detail::global_plan_t plan = detail::plan_global(g);
  // Per stage, vpermb indices applying the stage's byte map to both halves of the pair.
  static constexpr auto byte_indices = []() consteval {
    std::array<std::array<uint8_t, 64>, 3> t{};
    for (int s = 0; s < 3; s++)
      for (int j = 0; j < 32; j++) {
        t[s][j] = plan.stages[s].byte_source[j];
        t[s][32 + j] = uint8_t(32 + plan.stages[s].byte_source[j]);
      }
    return t;
  }
  ();
};

template <int g, int s>
PENTAGO_INLINE __m512i global_stage_apply(__m512i v) {
  constexpr detail::global_stage_t stage = global_tables_t<g>::plan.stages[s];
  if constexpr (stage.bits)
    v = _mm512_gf2p8affine_epi64_epi8(v, _mm512_set1_epi64((long long)stage.bit_matrix), 0);
  if constexpr (stage.bytes)
    v = _mm512_permutexvar_epi8(_mm512_loadu_si512(global_tables_t<g>::byte_indices[s].data()), v);
  if constexpr (s < global_tables_t<g>::plan.transposes) {
    // Each word as an 8x8 bit matrix times the unit vectors: its transpose (global_plan.h).
    v = _mm512_gf2p8affine_epi64_epi8(_mm512_set1_epi64(0x8040201008040201LL), v, 0);
    return global_stage_apply<g, s + 1>(v);
  }
  return v;
}

// More specialized than super_kernels.h's global_part, so the pair's calls take this one.
template <int g>
PENTAGO_INLINE vec_pair512_t global_part(vec_pair512_t x) {
  __m512i v = x.v;
  if constexpr (global_tables_t<g>::plan.pre_negate_axis1) {
    // Bits 4-7 of every byte (axis 1's low bit set) trade places with the neighbouring byte's.
    constexpr long long low = 0x0607040502030001LL, high = 0x0e0f0c0d0a0b0809LL;
    const __m512i neighbour =
        _mm512_shuffle_epi8(v, _mm512_set_epi64(high, low, high, low, high, low, high, low));
    v = _mm512_ternarylogic_epi64(v, neighbour, _mm512_set1_epi8(char(0xf0)), 0xd8);
  }
  return {global_stage_apply<g, 0>(v)};
}

}  // namespace pentago::simd::PENTAGO_ISA
