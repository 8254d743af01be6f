// Internal to end: the sums behind count_block (block_store.h) compiled per ISA:
// count_block.cpp's portable loop, the reference, and the AVX-512 levels'
// (count_block_avx512_loop.h). Each node's popcounts are shifted by the node's own exponent before
// they are added, so every loop gives the same sums for any bits, symmetric or not.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>

#include "pentago/base/super.h"

namespace pentago::detail {

// Adds over n nodes: popcount(win) >> shift, popcount(notlose) >> shift, 256 >> shift, where
// shift is the node's byte of `shifts` (at most 8).
using shifted_counts_fn_t = std::array<uint64_t, 3> (*)(const superinfo_t* values,
                                                        const uint8_t* shifts, size_t n);
extern const shifted_counts_fn_t shifted_counts_portable, shifted_counts_avx512,
    shifted_counts_avx512vbmi;

}  // namespace pentago::detail
