// Internal: the global part of a symmetry (super_kernels.h's global_part) as at most three
// stages of byte permutations and in-byte bit permutations joined by 8x8 bit transposes, for
// ISAs that have a byte permutation over the whole register (AVX-512 VBMI vpermb) and a
// bit-matrix product per byte (GFNI gf2p8affineqb). Planned at compile time; ISA independent.
//
// A super's bit p = g0 + 4g1 + 16g2 + 64g3 (docs/formats.md, "Supers") lies in byte p >> 3 (p's
// "high" bits 3-7) at bit p & 7 (its "low" bits 0-2). A global symmetry sends p to another position
// y; its map is linear in p's bits (it permutes the four 2-bit axes and, if it reflects, negates
// each). A stage moves every bit within its byte by one map of the low bits and every byte by
// one map of the high bits: it cannot move a bit between the two sides. The transpose (each
// 64-bit word as an 8x8 bit matrix) swaps bits 0-2 with bits 3-5, so the plan routes the
// three bits that must end in the low side through it: no transpose if they are already low,
// one if they are all high, two otherwise (the first moves three other high bits out of the
// way). A negation runs in a stage where the axis's two bits lie on one side; axis 1 is split
// in every layout for one reflection, so it is negated up front by its own step
// (`pre_negate_axis1`: bytes of bit 2 set swapped pairwise). Where the plan has transposes, its
// in-byte bit permutations are then folded into the byte permutations next to them
// (fold_bits_into_bytes), so that it costs one byte permutation per stage and the transposes.
// A symmetry's local part (its rotations) is folded into the same stages (plan_local_global).
#pragma once
#include <array>
#include <cstdint>
#include <utility>

