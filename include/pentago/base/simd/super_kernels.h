// Internal: the super kernels written once over a 256-bit vector type V, instantiated per SIMD
// level (base: super_portable/sse/avx2.cpp; end: line_kernel_*.cpp). Every definition lives in
// the namespace pentago::simd::PENTAGO_ISA, a macro the per-ISA CMake helper defines for each
// instantiating file, so code compiled for one ISA can never be linked in place of another's.
// V (vector_<isa>.h) provides:
//   load/store, zero, ones, splat(x), &, |, ^, andnot(a, b) = ~a & b,
//   shl64/shr64(v, r)        per 64-bit word shifts, 0 <= r <= 64 (64 gives 0),
//   shl16/shr16(v, r)        per 16-bit group shifts, 0 <= r <= 16 (16 gives 0),
//   groups<p0..p3>(v)        in every word, group j (16 bits) of the result is group p_j,
//   words<p0..p3>(v)         word j of the result is word p_j,
//   rotr_words(v, k)         word i of the result is word (i + k) & 3, k at run time,
//   transpose_groups(v)      group j of word i of the result is group i of word j,
//   has_nibble_map, nibble_map(v, t0, t1)  (if has_nibble_map) every nibble n replaced by
//                            byte n of the 16-byte table t1:t0 (entries below 16),
// and may provide cheaper rotr_nibbles, rotr16, rotr64 and axis0_neighbors (below) of its own.
// Bit g0 + 4g1 + 16g2 + 64g3 holds rotation (g0, g1, g2, g3): axis 0 runs inside nibbles, axis
// 1 over the nibbles of a 16-bit group, axis 2 over the groups of a word, axis 3 over words.
#pragma once
#ifndef PENTAGO_ISA
#error "compile with -DPENTAGO_ISA=portable|sse|avx2 (cmake: pentago_layer sets it per file)"
#endif
#include <array>
#include <utility>

#include "pentago/base/simd/global_plan.h"
#include "pentago/base/simd/super_tables.h"

