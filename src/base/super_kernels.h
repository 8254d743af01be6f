// Private: the super kernels written once over a 256-bit vector type V, instantiated per SIMD
// level (super_portable.cpp, super_sse.cpp, super_avx2.cpp). V provides:
//   load/store, zero, ones, splat(x), &, |, ^, andnot(a, b) = ~a & b,
//   shl64/shr64(v, r)        per 64-bit word shifts, 0 <= r <= 64 (64 gives 0),
//   shl16/shr16(v, r)        per 16-bit group shifts, 0 <= r <= 16 (16 gives 0),
//   groups<p0..p3>(v)        in every word, group j (16 bits) of the result is group p_j,
//   words<p0..p3>(v)         word j of the result is word p_j,
//   rotr_words(v, k)         word i of the result is word (i + k) & 3, k at run time,
//   transpose_groups(v)      group j of word i of the result is group i of word j,
//   has_nibble_map, nibble_map(v, t0, t1)  (if has_nibble_map) every nibble n replaced by
//                            byte n of the 16-byte table t1:t0 (entries below 16).
// Bit g0 + 4g1 + 16g2 + 64g3 holds rotation (g0, g1, g2, g3): axis 0 runs inside nibbles, axis
// 1 over the nibbles of a 16-bit group, axis 2 over the groups of a word, axis 3 over words.
#pragma once
#include <array>
#include <utility>

#include "super_tables.h"

// The kernels are built from many small steps that must all be inlined into them.
#define PENTAGO_INLINE inline __attribute__((always_inline))

