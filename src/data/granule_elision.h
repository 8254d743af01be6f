// Granule elision, the filter between the interleave filter and an in-core block's byte codec
// (docs/formats.md, "In-core blocks"): filtered bytes as 4-byte granules, each either marked
// equal to the granule 16 bytes before it or kept. Interleaved nodes repeat that way most of
// the time (a node's value rarely depends on one bit of a quadrant's rotation), so the codec
// then sees about a third of the bytes, and compresses them denser.
#pragma once
#include <cstddef>
#include <cstdint>

#include "pentago/base/super.h"

namespace pentago::detail {

// The granules of `nodes` 64-byte nodes, the mask's bytes (a bit per granule) and the
// largest elided size.
constexpr size_t elision_granules(size_t nodes) { return 16 * nodes; }
constexpr size_t elision_mask_bytes(size_t nodes) { return 2 * nodes; }
constexpr size_t elision_bound(size_t nodes) { return elision_mask_bytes(nodes) + 64 * nodes; }

// Writes the mask (bit k of byte k / 8: granule k equals granule k - 4), then the granules not
// marked, in order; returns the bytes written (at most elision_bound, which `out` must hold).
// Every SIMD level writes the same bytes.
size_t elide_granules(const uint8_t* filtered, size_t nodes, uint8_t* out);
// The inverse: `elided` must be exactly what elide_granules wrote for `nodes` nodes; throws
// pentago::error if its size disagrees with its mask or the mask marks a first granule.
void restore_granules(const uint8_t* elided, size_t size, size_t nodes, uint8_t* filtered);
// The same, then the interleave filter undone (compress.h's uninterleave): the nodes as the
// solver holds them, in one pass at the AVX-512 VBMI level.
void restore_granules_uninterleaved(const uint8_t* elided, size_t size, size_t nodes,
                                    superinfo_t* out);

// The loops per ISA (granule_elision.cpp's portable ones, granule_elision_sse.cpp's SSSE3
// ones for the SSE and AVX2 levels, granule_elision_avx512.cpp's for both AVX-512 levels). A
// restore gets a mask and literals that the checks above found consistent, the literals ending
// at `end`.
using elide_fn_t = size_t (*)(const uint8_t* filtered, size_t nodes, uint8_t* out);
using restore_fn_t = void (*)(const uint8_t* mask, const uint8_t* literal, const uint8_t* end,
                              size_t nodes, uint8_t* filtered);
extern const elide_fn_t elide_granules_portable, elide_granules_sse, elide_granules_avx512;
extern const restore_fn_t restore_granules_portable, restore_granules_sse, restore_granules_avx512;
// The restore that un-interleaves each node it writes (granule_elision_avx512vbmi.cpp).
extern const restore_fn_t restore_granules_uninterleaved_avx512vbmi;

}  // namespace pentago::detail
