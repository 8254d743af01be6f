// AVX-512 VBMI, VBMI2 and GFNI forms of the pair vector's symmetry steps, in place of
// super_kernels.h's shifts and masks: rotations along one axis, and a whole symmetry as the plan
// of its global part with its local part folded in (global_plan.h), in vpermb (bytes),
// gf2p8affineqb (bits within bytes, and the 8x8 bit transposes between stages) and a VBMI2
// funnel shift (axis 1).
// Include only in *_avx512vbmi.cpp files, after vector_avx512.h.
#pragma once
#include <immintrin.h>

#include <array>

#include "pentago/base/simd/global_plan.h"
#include "pentago/base/simd/vector_avx512.h"

namespace pentago::simd::PENTAGO_ISA {

// Axis 0 rotated by k within nibbles as a gf2p8affineqb matrix (byte 7 - b of the matrix
// selects output bit b).
constexpr std::array<uint64_t, 4> axis0_matrix = []() consteval {
  std::array<uint64_t, 4> t{};
  for (int k = 0; k < 4; k++)
    for (int b = 0; b < 8; b++)
      t[k] |= uint64_t(1) << (8 * (7 - b) + detail::global_planning::axis0_bit_source(k, b));
  return t;
}
();

// super_kernels.h's rotations in one instruction each (r below 4 and 16): the nibbles' bits as
// an in-byte bit permutation, a 16-bit group as a funnel shift of the group with itself (VBMI2).
PENTAGO_INLINE vec_pair512_t rotr_nibbles(vec_pair512_t x, int r) {
  return {_mm512_gf2p8affine_epi64_epi8(x.v, _mm512_set1_epi64((long long)axis0_matrix[r]), 0)};
}
PENTAGO_INLINE vec_pair512_t rotr16(vec_pair512_t x, int r) {
  return {_mm512_shrdv_epi16(x.v, x.v, _mm512_set1_epi16(short(r)))};
}
// rmax's neighbours along axis 0 from two of those bit permutations: y(z) = x(z) | x(z + 2e),
// then y(z + e).
PENTAGO_INLINE vec_pair512_t axis0_neighbors(vec_pair512_t x) {
  return rotr_nibbles(x | rotr_nibbles(x, 2), 1);
}

// A stage's byte map as vpermb indices for both halves of the pair; with `swap`, the halves
// also trade places (output byte j from the other half's byte j's source).
consteval std::array<uint8_t, 64> pair_byte_indices(const std::array<uint8_t, 32>& source,
                                                    bool swap = false) {
  std::array<uint8_t, 64> t{};
  for (int j = 0; j < 32; j++) {
    t[swap ? 32 + j : j] = source[j];
    t[swap ? j : 32 + j] = uint8_t(32 + source[j]);
  }
  return t;
}

// The plan of global g with the local part folded in (global_plan.h, plan_local_global), its
// tables per stage as vpermb indices. A stage's byte permutation acts alike on both halves and
// the other steps within 64-bit words, so the halves' exchange (the line kernel's order of a
// node's two values) joins the first byte permutation: the `swapped` tables.
template <int g>
struct global_tables_t {
  static constexpr detail::local_global_plan_t local_plan = detail::plan_local_global(g);
  static constexpr detail::global_plan_t plan = local_plan.plan;
  // Per stage (and stage 0 swapped), vpermb indices of the stage's byte map.
  static constexpr auto byte_indices = []() consteval {
    std::array<std::array<uint8_t, 64>, 3> t{};
    for (int s = 0; s < 3; s++) t[s] = pair_byte_indices(plan.stages[s].byte_source);
    return t;
  }
  ();
  static constexpr auto first_stage_swapped = pair_byte_indices(plan.stages[0].byte_source, true);
  // Stage 0's byte map after axes 2 and 3 rotated, per k2 | k3 << 2, as it is and swapped;
  // with transposes, stage 1's after axis 0 rotated, per k0.
  static constexpr auto first_indices = []() consteval {
    std::array<std::array<std::array<uint8_t, 64>, 16>, 2> t{};
    for (int swap = 0; swap < 2; swap++)
      for (int k = 0; k < 16; k++) t[swap][k] = pair_byte_indices(local_plan.first_bytes[k], swap);
    return t;
  }
  ();
  static constexpr auto second_indices = []() consteval {
    std::array<std::array<uint8_t, 64>, 4> t{};
    for (int k = 0; k < 4; k++) t[k] = pair_byte_indices(local_plan.second_bytes[k]);
    return t;
  }
  ();
};

// Each word as an 8x8 bit matrix times the unit vectors: its transpose (global_plan.h).
PENTAGO_INLINE __m512i transpose_words(__m512i v) {
  return _mm512_gf2p8affine_epi64_epi8(_mm512_set1_epi64(0x8040201008040201LL), v, 0);
}

// Axis 1 negated: bits 4-7 of every byte (axis 1's low bit set) trade places with the
// neighbouring byte's.
PENTAGO_INLINE __m512i negate_axis1(__m512i v) {
  constexpr long long low = 0x0607040502030001LL, high = 0x0e0f0c0d0a0b0809LL;
  const __m512i neighbour =
      _mm512_shuffle_epi8(v, _mm512_set_epi64(high, low, high, low, high, low, high, low));
  return _mm512_ternarylogic_epi64(v, neighbour, _mm512_set1_epi8(char(0xf0)), 0xd8);
}

PENTAGO_INLINE __m512i permute_bytes(const std::array<uint8_t, 64>& indices, __m512i v) {
  return _mm512_permutexvar_epi8(_mm512_loadu_si512(indices.data()), v);
}

template <int g, int s, bool swap>
PENTAGO_INLINE __m512i global_stage_apply(__m512i v) {
  using tables = global_tables_t<g>;
  constexpr detail::global_stage_t stage = tables::plan.stages[s];
  if constexpr (stage.bits)
    v = _mm512_gf2p8affine_epi64_epi8(v, _mm512_set1_epi64((long long)stage.bit_matrix), 0);
  if constexpr (stage.bytes)
    v = permute_bytes(s == 0 && swap ? tables::first_stage_swapped : tables::byte_indices[s], v);
  else if constexpr (s == 0 && swap)
    v = _mm512_shuffle_i64x2(v, v, 0x4e);
  if constexpr (s < tables::plan.transposes)
    return global_stage_apply<g, s + 1, false>(transpose_words(v));
  return v;
}

// The global part alone.
template <int g, bool swap>
PENTAGO_INLINE __m512i pair_global(__m512i v) {
  if constexpr (global_tables_t<g>::plan.pre_negate_axis1) v = negate_axis1(v);
  return global_stage_apply<g, 0, swap>(v);
}

// Per k1, the count of a 16-bit rotation by 4 k1 in every group.
constexpr std::array<std::array<uint16_t, 32>, 4> axis1_counts = []() consteval {
  std::array<std::array<uint16_t, 32>, 4> t{};
  for (int k = 0; k < 4; k++) t[k].fill(uint16_t(4 * k));
  return t;
}
();

// A whole symmetry on the pair, its halves exchanged if `swap`: the local part folded into the
// global part's stages (global_plan.h), so that it costs the global part, the rotation of axis
// 1 (a VBMI2 funnel shift) and, without transposes, one bit permutation. Without a local part,
// the global part's own steps.
template <int g, bool swap>
PENTAGO_INLINE vec_pair512_t pair_transform(vec_pair512_t x, int local) {
  using tables = global_tables_t<g>;
  constexpr detail::global_plan_t plan = tables::plan;
  __m512i v = x.v;
  if (!local) return {pair_global<g, swap>(v)};
  v = _mm512_shrdv_epi16(v, v, _mm512_loadu_si512(axis1_counts[local >> 2 & 3].data()));
  if constexpr (plan.pre_negate_axis1) v = negate_axis1(v);
  v = permute_bytes(tables::first_indices[swap][local >> 4 & 15], v);
  if constexpr (plan.transposes == 0) {
    return {_mm512_gf2p8affine_epi64_epi8(
        v, _mm512_set1_epi64((long long)tables::local_plan.first_bits[local & 3]), 0)};
  } else {
    v = permute_bytes(tables::second_indices[local & 3], transpose_words(v));
    if constexpr (plan.transposes == 2)
      return {global_stage_apply<g, 2, false>(transpose_words(v))};
    return {v};
  }
}

// More specialized than super_kernels.h's global_part, transform_value and transform_swapped,
// so the pair's calls take these.
template <int g>
PENTAGO_INLINE vec_pair512_t global_part(vec_pair512_t x) {
  return {pair_global<g, false>(x.v)};
}
template <int g>
PENTAGO_INLINE vec_pair512_t transform_value(vec_pair512_t x, int local) {
  return pair_transform<g, false>(x, local);
}
template <int g>
PENTAGO_INLINE vec_pair512_t transform_swapped(vec_pair512_t x, int local) {
  return pair_transform<g, true>(x, local);
}

}  // namespace pentago::simd::PENTAGO_ISA