namespace pentago::detail {

constexpr uint64_t rep4(uint64_t nibble) { return nibble * 0x1111111111111111ULL; }

// ---------------------------------------------------------------------------------------
// Cyclic shifts along one axis: out(z) = in(z + k e_axis), 0 <= k < 4 at run time.

template <class V>
PENTAGO_INLINE V shift_axis(V x, int axis, int k) {
  switch (axis) {
    case 0: {
      const V low = V::splat(super_tables.rotate_low[k]);
      return (shr64(x, k) & low) | andnot(low, shl64(x, 4 - k));
    }
    case 1:
      return shr16(x, 4 * k) | shl16(x, 16 - 4 * k);
    case 2:
      return shr64(x, 16 * k) | shl64(x, 64 - 16 * k);
    default:
      return rotr_words(x, k);
  }
}

// All four axes at once: axis a shifted by (local >> 2a) & 3.
template <class V>
PENTAGO_INLINE V shift_all(V x, int local) {
  for (int a = 0; a < 4; a++) x = shift_axis(x, a, local >> 2 * a & 3);
  return x;
}

// ---------------------------------------------------------------------------------------
// rmax: along each axis, x(z + e) | x(z - e) = y(z + e) with y(z) = x(z) | x(z + 2e).

// Bytes 8 half .. 8 half + 7 of the table n -> (n rotated down by 1) | (n rotated up by 1).
constexpr uint64_t neighbor_nibble(int half) {
  uint64_t t = 0;
  for (int n = 8 * half; n < 8 * half + 8; n++) {
    const int r = ((n >> 1 | n << 3) | (n << 1 | n >> 3)) & 15;
    t |= uint64_t(r) << 8 * (n - 8 * half);
  }
  return t;
}

template <class V>
PENTAGO_INLINE V rmax_value(V x) {
  V a0;
  if constexpr (V::has_nibble_map) {
    a0 = nibble_map(x, neighbor_nibble(0), neighbor_nibble(1));
  } else {
    const V y = x | shr64(x, 2);  // bits 0, 1 of each nibble: x0 | x2, x1 | x3
    const V s = (shr64(y, 1) & V::splat(rep4(1))) | (shl64(y, 1) & V::splat(rep4(2)));
    a0 = s | shl64(s, 2);
  }
  const V y1 = x | shr16(x, 8) | shl16(x, 8);
  const V a1 = shr16(y1, 4) | shl16(y1, 12);
  const V a2 = groups<1, 2, 3, 0>(x | groups<2, 3, 0, 1>(x));
  const V a3 = words<1, 2, 3, 0>(x | words<2, 3, 0, 1>(x));
  return (a0 | a1) | (a2 | a3);
}

template <class V>
void rmax_kernel(const super_t& in, super_t& out) {
  rmax_value(V::load(in)).store(out);
}

// ---------------------------------------------------------------------------------------
// super_wins from the win nibbles of each quadrant's stones.

template <class V>
PENTAGO_INLINE V wins_value(const nibbles_t& q0, const nibbles_t& q1, const nibbles_t& q2,
                            const nibbles_t& q3) {
  const auto& t = super_tables;
  V acc = V::zero();
  for (int h = 0; h < 2; h++) {
    const uint64_t n0 = q0.h[h], n1 = q1.h[h], n2 = q2.h[h], n3 = q3.h[h];
    auto nonzero = [](uint64_t n) { return (n | n >> 1 | n >> 2 | n >> 3) & rep4(1); };
    uint64_t live = nonzero(n0) & nonzero(n1) & nonzero(n2) & nonzero(n3);
    while (live) {
      const int s = __builtin_ctzll(live);
      live &= live - 1;
      const uint64_t m = t.axis0[n0 >> s & 15] & t.axis1[n1 >> s & 15] & t.axis2[n2 >> s & 15];
      acc = acc | (V::splat(m) & V::load(t.axis3[n3 >> s & 15]));
    }
  }
  return acc;
}

PENTAGO_INLINE const nibbles_t& side_nibbles(side_t side, int q) {
  return super_tables.win_nibbles[q][side >> 16 * q & 0x1ff];
}

template <class V>
void wins_kernel(side_t side, super_t& out) {
  wins_value<V>(side_nibbles(side, 0), side_nibbles(side, 1), side_nibbles(side, 2),
                side_nibbles(side, 3))
      .store(out);
}

// ---------------------------------------------------------------------------------------
// The global part of a symmetry: a permutation of the axes (as the quadrants move), then, if
// it reflects, every axis negated. Written as a fixed list of elementary steps per global.

enum class step { swap01, swap02, swap12, swap23, neg0, neg1, neg2, neg3 };

struct global_steps {
  int count = 0;
  step steps[16] = {};
};

constexpr global_steps make_global_steps(int g) {
  // Quadrant j of the result holds old quadrant perm[j] (pentago::quadrant_permutation).
  constexpr int source[4][4] = {{0, 1, 2, 3}, {1, 3, 0, 2}, {3, 2, 1, 0}, {2, 0, 3, 1}};
  int perm[4] = {source[g & 3][0], source[g & 3][1], source[g & 3][2], source[g & 3][3]};
  if (g & 4) std::swap(perm[0], perm[3]);
  global_steps r;
  // Axis transpositions sorting the identity into perm; those with axis 3 go through axis 2.
  int cur[4] = {0, 1, 2, 3};
  for (int p = 0; p < 4; p++) {
    int q = p;
    while (cur[q] != perm[p]) q++;
    if (q == p) continue;
    const step to2 = p == 0 ? step::swap02 : step::swap12;
    if (q == 3 && p < 2) {
      r.steps[r.count++] = to2;
      r.steps[r.count++] = step::swap23;
      r.steps[r.count++] = to2;
    } else {
      r.steps[r.count++] = q == 3 ? step::swap23 : q == 2 ? to2 : step::swap01;
    }
    std::swap(cur[p], cur[q]);
  }
  if (g & 4)
    for (step s : {step::neg0, step::neg1, step::neg2, step::neg3}) r.steps[r.count++] = s;
  return r;
}

// Positions (within a word) with bit x set and bit y clear.
constexpr uint64_t swap_mask(int x, int y) {
  uint64_t m = 0;
  for (int p = 0; p < 64; p++)
    if ((p >> x & 1) && !(p >> y & 1)) m |= uint64_t(1) << p;
  return m;
}

// Swaps every position in mask M with the one D above it, inside each word.
template <int D, uint64_t M, class V>
PENTAGO_INLINE V delta_swap(V v) {
  const V t = (v ^ shr64(v, D)) & V::splat(M);
  return v ^ t ^ shl64(t, D);
}

// Exchanges axes p < q < 3: index bits 2p + b and 2q + b for b = 0, 1.
template <int p, int q, class V>
PENTAGO_INLINE V swap_axes(V v) {
  v = delta_swap<(1 << 2 * q) - (1 << 2 * p), swap_mask(2 * p, 2 * q)>(v);
  return delta_swap<(2 << 2 * q) - (2 << 2 * p), swap_mask(2 * p + 1, 2 * q + 1)>(v);
}

template <step s, class V>
PENTAGO_INLINE V apply_step(V v) {
  if constexpr (s == step::swap01) return swap_axes<0, 1>(v);
  if constexpr (s == step::swap02) return swap_axes<0, 2>(v);
  if constexpr (s == step::swap12) return swap_axes<1, 2>(v);
  if constexpr (s == step::swap23) return transpose_groups(v);
  // Negation g -> -g swaps coordinates 1 and 3 (bit 2a set and 2a + 1 clear, 2 << 2a apart).
  if constexpr (s == step::neg0) return delta_swap<2, swap_mask(0, 1)>(v);
  if constexpr (s == step::neg1) return delta_swap<8, swap_mask(2, 3)>(v);
  if constexpr (s == step::neg2) return groups<0, 3, 2, 1>(v);
  if constexpr (s == step::neg3) return words<0, 3, 2, 1>(v);
}

template <int g, class V, size_t... i>
PENTAGO_INLINE V apply_global_steps(V v, std::index_sequence<i...>) {
  constexpr global_steps steps = make_global_steps(g);
  ((v = apply_step<steps.steps[i]>(v)), ...);
  return v;
}

template <int g, class V>
PENTAGO_INLINE V global_part(V v) {
  return apply_global_steps<g>(v, std::make_index_sequence<make_global_steps(g).count>());
}

template <class V>
void transform_kernel(symmetry_t s, const super_t& in, super_t& out) {
  const V v = shift_all(V::load(in), s.local);
  V r;
  switch (s.global & 7) {
    case 0:
      r = v;
      break;
    case 1:
      r = global_part<1>(v);
      break;
    case 2:
      r = global_part<2>(v);
      break;
    case 3:
      r = global_part<3>(v);
      break;
    case 4:
      r = global_part<4>(v);
      break;
    case 5:
      r = global_part<5>(v);
      break;
    case 6:
      r = global_part<6>(v);
      break;
    default:
      r = global_part<7>(v);
      break;
  }
  r.store(out);
}

// ---------------------------------------------------------------------------------------
// super_wins over a whole block. Every win line touches two or three quadrants, so a node's
// wins are the OR of per-group contributions that depend on only two or three of its four
// indices: the groups within quadrants 0-2 are one word pattern per (i0, i1, i2), the pairs
// (a, 3) are tabled per (i_a, i3), and the three lines through quadrant 3 and two others are
// a word pattern per (i0, i1, i2) masked by an axis-3 expansion per i3.

constexpr int line_quadrants(int line) {
  int m = 0;
  for (int q = 0; q < 4; q++)
    if (win_line(line) >> 16 * q & 0x1ff) m |= 1 << q;
  return m;
}

struct line_group {
  int count = 0;
  int lines[32] = {};
};

constexpr line_group make_line_group(int quadrants) {
  line_group g;
  for (int line = 0; line < 32; line++)
    if (line_quadrants(line) == quadrants) g.lines[g.count++] = line;
  return g;
}

constexpr bool lines_grouped() {
  for (int line = 0; line < 32; line++) {
    const int m = line_quadrants(line);
    if (__builtin_popcount(m) < 2 || __builtin_popcount(m) > 3) return false;
  }
  return true;
}
static_assert(lines_grouped(), "every win line must touch two or three quadrants");

// Quadrant sets: pairs within 0-2, pairs with 3, the triple 0-2, triples with 3.
constexpr int low_pairs[3] = {0b0011, 0b0101, 0b0110};
constexpr int high_pairs[3] = {0b1001, 0b1010, 0b1100};
constexpr line_group low_pair_groups[3] = {make_line_group(0b0011), make_line_group(0b0101),
                                           make_line_group(0b0110)};
constexpr line_group high_pair_groups[3] = {make_line_group(0b1001), make_line_group(0b1010),
                                            make_line_group(0b1100)};
constexpr line_group low_triple = make_line_group(0b0111);
constexpr line_group high_triples = [] {
  line_group g;
  for (int m : {0b1011, 0b1101, 0b1110}) {
    const line_group h = make_line_group(m);
    for (int k = 0; k < h.count; k++) g.lines[g.count++] = h.lines[k];
  }
  return g;
}();
constexpr auto high_triple_quadrants = [] {
  std::array<int, high_triples.count> m{};
  for (int k = 0; k < high_triples.count; k++) m[k] = line_quadrants(high_triples.lines[k]);
  return m;
}();

PENTAGO_INLINE uint64_t line_nibble(const nibbles_t& n, int line) {
  return n.h[line >> 4] >> 4 * (line & 15) & 15;
}

// Expansion of a quadrant-q nibble (q < 3) into a word.
PENTAGO_INLINE uint64_t expand_word(int q, uint64_t nibble) {
  const auto& t = super_tables;
  return q == 0 ? t.axis0[nibble] : q == 1 ? t.axis1[nibble] : t.axis2[nibble];
}

// The contributions of one side (per-axis nibbles n[q][i]) to the wins of a block's nodes.
template <class V>
struct block_wins {
  uint64_t low[3][8][8];                        // low_pairs[p] = {a, b}: [i_a][i_b]
  V high[3][8][8];                              // high_pairs[p] = {a, 3}: [i_a][i3]
  const super_t* axis3[high_triples.count][8];  // per line through 3, per i3

