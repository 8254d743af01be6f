// Halfsupers (docs/formats.md, "Supers"): the parity-p half of a 256-bit super, 128 bits with bit
// j = a' + 2b + 8c + 32d standing for rotation (2a' + ((b + c + d + p) mod 2), b, c, d). rmax
// maps parity p to 1 - p by the same recipe for both, so the midgame solver keeps one class per
// layer. The kernels are plain 128-bit vector code (SSE2, the x86-64 baseline).
#pragma once
#include <cstdint>
#include <utility>

#include "pentago/base/super.h"

namespace pentago {

struct alignas(16) halfsuper_t {
  using vec_t = uint64_t __attribute__((vector_size(16)));
  vec_t v;

  static halfsuper_t zero() { return {vec_t{0, 0}}; }
  static halfsuper_t ones() { return {vec_t{~uint64_t(0), ~uint64_t(0)}}; }
  uint64_t word(int i) const { return v[i]; }
  bool operator()(int j) const { return v[j >> 6] >> (j & 63) & 1; }
  void set(int j) { v[j >> 6] |= uint64_t(1) << (j & 63); }
  bool operator==(const halfsuper_t& o) const { return v[0] == o.v[0] && v[1] == o.v[1]; }
  explicit operator bool() const { return (v[0] | v[1]) != 0; }
};

inline halfsuper_t operator|(halfsuper_t a, halfsuper_t b) { return {a.v | b.v}; }
inline halfsuper_t operator&(halfsuper_t a, halfsuper_t b) { return {a.v & b.v}; }
inline halfsuper_t operator^(halfsuper_t a, halfsuper_t b) { return {a.v ^ b.v}; }
inline halfsuper_t operator~(halfsuper_t a) { return {~a.v}; }
// ~a & b in one instruction (pandn).
inline halfsuper_t andnot(halfsuper_t a, halfsuper_t b) { return {~a.v & b.v}; }

// Bit index of rotation g = (g0, g1, g2, g3) in the half of parity g0 + g1 + g2 + g3.
constexpr int halfsuper_index(int g0, int g1, int g2, int g3) {
  return (g0 >> 1) + 2 * g1 + 8 * g2 + 32 * g3;
}

// rmax on a half: in parity p, out parity 1 - p. Quadrant 0: the two a' entries ORed into
// both; quadrants 1-3: the OR of the +-1 cyclic neighbours along b, c and d.
inline halfsuper_t halfsuper_rmax(halfsuper_t h) {
  using u32x4_t = uint32_t __attribute__((vector_size(16)));
  using u16x8_t = uint16_t __attribute__((vector_size(16)));
  const u32x4_t x = u32x4_t(h.v);
  // Axis a' (bit 0 of every pair): both entries ORed.
  const u32x4_t a = x | ((x >> 1) & 0x55555555u) | ((x << 1) & 0xaaaaaaaau);
  // Along a cyclic axis of 4, x(z + 1) | x(z - 1) is y(z + 1) with y(z) = x(z) | x(z + 2).
  // Axis b: bit pairs 1-2 of every byte (x(b + 2) is the byte's other nibble).
  const u32x4_t yb = x | ((x << 4) & 0xf0f0f0f0u) | ((x >> 4) & 0x0f0f0f0fu);
  const u32x4_t b = ((yb >> 2) & 0x3f3f3f3fu) | ((yb << 6) & 0xc0c0c0c0u);
  // Axis c: the bytes of every 32-bit lane (x(c + 2) is the lane's other 16-bit half).
  const u16x8_t x16 = u16x8_t(x);
  const u32x4_t yc = x | u32x4_t(__builtin_shufflevector(x16, x16, 1, 0, 3, 2, 5, 4, 7, 6));
  const u32x4_t c = (yc >> 8) | (yc << 24);
  // Axis d: the four 32-bit lanes.
  const u32x4_t yd = x | __builtin_shufflevector(x, x, 2, 3, 0, 1);
  const u32x4_t d = __builtin_shufflevector(yd, yd, 1, 2, 3, 0);
  return {halfsuper_t::vec_t((a | b) | (c | d))};
}

// halfsuper_rmax as the midgame solver's kernels of `level` compute it (SSSE3 and up: byte
// shuffles); the CPU must support the level.
halfsuper_t halfsuper_rmax_at(simd_level_t level, halfsuper_t h);

// The parity-p half of a super, and the super with halves h0 (parity 0) and h1 (parity 1).
halfsuper_t split_super(const super_t& s, int parity);
super_t merge_halves(halfsuper_t h0, halfsuper_t h1);

// The parity-p half of super_wins(side), computed directly from per-line quadrant tables.
// noexcept: a call inside a try block then needs no exception landing pad, which emscripten's
// JavaScript exceptions cannot give a function returning a 128-bit vector (the explorer's
// threaded WebAssembly module).
halfsuper_t halfsuper_wins(side_t side, int parity) noexcept;
// Both halves at once: {parity 0, parity 1}.
std::pair<halfsuper_t, halfsuper_t> halfsuper_wins_both(side_t side) noexcept;

}  // namespace pentago
