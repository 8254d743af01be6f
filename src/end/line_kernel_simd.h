// Internal to end: the node kernel of line compute written once over the vector type V of
// base's SIMD kernels (see pentago/base/simd/super_kernels.h), inside the ISA namespace.
#pragma once
#include <algorithm>
#include <array>
#include <cstring>
#include <type_traits>
#include <utility>

#include "pentago/base/simd/super_kernels.h"
#include "pentago/end/line_kernel.h"

namespace pentago::simd::PENTAGO_ISA {

// ---------------------------------------------------------------------------------------
// super_wins over a whole block. Every win line touches two or three quadrants, so a node's
// wins are the OR of per-group contributions that depend on only two or three of its four
// indices: the groups within quadrants 0-2 are one word pattern per (i0, i1, i2), the pairs
// (a, 3) are tabled per (i_a, i3), and the three lines through quadrant 3 and two others are
// a word pattern per (i0, i1, i2) masked by an axis-3 expansion per i3.

consteval int line_quadrants(int line) {
  int m = 0;
  for (int q = 0; q < 4; q++)
    if (win_line(line) >> 16 * q & 0x1ff) m |= 1 << q;
  return m;
}

struct line_group_t {
  int count = 0;
  int lines[32] = {};
};

consteval line_group_t make_line_group(int quadrants) {
  line_group_t g;
  for (int line = 0; line < 32; line++)
    if (line_quadrants(line) == quadrants) g.lines[g.count++] = line;
  return g;
}

consteval bool lines_grouped() {
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
constexpr line_group_t low_pair_groups[3] = {make_line_group(0b0011), make_line_group(0b0101),
                                             make_line_group(0b0110)};
constexpr line_group_t high_pair_groups[3] = {make_line_group(0b1001), make_line_group(0b1010),
                                              make_line_group(0b1100)};
constexpr line_group_t low_triple = make_line_group(0b0111);
constexpr line_group_t high_triples = []() consteval {
  line_group_t g;
  for (int m : {0b1011, 0b1101, 0b1110}) {
    const line_group_t h = make_line_group(m);
    for (int k = 0; k < h.count; k++) g.lines[g.count++] = h.lines[k];
  }
  return g;
}
();
constexpr auto high_triple_quadrants = []() consteval {
  std::array<int, high_triples.count> m{};
  for (int k = 0; k < high_triples.count; k++) m[k] = line_quadrants(high_triples.lines[k]);
  return m;
}
();

PENTAGO_INLINE uint64_t line_nibble(const nibbles_t& n, int line) {
  return n.h[line >> 4] >> 4 * (line & 15) & 15;
}

// Expansion of a quadrant-q nibble (q < 3) into a word.
PENTAGO_INLINE uint64_t expand_word(int q, uint64_t nibble) {
  const auto& t = super_tables;
  return q == 0 ? t.axis0[nibble] : q == 1 ? t.axis1[nibble] : t.axis2[nibble];
}

// The most lines of one pair group.
constexpr int max_group = []() consteval {
  int m = 0;
  for (int p = 0; p < 3; p++)
    m = std::max({m, low_pair_groups[p].count, high_pair_groups[p].count});
  return m;
}
();

// Per index i < size of quadrant q (q < 3), the expansions of the group's lines.
PENTAGO_INLINE void expand_all(int q, const nibbles_t* n, int size, const line_group_t& group,
                               uint64_t (&out)[8][max_group]) {
  for (int i = 0; i < size; i++)
    for (int k = 0; k < group.count; k++)
      out[i][k] = expand_word(q, line_nibble(n[i], group.lines[k]));
}

// The contributions of one side (per-axis nibbles n[q][i]) to the wins of a block's nodes.
template <class V>
struct block_wins_t {
  uint64_t low[3][8][8];                        // low_pairs[p] = {a, b}: [i_a][i_b]
  V high[3][8][8];                              // high_pairs[p] = {a, 3}: [i_a][i3]
  const super_t* axis3[high_triples.count][8];  // per line through 3, per i3

  // Tables of groups within the quadrants `shared` (a mask) are copied from `same`, a side with
  // the same stones and block shape there (kept as they are where `same` is this side).
  PENTAGO_INLINE void build(const nibbles_t* const n[4], const int shape[4],
                            const block_wins_t* same = nullptr, int shared = 0) {
    // Per pair, compiled with its quadrants and its group's lines fixed.
    [&]<int... p>(std::integer_sequence<int, p...>) {
      (build_low_pair<p>(n, shape, same, shared), ...);
      (build_high_pair<p>(n, shape, same, shared), ...);
    }
    (std::make_integer_sequence<int, 3>());
    for (int k = 0; k < high_triples.count; k++)
      for (int i3 = 0; i3 < shape[3]; i3++)
        axis3[k][i3] = &super_tables.axis3[line_nibble(n[3][i3], high_triples.lines[k])];
  }

  template <int p>
  PENTAGO_INLINE void build_low_pair(const nibbles_t* const n[4], const int shape[4],
                                     const block_wins_t* same, int shared) {
    constexpr int a = __builtin_ctz(low_pairs[p]), b = 31 - __builtin_clz(low_pairs[p]);
    if (same && (low_pairs[p] & ~shared) == 0) {
      if (same != this)
        for (int ia = 0; ia < shape[a]; ia++)
          for (int ib = 0; ib < shape[b]; ib++) low[p][ia][ib] = same->low[p][ia][ib];
      return;
    }
    // Each index's expansions once, then a pair's word is an AND-OR over the group.
    constexpr line_group_t group = low_pair_groups[p];
    uint64_t ea[8][max_group], eb[8][max_group];
    expand_all(a, n[a], shape[a], group, ea);
    expand_all(b, n[b], shape[b], group, eb);
    for (int ia = 0; ia < shape[a]; ia++)
      for (int ib = 0; ib < shape[b]; ib++) {
        uint64_t w = 0;
        for (int k = 0; k < group.count; k++) w |= ea[ia][k] & eb[ib][k];
        low[p][ia][ib] = w;
      }
  }

  template <int p>
  PENTAGO_INLINE void build_high_pair(const nibbles_t* const n[4], const int shape[4],
                                      const block_wins_t* same, int shared) {
    constexpr int a = __builtin_ctz(high_pairs[p]);
    if (same && (high_pairs[p] & ~shared) == 0) {
      if (same != this)
        for (int ia = 0; ia < shape[a]; ia++)
          for (int i3 = 0; i3 < shape[3]; i3++) high[p][ia][i3] = same->high[p][ia][i3];
      return;
    }
    constexpr line_group_t group = high_pair_groups[p];
    uint64_t ea[8][max_group];
    expand_all(a, n[a], shape[a], group, ea);
    const super_t* e3[8][max_group];
    for (int i3 = 0; i3 < shape[3]; i3++)
      for (int k = 0; k < group.count; k++)
        e3[i3][k] = &super_tables.axis3[line_nibble(n[3][i3], group.lines[k])];
    for (int ia = 0; ia < shape[a]; ia++)
      for (int i3 = 0; i3 < shape[3]; i3++) {
        V v = V::zero();
        for (int k = 0; k < group.count; k++) v = v | (V::splat(ea[ia][k]) & V::load(*e3[i3][k]));
        high[p][ia][i3] = v;
      }
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
struct row_wins_t {
  V low;
  V through3[high_triples.count];

  PENTAGO_INLINE void set(const block_wins_t<V>& b, const nibbles_t* const n[4], int i0, int i1,
                          int i2) {
    uint64_t t[high_triples.count];
    low = V::splat(b.low_word(n, i0, i1, i2, t));
    for (int k = 0; k < high_triples.count; k++) through3[k] = V::splat(t[k]);
  }
  PENTAGO_INLINE V node(const block_wins_t<V>& b, int i0, int i1, int i2, int i3) const {
    V v = low | b.high[0][i0][i3] | b.high[1][i1][i3] | b.high[2][i2][i3];
    for (int k = 0; k < high_triples.count; k++) v = v | (through3[k] & V::load(*b.axis3[k][i3]));
    return v;
  }
};

// ---------------------------------------------------------------------------------------
// The node kernel: the recurrence (docs/formats.md, "Supers") over one output block, its loop
// over the empty cells of quadrant d per line block, its last step once per complete block.

// Wins tables of three sides: the mover's and the opponent's (the last step, and slice 35's
// placements), and the mover's with the union of placements on quadrant d.
template <class V>
struct node_sides_t {
  const nibbles_t* n[3][4];
  block_wins_t<V> wins[3];
};

// Per node of a plane, the AND of the children's (win, notlose) shifted along the child axis:
// two arrays of V, or with a pair type P (two supers per register) one array of pairs, so that
// the shifts, rmax and symmetry steps run on both halves at once.
template <class V, class P>
struct child_planes_t {
  V win[8][8], notlose[8][8];
};
template <class V, class P>
requires(!std::is_void_v<P>) struct child_planes_t<V, P> {
  P both[8][8];  // (win, notlose) as laid out in superinfo_t
};

// How far ahead of the node being written the kernel fetches the block it merges with.
constexpr int merge_prefetch_nodes = 32;

// The recurrence's last step on one node's value: where either side has five in a row (w0 the
// mover's wins, w1 the opponent's), those alone decide.
template <class V>
PENTAGO_INLINE void last_step(V w0, V w1, V& win, V& notlose) {
  const V over = w0 | w1;
  win = andnot(over, win) | andnot(w1, w0);
  notlose = andnot(over, notlose) | w0;
}

// Compiled per global symmetry step g, for slice 35 (`last`, whose placements have no children)
// and for the block's last line (`finish`, which applies the last step).
template <class V, class P, int g, bool last, bool finish>
void line_block_kernel_global(const line_block_job_t& job, node_sides_t<V>& sides) {
  constexpr bool paired = !std::is_void_v<P>;
  const int d = job.d;
  superinfo_t* out = job.output;
  const superinfo_t* merge = job.merge_with;  // advances with out where set
  const bool stream = job.stream;
  row_wins_t<V> rows[3];
  // A node's children lie all over the input line, so their loads miss the caches. They are
  // gathered per plane (i0, i1 fixed) in a loop of independent loads that the processor
  // overlaps: per node the AND of the children's (notlose, win) shifted along the child axis,
  // whose complements are the node's (win, notlose) from children before rmax. The same loop
  // prefetches the next plane's (n0, n1) children, a plane's arithmetic ahead of their loads
  // (in the engine the input line has just arrived or been decompressed, and is rarely in the
  // core's caches). It is compiled per child axis, so each child's shift is fixed code.
  child_planes_t<V, P> planes;
  auto gather_plane_along = [&]<int axis>(int i0, int i1, int n0, int n1, bool prefetch) {
    int j[4] = {i0, i1, 0, 0};
    const int next_d = d == 0 ? n0 : d == 1 ? n1 : -1;
    int delta[2];
    for (int k = 0; k < 2; k++)
      delta[k] = job.node_offset[k][0][n0] - job.node_offset[k][0][i0] + job.node_offset[k][1][n1] -
                 job.node_offset[k][1][i1];
    for (j[2] = 0; j[2] < job.shape[2]; j[2]++)
      for (j[3] = 0; j[3] < job.shape[3]; j[3]++) {
        int offset[2];
        for (int k = 0; k < 2; k++)
          offset[k] = job.node_offset[k][0][j[0]] + job.node_offset[k][1][j[1]] +
                      job.node_offset[k][2][j[2]] + job.node_offset[k][3][j[3]];
        if (prefetch) {
          const int jd = next_d < 0 ? j[d] : next_d;
          for (int c = 0; c < job.child_count[jd]; c++) {
            const auto& child = job.children[jd][c];
            __builtin_prefetch(child.base + offset[child.kind] + delta[child.kind], 0, 3);
          }
        }
        if constexpr (paired) {
          P both = P::ones();
          for (int c = 0; c < job.child_count[j[d]]; c++) {
            const auto& child = job.children[j[d]][c];
            both = both & shift_axis(P::load(child.base[offset[child.kind]]), axis, child.shift);
          }
          planes.both[j[2]][j[3]] = both;
        } else {
          V a = V::ones(), b = V::ones();
          for (int c = 0; c < job.child_count[j[d]]; c++) {
            const auto& child = job.children[j[d]][c];
            const superinfo_t& value = child.base[offset[child.kind]];
            a = a & shift_axis(V::load(value.notlose), axis, child.shift);
            b = b & shift_axis(V::load(value.win), axis, child.shift);
          }
          planes.notlose[j[2]][j[3]] = a;
          planes.win[j[2]][j[3]] = b;
        }
      }
  };
  auto gather_plane = [&](int i0, int i1, int n0, int n1, bool prefetch) {
    switch (job.child_axis) {
      case 0:
        return gather_plane_along.template operator()<0>(i0, i1, n0, n1, prefetch);
      case 1:
        return gather_plane_along.template operator()<1>(i0, i1, n0, n1, prefetch);
      case 2:
        return gather_plane_along.template operator()<2>(i0, i1, n0, n1, prefetch);
      default:
        return gather_plane_along.template operator()<3>(i0, i1, n0, n1, prefetch);
    }
  };
  int i[4];
  for (i[0] = 0; i[0] < job.shape[0]; i[0]++)
    for (i[1] = 0; i[1] < job.shape[1]; i[1]++) {
      if constexpr (!last) {
        int n0 = i[0], n1 = i[1] + 1;
        if (n1 == job.shape[1]) n0++, n1 = 0;
        gather_plane(i[0], i[1], n0 < job.shape[0] ? n0 : 0, n1, n0 < job.shape[0]);
      }
      for (i[2] = 0; i[2] < job.shape[2]; i[2]++) {
        // The sides' own wins only for the last step, and the opponent's where a placement
        // fills the board (slice 35).
        if constexpr (finish) rows[0].set(sides.wins[0], sides.n[0], i[0], i[1], i[2]);
        if constexpr (last || finish) rows[1].set(sides.wins[1], sides.n[1], i[0], i[1], i[2]);
        rows[2].set(sides.wins[2], sides.n[2], i[0], i[1], i[2]);
        // The local part of the nodes' symmetry: one byte per quadrant index, ORed.
        [[maybe_unused]] const int row_shift =
            job.node_shift[0][i[0]] | job.node_shift[1][i[1]] | job.node_shift[2][i[2]];
        for (i[3] = 0; i[3] < job.shape[3]; i[3]++, out++) {
          const V placed = rows[2].node(sides.wins[2], i[0], i[1], i[2], i[3]);
          V w1;
          if constexpr (last || finish) w1 = rows[1].node(sides.wins[1], i[0], i[1], i[2], i[3]);
          [[maybe_unused]] const int shift = row_shift | job.node_shift[3][i[3]];
          // The node of the block merged with, which is far from the caches: fetched well ahead
          // (for writing: a middle contribution writes it back in place).
          auto next_merged = [&]() -> const superinfo_t& {
            __builtin_prefetch(merge + merge_prefetch_nodes, 1, 3);
            return *merge++;
          };
          V win, notlose;
          if constexpr (paired && !last) {
            // rmax of the complements is (notlose, win) of the node from its children; the
            // symmetry turns it into the node's frame and its halves into superinfo_t's order.
            P value = transform_swapped<g>(rmax_value(andnot(planes.both[i[2]][i[3]], P::ones())),
                                           shift) |
                      P::widen(placed);
            if (merge) value = value | P::load(next_merged());
            if constexpr (!finish) {
              if (stream)
                value.stream(*out);
              else
                value.store(*out);
              continue;
            }
            win = value.low(), notlose = value.high();
          } else {
            V rwin, rnotlose;
            if constexpr (last) {
              if constexpr (paired) {  // both rmax in one pair
                const P r = rmax_value(P::join(andnot(w1, placed), placed | andnot(w1, V::ones())));
                rwin = r.low(), rnotlose = r.high();
              } else {
                rwin = rmax_value(andnot(w1, placed));
                rnotlose = rmax_value(placed | andnot(w1, V::ones()));
              }
            } else {
              rwin = transform_value<g>(rmax_value(andnot(planes.notlose[i[2]][i[3]], V::ones())),
                                        shift);
              rnotlose =
                  transform_value<g>(rmax_value(andnot(planes.win[i[2]][i[3]], V::ones())), shift);
            }
            win = placed | rwin, notlose = rnotlose;
            if (merge) {
              const superinfo_t& merged = next_merged();
              win = win | V::load(merged.win);
              notlose = notlose | V::load(merged.notlose);
            }
          }
          if constexpr (finish)
            last_step(rows[0].node(sides.wins[0], i[0], i[1], i[2], i[3]), w1, win, notlose);
          if (stream) {
            win.stream(out->win);
            notlose.stream(out->notlose);
          } else {
            win.store(out->win);
            notlose.store(out->notlose);
          }
        }
      }
    }
  if (stream) V::stream_fence();
}

// The recurrence's last step alone over a complete block, in place (a job with step_only).
template <class V>
void finish_block_kernel(const line_block_job_t& job, const node_sides_t<V>& sides) {
  superinfo_t* out = job.output;
  row_wins_t<V> rows[2];
  for (int i0 = 0; i0 < job.shape[0]; i0++)
    for (int i1 = 0; i1 < job.shape[1]; i1++)
      for (int i2 = 0; i2 < job.shape[2]; i2++) {
        for (int side = 0; side < 2; side++)
          rows[side].set(sides.wins[side], sides.n[side], i0, i1, i2);
        for (int i3 = 0; i3 < job.shape[3]; i3++, out++) {
          V win = V::load(out->win), notlose = V::load(out->notlose);
          last_step(rows[0].node(sides.wins[0], i0, i1, i2, i3),
                    rows[1].node(sides.wins[1], i0, i1, i2, i3), win, notlose);
          win.store(out->win);
          notlose.store(out->notlose);
        }
      }
}

// The kernel compiled for each global symmetry step, indexed by the step.
template <class V, class P, bool finish, int... g>
constexpr auto kernels_by_global(std::integer_sequence<int, g...>) {
  return std::array{&line_block_kernel_global<V, P, g, false, finish>...};
}

// The kernel for the job's case: slice 35, or the job's global symmetry step.
template <class V, class P, bool finish>
void line_block_kernel_finishing(const line_block_job_t& job, node_sides_t<V>& sides) {
  if (job.last) return line_block_kernel_global<V, P, 0, true, finish>(job, sides);
  static constexpr auto by_global =
      kernels_by_global<V, P, finish>(std::make_integer_sequence<int, 8>());
  return by_global[job.global & 7](job, sides);
}

// The kernel over one output block with vector type V and, where the ISA has one, the pair
// type P for the children's values (void: none).
template <class V, class P = void>
void line_block_kernel(const line_block_job_t& job) {
  // Per side, the stones and shape of the block whose tables this thread built last: a line's
  // blocks share both on every quadrant but d, so the tables of groups within the others are
  // kept. The opponent's tables are built only for the jobs that read them.
  struct previous_block_t {
    bool valid = false;
    uint64_t epoch = 0;
    int shape[4];
    nibbles_t stones[4][8];

    int kept(const int (&shape_now)[4], const nibbles_t (&now)[4][8]) const {
      int kept = 0;
      for (int q = 0; q < 4; q++)
        if (valid && epoch == detail::kept_line_tables_epoch && shape[q] == shape_now[q] &&
            !std::memcmp(stones[q], now[q], sizeof(nibbles_t) * size_t(shape_now[q])))
          kept |= 1 << q;
      return kept;
    }
    void set(const int (&shape_now)[4], const nibbles_t (&now)[4][8]) {
      valid = true;
      epoch = detail::kept_line_tables_epoch;
      std::memcpy(shape, shape_now, sizeof shape);
      std::memcpy(stones, now, sizeof stones);
    }
  };
  thread_local node_sides_t<V> sides;
  thread_local previous_block_t previous[2];
  for (int q = 0; q < 4; q++) {
    sides.n[0][q] = job.mine[q];
    sides.n[1][q] = job.theirs[q];
    sides.n[2][q] = q == job.d ? job.placed : job.mine[q];
  }
  sides.wins[0].build(sides.n[0], job.shape, &sides.wins[0], previous[0].kept(job.shape, job.mine));
  previous[0].set(job.shape, job.mine);
  if (job.last || job.finish || job.step_only) {
    sides.wins[1].build(sides.n[1], job.shape, &sides.wins[1],
                        previous[1].kept(job.shape, job.theirs));
    previous[1].set(job.shape, job.theirs);
  }
  if (job.step_only) return finish_block_kernel(job, sides);
  sides.wins[2].build(sides.n[2], job.shape, &sides.wins[0], 15 & ~(1 << job.d));
  if (job.finish) return line_block_kernel_finishing<V, P, true>(job, sides);
  return line_block_kernel_finishing<V, P, false>(job, sides);
}

}  // namespace pentago::simd::PENTAGO_ISA