  // Tables of groups within the quadrants `shared` (a mask) are copied from `same`, a side with
  // the same stones there.
  PENTAGO_INLINE void build(const nibbles_t* const n[4], const int shape[4],
                            const block_wins* same = nullptr, int shared = 0) {
    for (int p = 0; p < 3; p++) {
      const int a = __builtin_ctz(low_pairs[p]), b = 31 - __builtin_clz(low_pairs[p]);
      if (same && (low_pairs[p] & ~shared) == 0) {
        for (int ia = 0; ia < shape[a]; ia++)
          for (int ib = 0; ib < shape[b]; ib++) low[p][ia][ib] = same->low[p][ia][ib];
        continue;
      }
      const line_group& group = low_pair_groups[p];
      for (int ia = 0; ia < shape[a]; ia++)
        for (int ib = 0; ib < shape[b]; ib++) {
          uint64_t w = 0;
          for (int k = 0; k < group.count; k++) {
            const int line = group.lines[k];
            w |= expand_word(a, line_nibble(n[a][ia], line)) &
                 expand_word(b, line_nibble(n[b][ib], line));
          }
          low[p][ia][ib] = w;
        }
    }
    for (int p = 0; p < 3; p++) {
      const int a = __builtin_ctz(high_pairs[p]);
      if (same && (high_pairs[p] & ~shared) == 0) {
        for (int ia = 0; ia < shape[a]; ia++)
          for (int i3 = 0; i3 < shape[3]; i3++) high[p][ia][i3] = same->high[p][ia][i3];
        continue;
      }
      const line_group& group = high_pair_groups[p];
      for (int ia = 0; ia < shape[a]; ia++)
        for (int i3 = 0; i3 < shape[3]; i3++) {
          V v = V::zero();
          for (int k = 0; k < group.count; k++) {
            const int line = group.lines[k];
            const uint64_t w = expand_word(a, line_nibble(n[a][ia], line));
            if (w) v = v | (V::splat(w) & V::load(super_tables.axis3[line_nibble(n[3][i3], line)]));
          }
          high[p][ia][i3] = v;
        }
    }
    for (int k = 0; k < high_triples.count; k++)
      for (int i3 = 0; i3 < shape[3]; i3++)
        axis3[k][i3] = &super_tables.axis3[line_nibble(n[3][i3], high_triples.lines[k])];
  }

