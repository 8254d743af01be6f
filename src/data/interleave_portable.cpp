// The interleave filter of compress.h on 64-bit words: spread and gather bits with
// masks.
#include <cstdint>
#include <cstring>

#include "interleave_simd.h"

namespace pentago::simd::PENTAGO_ISA {
namespace {

// Spreads the low 32 bits of x to the even bit positions.
inline uint64_t spread_bits(uint64_t x) {
  x &= 0xffffffffULL;
  x = (x | x << 16) & 0x0000ffff0000ffffULL;
  x = (x | x << 8) & 0x00ff00ff00ff00ffULL;
  x = (x | x << 4) & 0x0f0f0f0f0f0f0f0fULL;
  x = (x | x << 2) & 0x3333333333333333ULL;
  x = (x | x << 1) & 0x5555555555555555ULL;
  return x;
}

// Gathers the even bit positions of x into the low 32 bits.
inline uint64_t gather_bits(uint64_t x) {
  x &= 0x5555555555555555ULL;
  x = (x | x >> 1) & 0x3333333333333333ULL;
  x = (x | x >> 2) & 0x0f0f0f0f0f0f0f0fULL;
  x = (x | x >> 4) & 0x00ff00ff00ff00ffULL;
  x = (x | x >> 8) & 0x0000ffff0000ffffULL;
  x = (x | x >> 16) & 0x00000000ffffffffULL;
  return x;
}

// Word w of the filtered pair, for the 8 words of a superinfo_t viewed as one array.
inline uint64_t* words(superinfo_t& p) { return p.win.w; }
inline const uint64_t* words(const superinfo_t& p) { return p.win.w; }

void interleave_portable(const superinfo_t* in, superinfo_t* out, size_t n) {
  for (size_t i = 0; i < n; i++) {
    const super_t a = in[i].win, b = in[i].notlose;
    uint64_t* o = words(out[i]);
    for (int w = 0; w < 8; w++) {
      const int shift = 32 * (w & 1);
      o[w] = spread_bits(a.w[w >> 1] >> shift) | spread_bits(b.w[w >> 1] >> shift) << 1;
    }
  }
}

void uninterleave_portable(const superinfo_t* in, superinfo_t* out, size_t n) {
  for (size_t i = 0; i < n; i++) {
    uint64_t x[8];
    std::memcpy(x, words(in[i]), 64);
    super_t a, b;
    for (int w = 0; w < 8; w++) {
      const int shift = 32 * (w & 1);
      a.w[w >> 1] |= gather_bits(x[w]) << shift;
      b.w[w >> 1] |= gather_bits(x[w] >> 1) << shift;
    }
    out[i].win = a;
    out[i].notlose = b;
  }
}

}  // namespace
}  // namespace pentago::simd::PENTAGO_ISA

namespace pentago::detail {

extern const interleave_fn_t interleave_portable = simd::PENTAGO_ISA::interleave_portable;
extern const interleave_fn_t uninterleave_portable = simd::PENTAGO_ISA::uninterleave_portable;

}  // namespace pentago::detail
