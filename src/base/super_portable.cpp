// Portable 64-bit instantiation of the super kernels (four uint64 words).
#include "super_kernels.h"

namespace pentago::detail {
namespace {

struct vec_portable {
  uint64_t w[4];
  static vec_portable load(const super_t& s) { return {{s.w[0], s.w[1], s.w[2], s.w[3]}}; }
  void store(super_t& s) const {
    for (int i = 0; i < 4; i++) s.w[i] = w[i];
  }
  static vec_portable zero() { return {{0, 0, 0, 0}}; }
  static vec_portable splat(uint64_t x) { return {{x, x, x, x}}; }
  friend vec_portable operator&(vec_portable a, vec_portable b) {
    for (int i = 0; i < 4; i++) a.w[i] &= b.w[i];
    return a;
  }
  friend vec_portable operator|(vec_portable a, vec_portable b) {
    for (int i = 0; i < 4; i++) a.w[i] |= b.w[i];
    return a;
  }
  friend vec_portable operator^(vec_portable a, vec_portable b) {
    for (int i = 0; i < 4; i++) a.w[i] ^= b.w[i];
    return a;
  }
  friend vec_portable shl_lanes(vec_portable a, int r) {
    for (auto& x : a.w) x <<= r;
    return a;
  }
  friend vec_portable shr_lanes(vec_portable a, int r) {
    for (auto& x : a.w) x >>= r;
    return a;
  }
  friend vec_portable rotr_words(vec_portable a, int k) {
    return {{a.w[k & 3], a.w[(k + 1) & 3], a.w[(k + 2) & 3], a.w[(k + 3) & 3]}};
  }
  friend vec_portable shr_words(vec_portable a, int k) {
    vec_portable r = zero();
    for (int i = 0; i + k < 4; i++) r.w[i] = a.w[i + k];
    return r;
  }
  friend vec_portable shl_words(vec_portable a, int k) {
    vec_portable r = zero();
    for (int i = k; i < 4; i++) r.w[i] = a.w[i - k];
    return r;
  }
};

}  // namespace

extern const super_kernels portable_kernels = make_kernels<vec_portable>();

}  // namespace pentago::detail
