// Halfsuper split, merge and wins: the parity-p half of a super (docs/formats.md, "Supers"), and
// the parity halves of super_wins built directly from per-line quadrant tables.
#include "pentago/mid/halfsuper.h"

#include <array>

namespace pentago {
namespace {

// The rotation (g0, g1, g2, g3) of bit j of the parity-p half.
struct rotation_t {
  int g0, g1, g2, g3;
};
constexpr rotation_t half_rotation(int j, int parity) {
  const int a = j & 1, b = j >> 1 & 3, c = j >> 3 & 3, d = j >> 5 & 3;
  return {2 * a + ((b + c + d + parity) & 1), b, c, d};
}

struct wins_tables_t {
  // covered[q][mask]: bit 4 line + r set iff quadrant q's `mask`, turned CCW r times, holds
  // every cell of win line `line` inside quadrant q (all four r for lines missing q).
  std::array<std::array<std::array<uint8_t, 32>, 512>, 4> covered{};
  // The halfsuper bits whose rotation of quadrant q lies in a 4-bit set of turns; quadrant 0
  // depends on the parity.
  halfsuper_t axis0[2][16], axis1[16], axis2[16], axis3[16];
};

wins_tables_t make_tables() {
  wins_tables_t t;
  for (int q = 0; q < 4; q++)
    for (int mask = 0; mask < 512; mask++) {
      side_t rotated = side_t(mask) << 16 * q;
      for (int r = 0; r < 4; r++) {
        for (int line = 0; line < 32; line++) {
          const side_t cells = win_lines[line] & side_t(0x1ff) << 16 * q;
          if ((rotated & cells) == cells) t.covered[q][mask][line] |= uint8_t(1 << r);
        }
        rotated = rotate_side(rotated, q, 1);
      }
    }
  for (int set = 0; set < 16; set++) {
    halfsuper_t e0[2] = {halfsuper_t::zero(), halfsuper_t::zero()};
    halfsuper_t e1 = halfsuper_t::zero(), e2 = e1, e3 = e1;
    for (int j = 0; j < 128; j++) {
      for (int p = 0; p < 2; p++)
        if (set >> half_rotation(j, p).g0 & 1) e0[p].set(j);
      const rotation_t g = half_rotation(j, 0);
      if (set >> g.g1 & 1) e1.set(j);
      if (set >> g.g2 & 1) e2.set(j);
      if (set >> g.g3 & 1) e3.set(j);
    }
    t.axis0[0][set] = e0[0], t.axis0[1][set] = e0[1];
    t.axis1[set] = e1, t.axis2[set] = e2, t.axis3[set] = e3;
  }
  return t;
}

const wins_tables_t& tables() {
  static const wins_tables_t t = make_tables();
  return t;
}

}  // namespace

namespace detail {
void copy_halfsuper_wins_tables(uint8_t (&covered)[4][512][32], halfsuper_t (&axes)[5][16]) {
  const wins_tables_t& t = tables();
  for (int q = 0; q < 4; q++)
    for (int mask = 0; mask < 512; mask++)
      for (int line = 0; line < 32; line++) covered[q][mask][line] = t.covered[q][mask][line];
  for (int set = 0; set < 16; set++) {
    axes[0][set] = t.axis0[0][set];
    axes[1][set] = t.axis0[1][set];
    axes[2][set] = t.axis1[set];
    axes[3][set] = t.axis2[set];
    axes[4][set] = t.axis3[set];
  }
}
}  // namespace detail

halfsuper_t split_super(const super_t& s, int parity) {
  halfsuper_t h = halfsuper_t::zero();
  for (int j = 0; j < 128; j++) {
    const rotation_t g = half_rotation(j, parity);
    if (s(g.g0, g.g1, g.g2, g.g3)) h.set(j);
  }
  return h;
}

super_t merge_halves(halfsuper_t h0, halfsuper_t h1) {
  super_t s;
  for (int p = 0; p < 2; p++)
    for (int j = 0; j < 128; j++)
      if ((p ? h1 : h0)(j)) {
        const rotation_t g = half_rotation(j, p);
        s.set(g.g0 + 4 * g.g1 + 16 * g.g2 + 64 * g.g3);
      }
  return s;
}

std::pair<halfsuper_t, halfsuper_t> halfsuper_wins_both(side_t side) noexcept {
  const wins_tables_t& t = tables();
  const auto& c0 = t.covered[0][side & 0x1ff];
  const auto& c1 = t.covered[1][side >> 16 & 0x1ff];
  const auto& c2 = t.covered[2][side >> 32 & 0x1ff];
  const auto& c3 = t.covered[3][side >> 48 & 0x1ff];
  halfsuper_t h0 = halfsuper_t::zero(), h1 = halfsuper_t::zero();
  for (int line = 0; line < 32; line++) {
    if (!c0[line] || !c1[line] || !c2[line] || !c3[line]) continue;
    const halfsuper_t rest = t.axis1[c1[line]] & t.axis2[c2[line]] & t.axis3[c3[line]];
    h0 = h0 | (rest & t.axis0[0][c0[line]]);
    h1 = h1 | (rest & t.axis0[1][c0[line]]);
  }
  return {h0, h1};
}

halfsuper_t halfsuper_wins(side_t side, int parity) noexcept {
  const auto both = halfsuper_wins_both(side);
  return parity ? both.second : both.first;
}

}  // namespace pentago
