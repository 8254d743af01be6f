// Rotation-abstracted values: a super_t is a 256-bit set with one bit per local rotation
// g = (g0,g1,g2,g3) at bit g0 + 4g1 + 16g2 + 64g3 (docs/formats.md, "Supers", a data contract), and
// the kernels on it (rmax, super_wins, transform_super) with portable, SSE and AVX2 versions
// chosen at run time (override with PENTAGO_SIMD=portable|sse|avx2|avx512|avx512vbmi; the two
// AVX-512 levels run the AVX2 super kernels, avx512vbmi with its own symmetry steps, and end's
// line kernel with pairs of supers in 512-bit registers).
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "pentago/base/board.h"
#include "pentago/base/symmetry.h"

namespace pentago {

struct alignas(32) super_t {
  uint64_t w[4] = {0, 0, 0, 0};

  static constexpr super_t zero() { return super_t{}; }
  static constexpr super_t ones() {
    super_t s;
    for (auto& x : s.w) x = ~uint64_t(0);
    return s;
  }
  static super_t singleton(int r) {
    super_t s;
    s.w[r >> 6] = uint64_t(1) << (r & 63);
    return s;
  }
  bool operator()(int r) const { return w[r >> 6] >> (r & 63) & 1; }
  bool operator()(int g0, int g1, int g2, int g3) const {
    return (*this)(g0 + 4 * g1 + 16 * g2 + 64 * g3);
  }
  void set(int r, bool v = true) {
    const uint64_t bit = uint64_t(1) << (r & 63);
    w[r >> 6] = v ? w[r >> 6] | bit : w[r >> 6] & ~bit;
  }
  explicit operator bool() const { return (w[0] | w[1] | w[2] | w[3]) != 0; }
  bool operator==(const super_t&) const = default;

  super_t& operator|=(const super_t& o) {
    for (int i = 0; i < 4; i++) w[i] |= o.w[i];
    return *this;
  }
  super_t& operator&=(const super_t& o) {
    for (int i = 0; i < 4; i++) w[i] &= o.w[i];
    return *this;
  }
  super_t& operator^=(const super_t& o) {
    for (int i = 0; i < 4; i++) w[i] ^= o.w[i];
    return *this;
  }
};

inline super_t operator|(super_t a, const super_t& b) { return a |= b; }
inline super_t operator&(super_t a, const super_t& b) { return a &= b; }
inline super_t operator^(super_t a, const super_t& b) { return a ^= b; }
inline super_t operator~(super_t a) {
  for (auto& x : a.w) x = ~x;
  return a;
}
inline int popcount(const super_t& s) {
  return popcount(s.w[0]) + popcount(s.w[1]) + popcount(s.w[2]) + popcount(s.w[3]);
}

// A pair of supers. In memory (computation convention) it is (win, notlose) for the player
// to move; on disk (file convention) it is (black wins, white wins).
struct alignas(64) superinfo_t {
  super_t win, notlose;
  bool operator==(const superinfo_t&) const = default;
};

// The first `nodes` nodes of a reused scratch vector, which grows to hold them and never
// shrinks: a vector resized down and up again clears the nodes it adds back (super_t's members
// start at zero), a memset per block where block sizes vary.
inline std::span<superinfo_t> scratch_span(std::vector<superinfo_t>& scratch, size_t nodes) {
  if (scratch.size() < nodes) scratch.resize(nodes);
  return {scratch.data(), nodes};
}

// Merges `from` into `into` (as many nodes) with max: the value of the better of the two move
// sets, win and notlose each the union of both.
inline void merge_into(std::span<superinfo_t> into, std::span<const superinfo_t> from) {
  for (size_t i = 0; i < into.size(); i++) {
    into[i].win |= from[i].win;
    into[i].notlose |= from[i].notlose;
  }
}

// SIMD levels for the kernels. At avx512 (AVX-512 F, BW and VL) the line kernel has its own
// code; every other kernel runs its avx2 code there. avx512vbmi (avx512 with VBMI, VBMI2, GFNI
// and VPOPCNTDQ) also moves the line kernel's symmetry steps with byte permutations, funnel
// shifts and bit matrices, and counts a block's wins with one popcount instruction per node.
enum class simd_level_t { portable = 0, sse = 1, avx2 = 2, avx512 = 3, avx512vbmi = 4 };
bool simd_supported(simd_level_t level);
simd_level_t best_simd_level();
simd_level_t current_simd_level();
void set_simd_level(simd_level_t level);  // throws pentago::error if the CPU lacks it
const char* simd_name(simd_level_t level);
simd_level_t parse_simd_level(const std::string& name);  // throws usage_error

// Kernel function table for one SIMD level.
struct super_kernels_t {
  void (*rmax)(const super_t& in, super_t& out);
  void (*wins)(side_t side, super_t& out);
  void (*transform)(symmetry_t s, const super_t& in, super_t& out);
};
extern const super_kernels_t* active_super_kernels;
const super_kernels_t& kernels_for(simd_level_t level);

// rmax(f)(g) = OR over the 8 single-quadrant turns rho of f(g + rho).
inline super_t rmax(const super_t& f) {
  super_t r;
  active_super_kernels->rmax(f, r);
  return r;
}
// Bit g set iff g.side (each quadrant i turned CCW g_i times) has five in a row.
inline super_t super_wins(side_t side) {
  super_t r;
  active_super_kernels->wins(side, r);
  return r;
}
// The super of s(b) given the super of b: (s.C)(x) = C(conj_G^-1(x) + l) for s = (G, l).
inline super_t transform_super(symmetry_t s, const super_t& c) {
  super_t r;
  active_super_kernels->transform(s, c, r);
  return r;
}

std::string str_super(const super_t& s);  // 64 hex digits, word 3 first

}  // namespace pentago