  // The part of nodes (i0, i1, i2, *) that does not depend on i3, as a word, and the words of
  // the lines through quadrant 3 and two others.
  PENTAGO_INLINE uint64_t low_word(const nibbles_t* const n[4], int i0, int i1, int i2,
                                   uint64_t (&through3)[high_triples.count]) const {
    const int i[3] = {i0, i1, i2};
    uint64_t w = low[0][i0][i1] | low[1][i0][i2] | low[2][i1][i2];
    for (int k = 0; k < low_triple.count; k++) {
      const int line = low_triple.lines[k];
      w |= expand_word(0, line_nibble(n[0][i0], line)) &
           expand_word(1, line_nibble(n[1][i1], line)) &
           expand_word(2, line_nibble(n[2][i2], line));
    }
    for (int k = 0; k < high_triples.count; k++) {
      const int line = high_triples.lines[k];
      uint64_t m = ~uint64_t(0);
      for (int q = 0; q < 3; q++)
        if (high_triple_quadrants[k] >> q & 1) m &= expand_word(q, line_nibble(n[q][i[q]], line));
      through3[k] = m;
    }
    return w;
  }
};

// Per-(i0, i1, i2) state of one side: the low word and the lines through quadrant 3.
template <class V>
struct row_wins {
  V low;
  V through3[high_triples.count];

