// count_block (block_store.h): each node's shift from its quadrants' symmetry exponents, then
// the shifted popcounts summed by the SIMD level's loop (count_block_simd.h), and the portable
// loop, the reference for the others.
#include <cstring>

#include "count_block_simd.h"
#include "pentago/end/block_store.h"
#include "pentago/layout/blocks.h"
#include "pentago/layout/quadrant_states.h"
#include "pentago/util/error.h"

namespace pentago {
namespace detail {
namespace {

std::array<uint64_t, 3> shifted_counts(const superinfo_t* values, const uint8_t* shifts, size_t n) {
  std::array<uint64_t, 3> c{0, 0, 0};
  for (size_t i = 0; i < n; i++) {
    c[0] += uint64_t(popcount(values[i].win)) >> shifts[i];
    c[1] += uint64_t(popcount(values[i].notlose)) >> shifts[i];
    c[2] += uint64_t(256) >> shifts[i];
  }
  return c;
}

}  // namespace

extern const shifted_counts_fn_t shifted_counts_portable = shifted_counts;

}  // namespace detail

section_counts_t count_block(const section_t& s, const block_t& b,
                             std::span<const superinfo_t> values) {
  const auto shape = block_shape(s, b);
  int exponent[4][block_size];
  for (int q = 0; q < 4; q++) {
    const auto bucket = rmin_bucket(s.counts[q][0], s.counts[q][1]);
    for (int i = 0; i < shape[q]; i++)
      exponent[q][i] = quadrant_symmetry_exponent(bucket[block_size * b[q] + i]);
  }
  // Quadrant 3's exponents as eight bytes: a row of nodes' shifts is one add of the row's
  // base to every byte (each shift is at most 8, so no byte carries).
  uint8_t last[8] = {};
  for (int i = 0; i < shape[3]; i++) last[i] = uint8_t(exponent[3][i]);
  uint64_t row;
  std::memcpy(&row, last, sizeof row);
  // A node's shift: 2^shift local rotations fix its board. A row is written whole, so the
  // array has a row's room beyond its nodes.
  uint8_t shifts[block_size * block_size * block_size * block_size + block_size];
  size_t n = 0;
  for (int i0 = 0; i0 < shape[0]; i0++)
    for (int i1 = 0; i1 < shape[1]; i1++)
      for (int i2 = 0; i2 < shape[2]; i2++) {
        const uint64_t base = uint64_t(exponent[0][i0] + exponent[1][i1] + exponent[2][i2]);
        const uint64_t shifted = row + base * 0x0101010101010101;
        std::memcpy(shifts + n, &shifted, sizeof shifted);
        n += size_t(shape[3]);
      }
  PENTAGO_CHECK(n == values.size(), "count_block: the block has the wrong size");
  const simd_level_t level = current_simd_level();
  const auto sums =
      (level >= simd_level_t::avx512vbmi ? detail::shifted_counts_avx512vbmi
       : level >= simd_level_t::avx512   ? detail::shifted_counts_avx512
                                       : detail::shifted_counts_portable)(values.data(), shifts, n);
  return {sums[0], sums[1], sums[2]};
}

}  // namespace pentago
