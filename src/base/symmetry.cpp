// Symmetry group arithmetic and its action on sides and boards.
#include "pentago/base/symmetry.h"

#include <limits>
#include <vector>

namespace pentago {

const int source_quadrant[4][4] = {{0, 1, 2, 3}, {1, 3, 0, 2}, {3, 2, 1, 0}, {2, 0, 3, 1}};

namespace {

// Local vector helpers: quadrant i's turns at bits 2i..2i+1.
inline int local_get(int l, int i) { return l >> 2 * i & 3; }

// Conjugation by one CCW turn r: (r w r^-1)_{dest[Q]} = w_Q.
int conj_rotate(int l) {
  static const int dest[4] = {2, 0, 3, 1};
  int out = 0;
  for (int q = 0; q < 4; q++) out |= local_get(l, q) << 2 * dest[q];
  return out;
}

// Conjugation by the reflection s: (s w s)_P = -w_{S(P)}, S swaps 0 and 3.
int conj_reflect(int l) {
  static const int swap03[4] = {3, 1, 2, 0};
  int out = 0;
  for (int p = 0; p < 4; p++) out |= (-local_get(l, swap03[p]) & 3) << 2 * p;
  return out;
}

int local_add(int a, int b) {
  int out = 0;
  for (int i = 0; i < 4; i++) out |= ((local_get(a, i) + local_get(b, i)) & 3) << 2 * i;
  return out;
}

int local_negate(int a) {
  int out = 0;
  for (int i = 0; i < 4; i++) out |= (-local_get(a, i) & 3) << 2 * i;
  return out;
}

std::array<std::array<uint8_t, 256>, 8> make_commute() {
  // commute[g][l] = G^-1 L G = conj_{G^-1}(l).
  std::array<std::array<uint8_t, 256>, 8> t{};
  for (int g = 0; g < 8; g++)
    for (int l = 0; l < 256; l++) t[g][l] = uint8_t(conjugate_local(global_inverse(g), l));
  return t;
}

}  // namespace

int conjugate_local(int global, int local) {
  // G = s^a r^k: conjugate by r^k first, then by s.
  int l = local;
  for (int k = 0; k < (global & 3); k++) l = conj_rotate(l);
  if (global & 4) l = conj_reflect(l);
  return l;
}

const std::array<std::array<uint8_t, 256>, 8> commute_table = make_commute();

int global_inverse(int g) { return g ^ (((~g >> 2) & g & 1) << 1); }

symmetry_t operator*(symmetry_t a, symmetry_t b) {
  const int ag = a.global, bg = b.global;
  const int g = ((ag ^ bg) & 4) | (((ag ^ ((ag & (bg >> 2)) << 1)) + bg) & 3);
  return symmetry_t(g, local_add(commute_table[bg][a.local], b.local));
}

symmetry_t inverse(symmetry_t s) {
  const int gi = global_inverse(s.global);
  return symmetry_t(gi, commute_table[gi][local_negate(s.local)]);
}

side_t transform_side(symmetry_t s, side_t side) {
  const int k = s.global & 3;
  uint16_t quads[4];
  for (int i = 0; i < 4; i++) {
    uint16_t m = uint16_t(side >> 16 * i & 0x1ff);
    for (int t = 0; t < ((k + local_get(s.local, i)) & 3); t++) m = rotate_ccw_table[m];
    quads[i] = m;
  }
  uint16_t moved[4];
  for (int j = 0; j < 4; j++) moved[j] = quads[source_quadrant[k][j]];
  if (s.global & 4) {
    std::swap(moved[0], moved[3]);
    for (auto& m : moved) m = reflect_table[m];
  }
  return side_t(moved[0]) | side_t(moved[1]) << 16 | side_t(moved[2]) << 32 |
         side_t(moved[3]) << 48;
}

namespace {
// Packed-quadrant tables: CCW turns 0..3 and the reflection F, on both colours at once.
struct packed_quadrant_tables_t {
  std::vector<quadrant_t> turned[4];
  std::vector<quadrant_t> reflected;
  packed_quadrant_tables_t() : reflected(quadrant_states) {
    for (auto& t : turned) t.resize(quadrant_states);
    for (int v = 0; v < quadrant_states; v++) {
      quadrant_t q = quadrant_t(v);
      for (int k = 0; k < 4; k++, q = rotate_quadrant_ccw(q)) turned[k][v] = q;
      reflected[v] = reflect_quadrant(quadrant_t(v));
    }
  }
};
const packed_quadrant_tables_t& packed_tables() {
  static const packed_quadrant_tables_t t;
  return t;
}
}  // namespace

board_t transform_board(symmetry_t s, board_t board) {
  const auto& t = packed_tables();
  const int k = s.global & 3;
  quadrant_t quads[4];
  for (int i = 0; i < 4; i++)
    quads[i] = t.turned[(k + local_get(s.local, i)) & 3][quadrant(board, i)];
  quadrant_t moved[4];
  for (int j = 0; j < 4; j++) moved[j] = quads[source_quadrant[k][j]];
  if (s.global & 4) {
    std::swap(moved[0], moved[3]);
    for (auto& m : moved) m = t.reflected[m];
  }
  return quadrants(moved[0], moved[1], moved[2], moved[3]);
}

std::array<int, 4> quadrant_permutation(int global) {
  std::array<int, 4> perm;
  for (int j = 0; j < 4; j++) perm[j] = source_quadrant[global & 3][j];
  if (global & 4) std::swap(perm[0], perm[3]);
  return perm;
}

board_t standardize(board_t board, int* global) {
  board_t best = std::numeric_limits<board_t>::max();
  int best_g = 0;
  for (int g = 0; g < 8; g++) {
    const board_t t = transform_board(symmetry_t(g, 0), board);
    if (t < best) best = t, best_g = g;
  }
  if (global) *global = best_g;
  return best;
}

board_t superstandardize(board_t board, symmetry_t* symmetry) {
  // Rotation-minimize each quadrant under every global symmetry: the minimal board over the
  // 2048 elements is the minimum over g of the board with every quadrant rotation-minimized.
  board_t best = std::numeric_limits<board_t>::max();
  symmetry_t best_s;
  for (int g = 0; g < 8; g++) {
    const board_t t = transform_board(symmetry_t(g, 0), board);
    board_t m = 0;
    int local = 0;
    for (int q = 0; q < 4; q++) {
      quadrant_t v = quadrant(t, q), least = v;
      int least_r = 0;
      for (int r = 1; r < 4; r++) {
        v = rotate_quadrant_ccw(v);
        if (v < least) least = v, least_r = r;
      }
      m |= board_t(least) << 16 * q;
      local |= least_r << 2 * q;
    }
    if (m < best) {
      best = m;
      // Local rotations after g: (0, local) * (g, 0) = (g, commute[g][local]).
      best_s = symmetry_t(0, local) * symmetry_t(g, 0);
    }
  }
  if (symmetry) *symmetry = best_s;
  return best;
}

std::string str_symmetry(symmetry_t s) {
  std::string r = "(" + std::to_string(s.global >> 2) + "," + std::to_string(s.global & 3) + "," +
                  std::to_string(s.local) + "=";
  for (int i = 0; i < 4; i++) r += char('0' + local_get(s.local, i));
  return r + ")";
}

}  // namespace pentago