  PENTAGO_INLINE void set(const block_wins<V>& b, const nibbles_t* const n[4], int i0, int i1,
                          int i2) {
    uint64_t t[high_triples.count];
    low = V::splat(b.low_word(n, i0, i1, i2, t));
    for (int k = 0; k < high_triples.count; k++) through3[k] = V::splat(t[k]);
  }
  PENTAGO_INLINE V node(const block_wins<V>& b, int i0, int i1, int i2, int i3) const {
    V v = low | b.high[0][i0][i3] | b.high[1][i1][i3] | b.high[2][i2][i3];
    for (int k = 0; k < high_triples.count; k++) v = v | (through3[k] & V::load(*b.axis3[k][i3]));
    return v;
  }
};

// ---------------------------------------------------------------------------------------
// The node kernel: the recurrence of core reference §3.6 over one output block.

// Wins tables of the three sides a node needs: the mover's, the opponent's, and the mover's
// with the union of placements on quadrant d.
template <class V>
struct node_sides {
  const nibbles_t* n[3][4];
  block_wins<V> wins[3];
};

template <class V, int g>
void line_block_kernel_global(const line_block_job& job, node_sides<V>& sides) {
  const int d = job.d, axis = job.child_axis;
  superinfo_t* out = job.output;
  row_wins<V> rows[3];
  // A node's children lie all over the input line, so their loads miss the caches. They are
  // gathered per plane (i0, i1 fixed) in a loop of independent loads that the processor
  // overlaps: per node the AND of the children's (notlose, win) shifted along the child axis,
  // whose complements are the node's (win, notlose) from children before rmax.
  V plane_notlose[8][8], plane_win[8][8];
  auto gather_plane = [&](int i0, int i1) {
    int j[4] = {i0, i1, 0, 0};
    for (j[2] = 0; j[2] < job.shape[2]; j[2]++)
      for (j[3] = 0; j[3] < job.shape[3]; j[3]++) {
        int offset[2];
        for (int k = 0; k < 2; k++)
          offset[k] = job.node_offset[k][0][j[0]] + job.node_offset[k][1][j[1]] +
                      job.node_offset[k][2][j[2]] + job.node_offset[k][3][j[3]];
        V a = V::ones(), b = V::ones();
        for (int c = 0; c < job.child_count[j[d]]; c++) {
          const auto& child = job.children[j[d]][c];
          const superinfo_t& value = child.base[offset[child.kind]];
          a = a & shift_axis(V::load(value.notlose), axis, child.shift);
          b = b & shift_axis(V::load(value.win), axis, child.shift);
        }
        plane_notlose[j[2]][j[3]] = a;
        plane_win[j[2]][j[3]] = b;
      }
  };
  int i[4];
  for (i[0] = 0; i[0] < job.shape[0]; i[0]++)
    for (i[1] = 0; i[1] < job.shape[1]; i[1]++) {
      if (!job.last) gather_plane(i[0], i[1]);
      for (i[2] = 0; i[2] < job.shape[2]; i[2]++) {
        for (int side = 0; side < 3; side++)
          rows[side].set(sides.wins[side], sides.n[side], i[0], i[1], i[2]);
        for (i[3] = 0; i[3] < job.shape[3]; i[3]++, out++) {
          const V w0 = rows[0].node(sides.wins[0], i[0], i[1], i[2], i[3]);
          const V w1 = rows[1].node(sides.wins[1], i[0], i[1], i[2], i[3]);
          const V placed = rows[2].node(sides.wins[2], i[0], i[1], i[2], i[3]);
          V rwin, rnotlose;
          if (job.last) {
            rwin = rmax_value(andnot(w1, placed));
            rnotlose = rmax_value(placed | andnot(w1, V::ones()));
          } else {
            int shift = 0;
            for (int q = 0; q < 4; q++) shift |= job.node_shift[q][i[q]];
            rwin = rmax_value(andnot(plane_notlose[i[2]][i[3]], V::ones()));
            rnotlose = rmax_value(andnot(plane_win[i[2]][i[3]], V::ones()));
            if (shift) rwin = shift_all(rwin, shift), rnotlose = shift_all(rnotlose, shift);
            if constexpr (g != 0) rwin = global_part<g>(rwin), rnotlose = global_part<g>(rnotlose);
          }
          const V imm = w0 | w1;
          (andnot(imm, placed | rwin) | andnot(w1, w0)).store(out->win);
          (andnot(imm, rnotlose) | w0).store(out->notlose);
        }
      }
    }
}

template <class V>
void line_block_kernel(const line_block_job& job) {
  node_sides<V> sides;
  for (int q = 0; q < 4; q++) {
    sides.n[0][q] = job.mine[q];
    sides.n[1][q] = job.theirs[q];
    sides.n[2][q] = q == job.d ? job.placed : job.mine[q];
  }
  sides.wins[0].build(sides.n[0], job.shape);
  sides.wins[1].build(sides.n[1], job.shape);
  sides.wins[2].build(sides.n[2], job.shape, &sides.wins[0], 15 & ~(1 << job.d));
  switch (job.last ? 0 : job.global & 7) {
    case 0:
      return line_block_kernel_global<V, 0>(job, sides);
    case 1:
      return line_block_kernel_global<V, 1>(job, sides);
    case 2:
      return line_block_kernel_global<V, 2>(job, sides);
    case 3:
      return line_block_kernel_global<V, 3>(job, sides);
    case 4:
      return line_block_kernel_global<V, 4>(job, sides);
    case 5:
      return line_block_kernel_global<V, 5>(job, sides);
    case 6:
      return line_block_kernel_global<V, 6>(job, sides);
    default:
      return line_block_kernel_global<V, 7>(job, sides);
  }
}

template <class V>
constexpr super_kernels make_kernels() {
  return super_kernels{rmax_kernel<V>, wins_kernel<V>, transform_kernel<V>};
}

template <class V>
constexpr internal_kernels make_internal_kernels() {
  return internal_kernels{line_block_kernel<V>};
}

}  // namespace pentago::detail
