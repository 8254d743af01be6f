// Granule elision (see granule_elision.h): the dispatch by SIMD level, the restore's checks, and
// the portable loops over 4-byte granules, 16 bytes at a time.
#include "granule_elision.h"

#include <cstring>
#include <string>

#include "pentago/base/super.h"
#include "pentago/data/compress.h"
#include "pentago/util/error.h"

namespace pentago::detail {

namespace {

// The lag in granules: 16 bytes back.
constexpr size_t lag = 4;

uint32_t load32(const uint8_t* p) {
  uint32_t x;
  std::memcpy(&x, p, 4);
  return x;
}

uint64_t load64(const uint8_t* p) {
  uint64_t x;
  std::memcpy(&x, p, 8);
  return x;
}

void store32(uint8_t* p, uint32_t x) { std::memcpy(p, &x, 4); }

size_t elide_portable(const uint8_t* filtered, size_t nodes, uint8_t* out) {
  const size_t granules = elision_granules(nodes);
  uint8_t* const mask = out;
  uint8_t* literal = out + elision_mask_bytes(nodes);
  for (size_t k = 0; k < granules; k += 8) {
    unsigned bits = 0;
    for (size_t j = 0; j < 8; j++) {
      const size_t g = k + j;
      const uint32_t x = load32(filtered + 4 * g);
      const bool same = g >= lag && x == load32(filtered + 4 * (g - lag));
      bits |= unsigned(same) << j;
      store32(literal, x);  // written always, kept only when not marked
      literal += same ? 0 : 4;
    }
    mask[k / 8] = uint8_t(bits);
  }
  return size_t(literal - out);
}

void restore_portable(const uint8_t* mask, const uint8_t* literal, const uint8_t*, size_t nodes,
                      uint8_t* filtered) {
  // Four granules (16 bytes) at a time: all marked (a copy of the 16 bytes before) and none
  // marked (16 literal bytes) are the common cases.
  const size_t granules = elision_granules(nodes);
  for (size_t g = 0; g < granules; g += lag) {
    const unsigned marks = mask[g / 8] >> (g % 8) & 0xf;
    uint8_t* const out = filtered + 4 * g;
    if (marks == 0xf) {
      std::memcpy(out, out - 16, 16);
    } else if (!marks) {
      std::memcpy(out, literal, 16);
      literal += 16;
    } else {
      for (size_t j = 0; j < lag; j++) {
        const bool same = marks >> j & 1;
        store32(out + 4 * j, same ? load32(out + 4 * j - 16) : load32(literal));
        literal += same ? 0 : 4;
      }
    }
  }
}

// The loop of the current SIMD level among the three.
template <class fn_t>
fn_t for_level(fn_t portable, fn_t sse, fn_t avx512) {
  const simd_level_t level = current_simd_level();
  return level >= simd_level_t::avx512 ? avx512 : level >= simd_level_t::sse ? sse : portable;
}

}  // namespace

extern const elide_fn_t elide_granules_portable = elide_portable;
extern const restore_fn_t restore_granules_portable = restore_portable;

size_t elide_granules(const uint8_t* filtered, size_t nodes, uint8_t* out) {
  return for_level(elide_granules_portable, elide_granules_sse, elide_granules_avx512)(filtered,
                                                                                       nodes, out);
}

namespace {

// The checks of restore_granules: the mask's bytes, then the literals' count, must agree with
// the size; returns where the literals start.
const uint8_t* checked_literals(const uint8_t* elided, size_t size, size_t nodes) {
  const size_t granules = elision_granules(nodes), mask_bytes = elision_mask_bytes(nodes);
  if (!nodes || size < mask_bytes)
    throw pentago_error_t("fast_uncompress: elided block of " + std::to_string(size) +
                          " bytes is shorter than its mask");
  const uint8_t* const mask = elided;
  size_t marked = 0, i = 0;
  for (; i + 8 <= mask_bytes; i += 8) marked += size_t(__builtin_popcountll(load64(mask + i)));
  for (; i < mask_bytes; i++) marked += size_t(__builtin_popcount(mask[i]));
  if ((mask[0] & 0xf) || size != mask_bytes + 4 * (granules - marked))
    throw pentago_error_t("fast_uncompress: elided block of " + std::to_string(size) +
                          " bytes disagrees with its mask");
  return elided + mask_bytes;
}

}  // namespace

void restore_granules(const uint8_t* elided, size_t size, size_t nodes, uint8_t* filtered) {
  if (!nodes && !size) return;
  const uint8_t* const literal = checked_literals(elided, size, nodes);
  for_level(restore_granules_portable, restore_granules_sse, restore_granules_avx512)(
      elided, literal, elided + size, nodes, filtered);
}

void restore_granules_uninterleaved(const uint8_t* elided, size_t size, size_t nodes,
                                    superinfo_t* out) {
  if (current_simd_level() < simd_level_t::avx512vbmi) {  // two passes
    restore_granules(elided, size, nodes, reinterpret_cast<uint8_t*>(out));
    uninterleave(std::span<superinfo_t>(out, nodes));
    return;
  }
  if (!nodes && !size) return;
  const uint8_t* const literal = checked_literals(elided, size, nodes);
  restore_granules_uninterleaved_avx512vbmi(elided, literal, elided + size, nodes,
                                            reinterpret_cast<uint8_t*>(out));
}

}  // namespace pentago::detail
