// Portable 64-bit vector type of the SIMD kernels (four uint64 words).
// Include only in files compiled for this ISA (see super_kernels.h).
#pragma once

#include "pentago/base/simd/super_tables.h"

namespace pentago::simd::portable {

using detail::super_tables;

constexpr uint64_t group_mask(int j) { return uint64_t(0xffff) << 16 * j; }

struct vec_portable_t {
  uint64_t w[4];
  static constexpr bool has_nibble_map = false;

  PENTAGO_INLINE static vec_portable_t load(const super_t& s) {
    return {{s.w[0], s.w[1], s.w[2], s.w[3]}};
  }
  void store(super_t& s) const {
    for (int i = 0; i < 4; i++) s.w[i] = w[i];
  }
  // Portable code has no streaming stores: a plain store.
  void stream(super_t& s) const { store(s); }
  static void stream_fence() {}
  PENTAGO_INLINE static vec_portable_t zero() { return {{0, 0, 0, 0}}; }
  PENTAGO_INLINE static vec_portable_t ones() { return splat(~uint64_t(0)); }
  PENTAGO_INLINE static vec_portable_t splat(uint64_t x) { return {{x, x, x, x}}; }
  PENTAGO_INLINE friend vec_portable_t operator&(vec_portable_t a, vec_portable_t b) {
    for (int i = 0; i < 4; i++) a.w[i] &= b.w[i];
    return a;
  }
  PENTAGO_INLINE friend vec_portable_t operator|(vec_portable_t a, vec_portable_t b) {
    for (int i = 0; i < 4; i++) a.w[i] |= b.w[i];
    return a;
  }
  PENTAGO_INLINE friend vec_portable_t operator^(vec_portable_t a, vec_portable_t b) {
    for (int i = 0; i < 4; i++) a.w[i] ^= b.w[i];
    return a;
  }
  PENTAGO_INLINE friend vec_portable_t andnot(vec_portable_t a, vec_portable_t b) {
    for (int i = 0; i < 4; i++) a.w[i] = ~a.w[i] & b.w[i];
    return a;
  }
  PENTAGO_INLINE friend vec_portable_t shl64(vec_portable_t a, int r) {
    for (auto& x : a.w) x = r < 64 ? x << r : 0;
    return a;
  }
  PENTAGO_INLINE friend vec_portable_t shr64(vec_portable_t a, int r) {
    for (auto& x : a.w) x = r < 64 ? x >> r : 0;
    return a;
  }
  PENTAGO_INLINE friend vec_portable_t shl16(vec_portable_t a, int r) {
    const uint64_t keep = r < 16 ? 0x0001000100010001ULL * (0xffff & (0xffff << r)) : 0;
    for (auto& x : a.w) x = r < 16 ? x << r & keep : 0;
    return a;
  }
  PENTAGO_INLINE friend vec_portable_t shr16(vec_portable_t a, int r) {
    const uint64_t keep = r < 16 ? 0x0001000100010001ULL * (0xffff >> r) : 0;
    for (auto& x : a.w) x = r < 16 ? x >> r & keep : 0;
    return a;
  }
  template <int p0, int p1, int p2, int p3>
  PENTAGO_INLINE friend vec_portable_t groups(vec_portable_t a) {
    constexpr int p[4] = {p0, p1, p2, p3};
    for (auto& x : a.w) {
      uint64_t r = 0;
      for (int j = 0; j < 4; j++) {
        const int s = 16 * (j - p[j]);
        r |= (s >= 0 ? x << s : x >> -s) & group_mask(j);
      }
      x = r;
    }
    return a;
  }
  template <int p0, int p1, int p2, int p3>
  PENTAGO_INLINE friend vec_portable_t words(vec_portable_t a) {
    return {{a.w[p0], a.w[p1], a.w[p2], a.w[p3]}};
  }
  PENTAGO_INLINE friend vec_portable_t rotr_words(vec_portable_t a, int k) {
    return {{a.w[k & 3], a.w[(k + 1) & 3], a.w[(k + 2) & 3], a.w[(k + 3) & 3]}};
  }
  PENTAGO_INLINE friend vec_portable_t transpose_groups(vec_portable_t a) {
    vec_portable_t r = zero();
    for (int i = 0; i < 4; i++)
      for (int j = 0; j < 4; j++) r.w[i] |= (a.w[j] >> 16 * i & 0xffff) << 16 * j;
    return r;
  }
};

}  // namespace pentago::simd::portable
