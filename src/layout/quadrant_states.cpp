// Rotation-minimal quadrant state tables in the contract order, built once at start-up.
#include "pentago/layout/quadrant_states.h"

#include <algorithm>
#include <array>
#include <vector>

namespace pentago {
namespace {

quadrant_t rotation_minimum(quadrant_t v) {
  quadrant_t least = v;
  for (int r = 1; r < 4; r++) least = std::min(least, v = rotate_quadrant_ccw(v));
  return least;
}

struct rmin_tables_t {
  std::vector<quadrant_t> flat;
  std::array<uint16_t, 56> offsets{};
  std::array<int, 55> moved{};
  std::vector<uint16_t> inverse;
  std::vector<int8_t> exponent;

  rmin_tables_t() : inverse(quadrant_states), exponent(quadrant_states) {
    std::vector<quadrant_t> minimal;
    for (int v = 0; v < quadrant_states; v++)
      if (rotation_minimum(quadrant_t(v)) == v) minimal.push_back(quadrant_t(v));
    auto reflected = [](quadrant_t v) { return rotation_minimum(reflect_quadrant(v)); };
    auto key = [&](quadrant_t v) {
      const quadrant_t r = reflected(v);
      return int(std::min(v, r)) + quadrant_states * (v == r);
    };
    std::stable_sort(minimal.begin(), minimal.end(),
                     [&](quadrant_t a, quadrant_t b) { return key(a) < key(b); });
    std::array<std::vector<quadrant_t>, 55> buckets;
    for (quadrant_t v : minimal) {
      const int b = quadrant_count(v, 0), w = quadrant_count(v, 1);
      buckets[rmin_bucket_id(b, w)].push_back(v);
      moved[rmin_bucket_id(b, w)] += reflected(v) != v;
    }
    for (int k = 0; k < 55; k++) {
      offsets[k] = uint16_t(flat.size());
      flat.insert(flat.end(), buckets[k].begin(), buckets[k].end());
    }
    offsets[55] = uint16_t(flat.size());
    // Least r first, so the first assignment wins.
    std::vector<bool> assigned(quadrant_states);
    for (int k = 0; k < 55; k++)
      for (int j = 0; j < int(buckets[k].size()); j++) {
        quadrant_t v = buckets[k][j];
        for (int r = 0; r < 4; r++, v = rotate_quadrant_ccw(v))
          if (!assigned[v]) assigned[v] = true, inverse[v] = uint16_t(4 * j + r);
      }
    for (int v = 0; v < quadrant_states; v++) {
      const quadrant_t q = quadrant_t(v), r1 = rotate_quadrant_ccw(q);
      exponent[v] = int8_t(r1 == q ? 2 : rotate_quadrant_ccw(r1) == q ? 1 : 0);
    }
  }
};

const rmin_tables_t& tables() {
  static const rmin_tables_t t;
  return t;
}

}  // namespace

int quadrant_count(quadrant_t v, int color) { return popcount(unpack_table[v][color]); }

std::span<const quadrant_t> rmin_bucket(int b, int w) {
  const auto& t = tables();
  const int k = rmin_bucket_id(b, w);
  return {t.flat.data() + t.offsets[k], size_t(t.offsets[k + 1] - t.offsets[k])};
}

int rmin_moved(int b, int w) { return tables().moved[rmin_bucket_id(b, w)]; }
uint16_t rmin_inverse(quadrant_t v) { return tables().inverse[v]; }
std::span<const uint16_t> rmin_offsets() { return tables().offsets; }
std::span<const quadrant_t> rmin_flat() { return tables().flat; }
int quadrant_symmetry_exponent(quadrant_t v) { return tables().exponent[v]; }

}  // namespace pentago