namespace pentago::detail {

struct global_stage_t {
  bool bits = false, bytes = false;       // whether this stage moves bits within bytes / bytes
  uint64_t bit_matrix = 0;                // gf2p8affineqb matrix: byte 7 - b selects output bit b
  std::array<uint8_t, 32> byte_source{};  // output byte j is input byte byte_source[j]
};

struct global_plan_t {
  bool pre_negate_axis1 = false;
  int transposes = 0;  // each stage but the last is followed by a transpose
  global_stage_t stages[3];
};

// Axis j of the result holds old axis perm[j] under global symmetry g (as its quadrants move:
// pentago::quadrant_permutation); g & 4 also negates every axis.
consteval std::array<int, 4> global_axis_permutation(int g) {
  constexpr int source[4][4] = {{0, 1, 2, 3}, {1, 3, 0, 2}, {3, 2, 1, 0}, {2, 0, 3, 1}};
  std::array<int, 4> perm{source[g & 3][0], source[g & 3][1], source[g & 3][2], source[g & 3][3]};
  if (g & 4) std::swap(perm[0], perm[3]);
  return perm;
}

namespace global_planning {

// Where each bit of the current layout came from: position p holds the original bit
// source[p]. A transpose as gf2p8affineqb computes it with the data as the matrix and byte i
// of the other operand 1 << i: output (byte c, bit 7 - B) of each word is input (byte B, bit c).
consteval int transpose_position(int p) {
  const int word = p >> 6, byte = p >> 3 & 7, bit = p & 7;
  return word << 6 | bit << 3 | (7 - byte);
}

// Digit a of index x negated: (hi, lo) -> (hi ^ lo, lo).
consteval int negate_axis(int x, int a) { return x ^ (x >> 2 * a & 1) << (2 * a + 1); }

struct layout_t {
  std::array<int, 256> source{};  // position -> original bit
};

// The position of original bit x under a layout given as: negate the axes in `negated`, then
// put (negated) original index bit order[k] at position bit k.
consteval int route(int x, const std::array<int, 8>& order, int negated) {
  for (int a = 0; a < 4; a++)
    if (negated >> a & 1) x = negate_axis(x, a);
  int p = 0;
  for (int k = 0; k < 8; k++) p |= (x >> order[k] & 1) << k;
  return p;
}

consteval layout_t routed(const std::array<int, 8>& order, int negated) {
  layout_t l;
  for (int x = 0; x < 256; x++) l.source[route(x, order, negated)] = x;
  return l;
}

consteval layout_t transposed(const layout_t& l) {
  layout_t t;
  for (int p = 0; p < 256; p++) t.source[transpose_position(p)] = l.source[p];
  return t;
}

// The stage taking layout `from` to layout `to`; it must move bits within bytes by one map and
// bytes by another.
consteval global_stage_t stage_between(const layout_t& from, const layout_t& to) {
  std::array<int, 256> where{};  // original bit -> position in `to`
  for (int p = 0; p < 256; p++) where[to.source[p]] = p;
  int bit_to[8], byte_to[32];
  for (int p = 0; p < 256; p++) {
    const int q = where[from.source[p]];
    bit_to[p & 7] = q & 7;
    byte_to[p >> 3] = q >> 3;
  }
  global_stage_t s;
  for (int p = 0; p < 256; p++)
    if (where[from.source[p]] != (byte_to[p >> 3] << 3 | bit_to[p & 7]))
      throw "a stage would move a bit between the low and the high side";
  for (int b = 0; b < 8; b++) {
    s.bit_matrix |= uint64_t(1) << (8 * (7 - bit_to[b]) + b);
    s.bits |= bit_to[b] != b;
  }
  for (int j = 0; j < 32; j++) {
    s.byte_source[byte_to[j]] = uint8_t(j);
    s.bytes |= byte_to[j] != j;
  }
  return s;
}

// The axes whose two bits lie on one side (low: bits 0-2 of the position) of a layout order.
consteval int whole_axes(const std::array<int, 8>& order) {
  int side_of[8];
  for (int k = 0; k < 8; k++) side_of[order[k]] = k < 3;
  int m = 0;
  for (int a = 0; a < 4; a++)
    if (side_of[2 * a] == side_of[2 * a + 1]) m |= 1 << a;
  return m;
}

// The order after a transpose of a layout order (positions 0-2 <-> 3-5).
consteval std::array<int, 8> transposed_order(const std::array<int, 8>& order) {
  return {order[3], order[4], order[5], order[0], order[1], order[2], order[6], order[7]};
}

// A stage's map of positions within a super (bits, then bytes).
consteval int stage_position(const global_stage_t& s, int p) {
  int bit = p & 7, byte = p >> 3;
  if (s.bits)
    for (int b = 0; b < 8; b++)
      if (s.bit_matrix >> (8 * (7 - b) + (p & 7)) & 1) bit = b;
  if (s.bytes)
    for (int j = 0; j < 32; j++)
      if (s.byte_source[j] == p >> 3) byte = j;
  return byte << 3 | bit;
}

// Where a whole plan (after the up-front negation) sends position p.
consteval int plan_position(const global_plan_t& plan, int p) {
  for (int s = 0; s <= plan.transposes; s++) {
    p = stage_position(plan.stages[s], p);
    if (s < plan.transposes) p = transpose_position(p);
  }
  return p;
}

// A plan with transposes needs no in-byte bit permutation: a bit permutation b -> sigma(b)
// before a transpose is the byte permutation c -> sigma(c) within each word after it, and one
// after a transpose is the byte permutation j -> 7 - sigma(7 - j) within each word before it.
// Bytes and bits move independently, so each stage's bits join a neighbouring stage's bytes:
// the first stage's bits forward into the second stage, every other stage's backward into the
// stage before. What is left is one vpermb per stage and the transposes.
consteval global_plan_t fold_bits_into_bytes(const global_plan_t& plan) {
  if (plan.transposes == 0) return plan;
  int sigma[3][8], byte_to[3][32];
  for (int s = 0; s <= plan.transposes; s++) {
    for (int b = 0; b < 8; b++) sigma[s][b] = stage_position(plan.stages[s], b) & 7;
    for (int j = 0; j < 32; j++) byte_to[s][j] = stage_position(plan.stages[s], j << 3) >> 3;
  }
  global_plan_t folded = plan;
  for (int s = 0; s <= plan.transposes; s++) {
    global_stage_t& stage = folded.stages[s];
    stage.bits = false;
    stage.bit_matrix = 0;
    stage.bytes = false;
    for (int j = 0; j < 32; j++) {
      const int word = j & ~7;
      int to = j;
      if (s == 1) to = word | sigma[0][to & 7];  // the first stage's bits, forward
      to = byte_to[s][to];
      if (s < plan.transposes)  // the next stage's bits, backward
        to = (to & ~7) | (7 - sigma[s + 1][7 - (to & 7)]);
      stage.byte_source[to] = uint8_t(j);
      stage.bytes |= to != j;
    }
  }
  for (int p = 0; p < 256; p++)
    if (plan_position(folded, p) != plan_position(plan, p))
      throw "folding the bit permutations into the byte permutations changed the plan";
  return folded;
}

}  // namespace global_planning

consteval global_plan_t plan_global(int g) {
  using namespace global_planning;
  const std::array<int, 4> perm = global_axis_permutation(g);
  const bool reflect = g & 4;
  // Final order: position bit 2j + b holds original bit 2 perm[j] + b.
  std::array<int, 8> final_order{};
  for (int j = 0; j < 4; j++)
    for (int b = 0; b < 2; b++) final_order[2 * j + b] = 2 * perm[j] + b;
  const int all = reflect ? 15 : 0;
  bool low_target[8] = {};  // original bits that end at positions 0-2
  int high_targets = 0;
  for (int k = 0; k < 3; k++) {
    low_target[final_order[k]] = true;
    high_targets += final_order[k] >= 3;
  }
  // Orders before each transpose: the bits the transpose must bring low at positions 3-5.
  std::array<std::array<int, 8>, 3> orders{};
  int stages = 1;
  auto fill = [](std::array<int, 8> order, int from) {
    // The original bits not yet placed, in increasing order, at positions from..7.
    bool placed[8] = {};
    for (int k = 0; k < from; k++) placed[order[k]] = true;
    for (int x = 0, k = from; x < 8; x++)
      if (!placed[x]) order[k++] = x;
    return order;
  };
  if (high_targets == 3) {
    std::array<int, 8> o{0, 1, 2};
    for (int x = 3, k = 3; x < 8; x++)
      if (low_target[x]) o[k++] = x;
    orders[0] = fill(o, 6);
    stages = 2;
  } else if (high_targets > 0) {
    // Three high bits that stay high move low and back; prefer leaving axis 1's high bit (3)
    // high, so that axis 1 lies whole on the high side between the transposes.
    std::array<int, 8> o{0, 1, 2};
    int k = 3;
    for (int x = 4; x < 8 && k < 6; x++)
      if (!low_target[x]) o[k++] = x;
    if (k < 6) o[k++] = 3;
    orders[0] = fill(o, 6);
    // Between the transposes: the three now low stay low; the final low bits go to 3-5.
    orders[1] = fill(
        {orders[0][3], orders[0][4], orders[0][5], final_order[0], final_order[1], final_order[2]},
        6);
    stages = 3;
  }
  orders[stages - 1] = final_order;

  // Negate each axis in the first stage where its two bits lie on one side, before and after.
  global_plan_t plan;
  plan.transposes = stages - 1;
  int done = 0;
  std::array<int, 8> before{0, 1, 2, 3, 4, 5, 6, 7};
  int now[3] = {};
  for (int s = 0; s < stages; s++) {
    const int can = whole_axes(before) & whole_axes(orders[s]) & all & ~done;
    done |= can;
    now[s] = done;
    before = transposed_order(orders[s]);
  }
  if (done != all) {
    if ((all & ~done) != 2) throw "only axis 1 can be left to the up-front negation";
    plan.pre_negate_axis1 = true;
    for (int s = 0; s < stages; s++) now[s] |= 2;
  }
  layout_t current = routed({0, 1, 2, 3, 4, 5, 6, 7}, plan.pre_negate_axis1 ? 2 : 0);
  for (int s = 0; s < stages; s++) {
    const layout_t next = routed(orders[s], now[s]);
    plan.stages[s] = stage_between(current, next);
    current = s + 1 < stages ? transposed(next) : next;
  }
  return fold_bits_into_bytes(plan);
}

// ---------------------------------------------------------------------------------------
// A whole symmetry: the local part (shift_all: axis a rotated by k_a = local >> 2a & 3, so
// that out(z) = in(z + k)) folded into the global part's plan. Rotations of different axes
// commute with each other, with the negation of another axis and with any map of whole bytes
// (axes 2 and 3) or of bits within bytes (axis 0). So axis 1, split between the two sides, is
// rotated up front, as a rotation of each 16-bit group by 4 k1 (before pre_negate_axis1, which
// acts on the same axis); axes 2 and 3 (byte bits 1-4) join stage 0's byte permutation; axis 0
// (in-byte bits 0-1) joins stage 0's bit permutation in a plan without transposes, and in one
// with transposes passes the first transpose as a byte permutation within each word and joins
// stage 1's. The stages that do not depend on the local part are the global plan's.
// global_plan_test runs the result for every symmetry against transform_super.
struct local_global_plan_t {
  global_plan_t plan;
  std::array<uint8_t, 32> first_bytes[16];  // stage 0's byte_source per k2 | k3 << 2
  uint64_t first_bits[4] = {};              // no transposes: stage 0's bit matrix per k0
  std::array<uint8_t, 32> second_bytes[4];  // transposes: stage 1's byte_source per k0
};

namespace global_planning {

consteval int byte_source_of(const global_stage_t& s, int j) {
  return s.bytes ? s.byte_source[j] : j;
}

// The input bit that a stage's bit permutation puts at bit b.
consteval int bit_source_of(const global_stage_t& s, int b) {
  if (!s.bits) return b;
  for (int x = 0; x < 8; x++)
    if (s.bit_matrix >> (8 * (7 - b) + x) & 1) return x;
  throw "a bit matrix row without a bit";
}

// Axis 0 (in-byte bits 0-1) rotated by k0: the input bit that lands at bit b.
consteval int axis0_bit_source(int k0, int b) { return (b & 4) | ((b & 3) + k0) % 4; }

}  // namespace global_planning

consteval local_global_plan_t plan_local_global(int g) {
  using namespace global_planning;
  local_global_plan_t lp;
  lp.plan = plan_global(g);
  const global_stage_t& s0 = lp.plan.stages[0];
  for (int k23 = 0; k23 < 16; k23++)
    for (int j = 0; j < 32; j++) {
      // Output byte j takes stage 0's source byte i, which the rotation of axes 2 and 3 takes
      // from the byte with those axes k2 and k3 further on.
      const int i = byte_source_of(s0, j);
      const int a2 = ((i >> 1 & 3) + (k23 & 3)) & 3, a3 = ((i >> 3 & 3) + (k23 >> 2)) & 3;
      lp.first_bytes[k23][j] = uint8_t((i & 1) | a2 << 1 | a3 << 3);
    }
  for (int k0 = 0; k0 < 4; k0++) {
    if (lp.plan.transposes == 0) {
      for (int b = 0; b < 8; b++)
        lp.first_bits[k0] |= uint64_t(1)
                             << (8 * (7 - b) + axis0_bit_source(k0, bit_source_of(s0, b)));
    } else {
      // Before a transpose, output bit b from input bit sigma(b) is, after it, output byte c from
      // input byte sigma(c) within each word.
      for (int j = 0; j < 32; j++) {
        const int i = byte_source_of(lp.plan.stages[1], j);
        lp.second_bytes[k0][j] = uint8_t((i & ~7) | axis0_bit_source(k0, i & 7));
      }
    }
  }
  return lp;
}

}  // namespace pentago::detail
