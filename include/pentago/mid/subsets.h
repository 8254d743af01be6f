// Subsets of the midgame solver's empty cells ("spots", docs/formats.md, "Midgame solver"): colex
// ranks of bitmask subsets (rank of {x0 < x1 < ...} = sum of C(x_i, i + 1), which orders subsets by
// their mask as a number) and the list of all k-subsets of n spots in that order.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "pentago/util/combinatorics.h"

namespace pentago {

// Colex rank of a subset of 0..31 given as a bitmask.
inline uint32_t subset_rank(uint32_t mask) {
  uint32_t rank = 0;
  for (int i = 1; mask; i++, mask &= mask - 1) rank += uint32_t(binomial(__builtin_ctz(mask), i));
  return rank;
}

// All k-subsets of 0..n-1 (n <= 31) as bitmasks in colex order: entry r has rank r.
inline std::vector<uint32_t> all_subsets(int n, int k) {
  std::vector<uint32_t> sets;
  sets.reserve(binomial(n, k));
  if (k == 0) return {0};
  uint32_t s = (uint32_t(1) << k) - 1;
  const uint32_t end = uint32_t(1) << n;
  while (s < end) {
    sets.push_back(s);
    const uint32_t low = s & -s, up = s + low;  // next mask with as many bits (Gosper)
    s = up | (((s ^ up) >> 2) / low);
  }
  return sets;
}

// Positions in the midgame solver's layer n (n spots filled of s): C(s, n) * C(n, n / 2).
inline uint64_t midgame_layer_size(int spots, int n) {
  return binomial(spots, n) * binomial(n, n / 2);
}

}  // namespace pentago
