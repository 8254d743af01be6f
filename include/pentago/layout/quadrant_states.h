// Rotation-minimal quadrant states ("rmin") in the contract order (docs/layout.md, "Exact rules"):
// all rotation-minimal packed quadrants, reflected pairs adjacent, bucketed by (black, white).
#pragma once
#include <cstdint>
#include <span>

#include "pentago/base/board.h"

namespace pentago {

// Bucket of stone counts (b, w) with b + w <= 9: id b*(21-b)/2 + w, 55 buckets.
constexpr int rmin_bucket_id(int b, int w) { return b * (21 - b) / 2 + w; }

// The rotation-minimal states with b black and w white stones, in contract order.
std::span<const quadrant_t> rmin_bucket(int b, int w);
// How many leading entries of the bucket are reflected pairs (positions 2t, 2t+1).
int rmin_moved(int b, int w);
// For any packed quadrant v: 4*j + r, where j indexes v's rotation-minimal representative in
// its bucket and r is the least number of CCW turns taking bucket[j] to v.
uint16_t rmin_inverse(quadrant_t v);
// The 56 bucket offsets into the flat concatenated list (4995 states in all).
std::span<const uint16_t> rmin_offsets();
std::span<const quadrant_t> rmin_flat();
// Stones of colour 0 and 1 in a packed quadrant.
int quadrant_count(quadrant_t v, int color);
// 0 if no turn fixes v, 1 if only the half turn does, 2 if a quarter turn does: 2^e of the
// 4 rotations of v coincide (stabilizer counting, docs/formats.md, "Counting").
int quadrant_symmetry_exponent(quadrant_t v);

}  // namespace pentago
