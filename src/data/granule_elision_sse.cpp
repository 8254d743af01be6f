// Granule elision (granule_elision.h) with SSSE3: a 16-byte group of four granules per step.
// Eliding compares a group with the one before it (one dword compare gives the group's four
// mask bits) and packs the granules it keeps to the front with one byte shuffle; restoring
// spreads the group's literal granules into their lanes with the inverse shuffle and takes the
// marked lanes from the group restored just before.
#include <immintrin.h>

#include <array>
#include <cstdint>
#include <cstring>

#include "granule_elision.h"

namespace pentago::simd::PENTAGO_ISA {
namespace {

using table_t = std::array<std::array<uint8_t, 16>, 16>;

// For each 4-bit mark pattern: the byte shuffle that packs the unmarked granules to the front
// (the rest zero), the one that spreads packed granules into the unmarked lanes (marked lanes
// zero), and the lanes' select mask (all ones in the marked lanes).
constexpr table_t make_table(int kind) {
  table_t t{};
  for (int m = 0; m < 16; m++) {
    t[m].fill(kind == 2 ? 0 : 0x80);
    int packed = 0;
    for (int lane = 0; lane < 4; lane++) {
      const bool marked = m >> lane & 1;
      for (int b = 0; b < 4; b++) {
        if (kind == 0 && !marked) t[m][4 * packed + b] = uint8_t(4 * lane + b);
        if (kind == 1 && !marked) t[m][4 * lane + b] = uint8_t(4 * packed + b);
        if (kind == 2 && marked) t[m][4 * lane + b] = 0xff;
      }
      packed += !marked;
    }
  }
  return t;
}

alignas(16) constexpr table_t pack_shuffles = make_table(0);
alignas(16) constexpr table_t spread_shuffles = make_table(1);
alignas(16) constexpr table_t marked_lanes = make_table(2);

inline __m128i row(const table_t& t, unsigned m) {
  return _mm_load_si128(reinterpret_cast<const __m128i*>(t[m].data()));
}

size_t elide(const uint8_t* filtered, size_t nodes, uint8_t* out) {
  const size_t groups = 4 * nodes;  // an even count: two groups to a mask byte
  uint8_t* const mask = out;
  uint8_t* literal = out + detail::elision_mask_bytes(nodes);
  __m128i before = _mm_setzero_si128();
  unsigned low = 0;  // the even group's mask bits
  for (size_t g = 0; g < groups; g++) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(filtered + 16 * g));
    // Nothing lies before the first group: none of its granules is marked.
    const unsigned m =
        g ? unsigned(_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(x, before)))) : 0u;
    // All 16 bytes are stored; those past the kept granules are overwritten by the next group
    // or lie past the end (within elision_bound: the literals never run ahead of the input).
    _mm_storeu_si128(reinterpret_cast<__m128i*>(literal),
                     _mm_shuffle_epi8(x, row(pack_shuffles, m)));
    literal += 16 - 4 * size_t(__builtin_popcount(m));
    if (g & 1)
      mask[g / 2] = uint8_t(low | m << 4);
    else
      low = m;
    before = x;
  }
  return size_t(literal - out);
}

void restore(const uint8_t* mask, const uint8_t* literal, const uint8_t* end, size_t nodes,
             uint8_t* filtered) {
  const size_t groups = 4 * nodes;
  __m128i before = _mm_setzero_si128();  // the first group has no marks (checked by the caller)
  for (size_t g = 0; g < groups; g++) {
    const unsigned m = mask[g / 2] >> (4 * (g & 1)) & 0xf;
    const size_t bytes = 16 - 4 * size_t(__builtin_popcount(m));
    __m128i packed;
    if (end - literal >= 16) {
      packed = _mm_loadu_si128(reinterpret_cast<const __m128i*>(literal));
    } else {  // the last literals: never read past the end
      alignas(16) uint8_t tail[16] = {};
      std::memcpy(tail, literal, bytes);
      packed = _mm_load_si128(reinterpret_cast<const __m128i*>(tail));
    }
    const __m128i spread = _mm_shuffle_epi8(packed, row(spread_shuffles, m));
    const __m128i marked = row(marked_lanes, m);
    const __m128i x = _mm_or_si128(_mm_and_si128(marked, before), _mm_andnot_si128(marked, spread));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(filtered + 16 * g), x);
    literal += bytes;
    before = x;
  }
}

}  // namespace
}  // namespace pentago::simd::PENTAGO_ISA

namespace pentago::detail {

extern const elide_fn_t elide_granules_sse = simd::PENTAGO_ISA::elide;
extern const restore_fn_t restore_granules_sse = simd::PENTAGO_ISA::restore;

}  // namespace pentago::detail