namespace pentago::simd::PENTAGO_ISA {
using namespace pentago::detail;

constexpr uint64_t rep4(uint64_t nibble) { return nibble * 0x1111111111111111ULL; }

// ---------------------------------------------------------------------------------------
// Cyclic shifts along one axis: out(z) = in(z + k e_axis), 0 <= k < 4 at run time.

// Rotations right by r (0 <= r < the width) of the bits of every nibble, 16-bit group and word,
// from V's shifts.
template <class V>
PENTAGO_INLINE V rotr_nibbles(V x, int r) {
  const V low = V::splat(super_tables.rotate_low[r]);
  return (shr64(x, r) & low) | andnot(low, shl64(x, 4 - r));
}
template <class V>
PENTAGO_INLINE V rotr16(V x, int r) {
  return shr16(x, r) | shl16(x, 16 - r);
}
template <class V>
PENTAGO_INLINE V rotr64(V x, int r) {
  return shr64(x, r) | shl64(x, 64 - r);
}

template <class V>
PENTAGO_INLINE V shift_axis(V x, int axis, int k) {
  switch (axis) {
    case 0:
      return rotr_nibbles(x, k);
    case 1:
      return rotr16(x, 4 * k);
    case 2:
      return rotr64(x, 16 * k);
    default:
      return rotr_words(x, k);
  }
}

// All four axes at once: axis a shifted by (local >> 2a) & 3.
template <class V>
PENTAGO_INLINE V shift_all(V x, int local) {
  for (int a = 0; a < 4; a++) x = shift_axis(x, a, local >> 2 * a & 3);
  return x;
}

// ---------------------------------------------------------------------------------------
// rmax: along each axis, x(z + e) | x(z - e) = y(z + e) with y(z) = x(z) | x(z + 2e).

// Bytes 8 half .. 8 half + 7 of the table n -> (n rotated down by 1) | (n rotated up by 1).
constexpr uint64_t neighbor_nibble(int half) {
  uint64_t t = 0;
  for (int n = 8 * half; n < 8 * half + 8; n++) {
    const int r = ((n >> 1 | n << 3) | (n << 1 | n >> 3)) & 15;
    t |= uint64_t(r) << 8 * (n - 8 * half);
  }
  return t;
}

// Along axis 0 (within nibbles): x(z + e) | x(z - e). A vector type may supply its own.
template <class V>
PENTAGO_INLINE V axis0_neighbors(V x) {
  if constexpr (V::has_nibble_map) {
    return nibble_map(x, neighbor_nibble(0), neighbor_nibble(1));
  } else {
    const V y = x | shr64(x, 2);  // bits 0, 1 of each nibble: x0 | x2, x1 | x3
    const V s = (shr64(y, 1) & V::splat(rep4(1))) | (shl64(y, 1) & V::splat(rep4(2)));
    return s | shl64(s, 2);
  }
}

template <class V>
PENTAGO_INLINE V rmax_value(V x) {
  const V a0 = axis0_neighbors(x);
  const V y1 = x | rotr16(x, 8);
  const V a1 = rotr16(y1, 4);
  const V a2 = groups<1, 2, 3, 0>(x | groups<2, 3, 0, 1>(x));
  const V a3 = words<1, 2, 3, 0>(x | words<2, 3, 0, 1>(x));
  return (a0 | a1) | (a2 | a3);
}

template <class V>
void rmax_kernel(const super_t& in, super_t& out) {
  rmax_value(V::load(in)).store(out);
}

// ---------------------------------------------------------------------------------------
// super_wins from the win nibbles of each quadrant's stones.

template <class V>
PENTAGO_INLINE V wins_value(const nibbles_t& q0, const nibbles_t& q1, const nibbles_t& q2,
                            const nibbles_t& q3) {
  const auto& t = super_tables;
  V acc = V::zero();
  for (int h = 0; h < 2; h++) {
    const uint64_t n0 = q0.h[h], n1 = q1.h[h], n2 = q2.h[h], n3 = q3.h[h];
    auto nonzero = [](uint64_t n) { return (n | n >> 1 | n >> 2 | n >> 3) & rep4(1); };
    uint64_t live = nonzero(n0) & nonzero(n1) & nonzero(n2) & nonzero(n3);
    while (live) {
      const int s = __builtin_ctzll(live);
      live &= live - 1;
      const uint64_t m = t.axis0[n0 >> s & 15] & t.axis1[n1 >> s & 15] & t.axis2[n2 >> s & 15];
      acc = acc | (V::splat(m) & V::load(t.axis3[n3 >> s & 15]));
    }
  }
  return acc;
}

PENTAGO_INLINE const nibbles_t& side_nibbles(side_t side, int q) {
  return super_tables.win_nibbles[q][side >> 16 * q & 0x1ff];
}

template <class V>
void wins_kernel(side_t side, super_t& out) {
  wins_value<V>(side_nibbles(side, 0), side_nibbles(side, 1), side_nibbles(side, 2),
                side_nibbles(side, 3))
      .store(out);
}

// ---------------------------------------------------------------------------------------
// The global part of a symmetry: a permutation of the axes (as the quadrants move), then, if
// it reflects, every axis negated. Written as a fixed list of elementary steps per global.

enum class step_t { swap01, swap02, swap12, swap23, neg0, neg1, neg2, neg3 };

struct global_steps_t {
  int count = 0;
  step_t steps[16] = {};
};

consteval global_steps_t make_global_steps(int g) {
  std::array<int, 4> perm = global_axis_permutation(g);
  global_steps_t r;
  // Axis transpositions sorting the identity into perm; those with axis 3 go through axis 2.
  int cur[4] = {0, 1, 2, 3};
  for (int p = 0; p < 4; p++) {
    int q = p;
    while (cur[q] != perm[p]) q++;
    if (q == p) continue;
    const step_t to2 = p == 0 ? step_t::swap02 : step_t::swap12;
    if (q == 3 && p < 2) {
      r.steps[r.count++] = to2;
      r.steps[r.count++] = step_t::swap23;
      r.steps[r.count++] = to2;
    } else {
      r.steps[r.count++] = q == 3 ? step_t::swap23 : q == 2 ? to2 : step_t::swap01;
    }
    std::swap(cur[p], cur[q]);
  }
  if (g & 4)
    for (step_t s : {step_t::neg0, step_t::neg1, step_t::neg2, step_t::neg3})
      r.steps[r.count++] = s;
  return r;
}

// Positions (within a word) with bit x set and bit y clear.
constexpr uint64_t swap_mask(int x, int y) {
  uint64_t m = 0;
  for (int p = 0; p < 64; p++)
    if ((p >> x & 1) && !(p >> y & 1)) m |= uint64_t(1) << p;
  return m;
}

// Swaps every position in mask M with the one D above it, inside each word.
template <int D, uint64_t M, class V>
PENTAGO_INLINE V delta_swap(V v) {
  const V t = (v ^ shr64(v, D)) & V::splat(M);
  return v ^ t ^ shl64(t, D);
}

// Exchanges axes p < q < 3: index bits 2p + b and 2q + b for b = 0, 1.
template <int p, int q, class V>
PENTAGO_INLINE V swap_axes(V v) {
  v = delta_swap<(1 << 2 * q) - (1 << 2 * p), swap_mask(2 * p, 2 * q)>(v);
  return delta_swap<(2 << 2 * q) - (2 << 2 * p), swap_mask(2 * p + 1, 2 * q + 1)>(v);
}

template <step_t s, class V>
PENTAGO_INLINE V apply_step(V v) {
  if constexpr (s == step_t::swap01) return swap_axes<0, 1>(v);
  if constexpr (s == step_t::swap02) return swap_axes<0, 2>(v);
  if constexpr (s == step_t::swap12) return swap_axes<1, 2>(v);
  if constexpr (s == step_t::swap23) return transpose_groups(v);
  // Negation g -> -g swaps coordinates 1 and 3 (bit 2a set and 2a + 1 clear, 2 << 2a apart).
  if constexpr (s == step_t::neg0) return delta_swap<2, swap_mask(0, 1)>(v);
  if constexpr (s == step_t::neg1) return delta_swap<8, swap_mask(2, 3)>(v);
  if constexpr (s == step_t::neg2) return groups<0, 3, 2, 1>(v);
  if constexpr (s == step_t::neg3) return words<0, 3, 2, 1>(v);
}

template <int g, class V, size_t... i>
PENTAGO_INLINE V apply_global_steps(V v, std::index_sequence<i...>) {
  constexpr global_steps_t steps = make_global_steps(g);
  ((v = apply_step<steps.steps[i]>(v)), ...);
  return v;
}

template <int g, class V>
PENTAGO_INLINE V global_part(V v) {
  return apply_global_steps<g>(v, std::make_index_sequence<make_global_steps(g).count>());
}

// A whole symmetry: the local part, then the global part g. A vector type may supply its own
// (more specialized) form.
template <int g, class V>
PENTAGO_INLINE V transform_value(V x, int local) {
  if (local) x = shift_all(x, local);
  if constexpr (g != 0) x = global_part<g>(x);
  return x;
}

// transform_value on a pair type (two supers per register) with its halves exchanged. A pair
// type may fold the exchange into its own steps.
template <int g, class P>
PENTAGO_INLINE P transform_swapped(P x, int local) {
  return swap_halves(transform_value<g>(x, local));
}

template <class V>
void transform_kernel(symmetry_t s, const super_t& in, super_t& out) {
  const V v = V::load(in);
  V r;
  switch (s.global & 7) {
    case 0:
      r = transform_value<0>(v, s.local);
      break;
    case 1:
      r = transform_value<1>(v, s.local);
      break;
    case 2:
      r = transform_value<2>(v, s.local);
      break;
    case 3:
      r = transform_value<3>(v, s.local);
      break;
    case 4:
      r = transform_value<4>(v, s.local);
      break;
    case 5:
      r = transform_value<5>(v, s.local);
      break;
    case 6:
      r = transform_value<6>(v, s.local);
      break;
    default:
      r = transform_value<7>(v, s.local);
      break;
  }
  r.store(out);
}

template <class V>
constexpr super_kernels_t make_kernels() {
  return super_kernels_t{rmax_kernel<V>, wins_kernel<V>, transform_kernel<V>};
}

}  // namespace pentago::simd::PENTAGO_ISA
