// Table-driven superstandardization: rotation-minimize each quadrant by lookup, then pick the
// least of the 8 quadrant arrangements given by the global symmetries.
#include "pentago/search/standardize.h"

#include <array>
#include <limits>

namespace pentago {
namespace {

struct quadrant_tables_t {
  std::array<quadrant_t, quadrant_states> ccw;        // one CCW turn
  std::array<quadrant_t, quadrant_states> reflected;  // anti-diagonal reflection
  std::array<quadrant_t, quadrant_states> least;      // least of the 4 rotations
  std::array<uint8_t, quadrant_states> least_turns;   // fewest CCW turns reaching it
};

const quadrant_tables_t& tables() {
  static const quadrant_tables_t t = [] {
    quadrant_tables_t t;
    for (int v = 0; v < quadrant_states; v++) {
      t.ccw[v] = rotate_quadrant_ccw(quadrant_t(v));
      t.reflected[v] = reflect_quadrant(quadrant_t(v));
    }
    for (int v = 0; v < quadrant_states; v++) {
      quadrant_t r = quadrant_t(v), best = r;
      int best_turns = 0;
      for (int k = 1; k < 4; k++) {
        r = t.ccw[r];
        if (r < best) best = r, best_turns = k;
      }
      t.least[v] = best;
      t.least_turns[v] = uint8_t(best_turns);
    }
    return t;
  }();
  return t;
}

// Result quadrant j of global symmetry g holds old quadrant arrangement[g][j].
const std::array<std::array<int, 4>, 8> arrangement = [] {
  std::array<std::array<int, 4>, 8> a;
  for (int g = 0; g < 8; g++) a[g] = quadrant_permutation(g);
  return a;
}();

}  // namespace

board_t fast_superstandardize(board_t board, symmetry_t* symmetry) {
  const quadrant_tables_t& t = tables();
  // A global turn only turns quadrant contents (absorbed by the rotation minimum); a
  // reflection reflects them, and rmin(F(rot^k v)) = rmin(F v).
  quadrant_t plain[4], mirrored[4];
  for (int q = 0; q < 4; q++) {
    const quadrant_t v = quadrant(board, q);
    plain[q] = t.least[v];
    mirrored[q] = t.least[t.reflected[v]];
  }
  board_t best = std::numeric_limits<board_t>::max();
  int best_g = 0;
  for (int g = 0; g < 8; g++) {
    const quadrant_t* source = g & 4 ? mirrored : plain;
    const auto& a = arrangement[g];
    const board_t m = quadrants(source[a[0]], source[a[1]], source[a[2]], source[a[3]]);
    if (m < best) best = m, best_g = g;
  }
  if (symmetry) {
    // Local turns after the global part: quadrant j of (g,0)(board) is old quadrant a[j]
    // turned k times, then reflected if g reflects.
    const auto& a = arrangement[best_g];
    int local = 0;
    for (int j = 0; j < 4; j++) {
      quadrant_t v = quadrant(board, a[j]);
      for (int k = 0; k < (best_g & 3); k++) v = t.ccw[v];
      if (best_g & 4) v = t.reflected[v];
      local |= t.least_turns[v] << 2 * j;
    }
    *symmetry = symmetry_t(0, local) * symmetry_t(best_g, 0);
  }
  return best;
}

}  // namespace pentago
