// Private: the super kernels written once over a 256-bit vector type V, instantiated per SIMD
// level (super_portable.cpp, super_sse.cpp, super_avx2.cpp). V provides:
//   load/store, zero, set4(w0..w3), splat(x), &, |, ^, andnot(a, b) = ~a & b,
//   shl_lanes/shr_lanes(v, r)  per 64-bit word shifts, 0 < r < 64,
//   rotr_words(v, k)           out[i] = in[(i + k) & 3],
//   shr_words/shl_words(v, k)  out[i] = in[i + k] / in[i - k], 0 outside.
#pragma once
#include "super_tables.h"

namespace pentago::detail {

constexpr uint64_t rep4(uint64_t nibble) { return nibble * 0x1111111111111111ULL; }
constexpr uint64_t rep16(uint64_t group) { return group * 0x0001000100010001ULL; }

// out(z) = in(z + k e_axis): every coordinate of `axis` shifted down by k (cyclically).
template <class V>
inline V shift_axis(V x, int axis, int k) {
  switch (axis) {
    case 0: {
      const uint64_t lo = rep4((1u << (4 - k)) - 1);
      return (shr_lanes(x, k) & V::splat(lo)) | (shl_lanes(x, 4 - k) & V::splat(~lo));
    }
    case 1: {
      const uint64_t lo = rep16((1u << (16 - 4 * k)) - 1);
      return (shr_lanes(x, 4 * k) & V::splat(lo)) | (shl_lanes(x, 16 - 4 * k) & V::splat(~lo));
    }
    case 2:
      return shr_lanes(x, 16 * k) | shl_lanes(x, 64 - 16 * k);
    default:
      return rotr_words(x, k);
  }
}

template <class V>
inline V shr256(V v, int d) {
  const int q = d >> 6, r = d & 63;
  if (!r) return shr_words(v, q);
  return shr_lanes(shr_words(v, q), r) | shl_lanes(shr_words(v, q + 1), 64 - r);
}

template <class V>
inline V shl256(V v, int d) {
  const int q = d >> 6, r = d & 63;
  if (!r) return shl_words(v, q);
  return shl_lanes(shl_words(v, q), r) | shr_lanes(shl_words(v, q + 1), 64 - r);
}

// Swap the elements marked by m with the ones d above them.
template <class V>
inline V delta_swap(V v, V m, int d) {
  const V t = (v ^ shr256(v, d)) & m;
  return v ^ t ^ shl256(t, d);
}

template <class V>
void rmax_kernel(const super_t& in, super_t& out) {
  const V x = V::load(in);
  V r = shift_axis(x, 0, 1) | shift_axis(x, 0, 3);
  r = r | shift_axis(x, 1, 1) | shift_axis(x, 1, 3);
  r = r | shift_axis(x, 2, 1) | shift_axis(x, 2, 3);
  r = r | rotr_words(x, 1) | rotr_words(x, 3);
  r.store(out);
}

template <class V>
void wins_kernel(side_t side, super_t& out) {
  const auto& t = super_tables;
  V acc = V::zero();
  for (int h = 0; h < 2; h++) {
    const uint64_t n0 = t.win_nibbles[0][side & 0x1ff][h];
    const uint64_t n1 = t.win_nibbles[1][side >> 16 & 0x1ff][h];
    const uint64_t n2 = t.win_nibbles[2][side >> 32 & 0x1ff][h];
    const uint64_t n3 = t.win_nibbles[3][side >> 48 & 0x1ff][h];
    auto nonzero = [](uint64_t n) { return (n | n >> 1 | n >> 2 | n >> 3) & rep4(1); };
    uint64_t live = nonzero(n0) & nonzero(n1) & nonzero(n2) & nonzero(n3);
    while (live) {
      const int s = __builtin_ctzll(live);
      live &= live - 1;
      const uint64_t m = t.axis0[n0 >> s & 15] & t.axis1[n1 >> s & 15] & t.axis2[n2 >> s & 15];
      acc = acc | (V::splat(m) & V::load(t.axis3[n3 >> s & 15]));
    }
  }
  acc.store(out);
}

template <class V>
void transform_kernel(symmetry_t s, const super_t& in, super_t& out) {
  V v = V::load(in);
  for (int a = 0; a < 4; a++) {
    const int k = s.local >> 2 * a & 3;
    if (k) v = shift_axis(v, a, k);
  }
  const auto& ops = super_tables.ops[s.global & 7];
  for (int i = 0; i < super_tables.op_count[s.global & 7]; i++)
    v = delta_swap(v, V::load(ops[i].mask), ops[i].distance);
  v.store(out);
}

template <class V>
constexpr super_kernels make_kernels() {
  return super_kernels{rmax_kernel<V>, wins_kernel<V>, transform_kernel<V>};
}

}  // namespace pentago::detail
