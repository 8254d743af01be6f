// The plan of the global symmetry steps for byte-permuting ISAs (global_plan.h), run by a
// scalar model of the instructions it names (a byte permutation, gf2p8affineqb by its
// definition, the transpose as gf2p8affineqb with the data as the matrix, a rotation of 16-bit
// groups), equals transform_super of the portable kernels for every global symmetry, and with
// the local part folded in for every symmetry, on random supers.
#include "pentago/base/simd/global_plan.h"

#include <gtest/gtest.h>

#include <random>

#include "pentago/base/super.h"
#include "pentago/base/symmetry.h"

using namespace pentago;
using namespace pentago::detail;

namespace {

using bytes_t = std::array<uint8_t, 32>;

bytes_t to_bytes(const super_t& s) {
  bytes_t b;
  for (int i = 0; i < 32; i++) b[i] = uint8_t(s.w[i / 8] >> 8 * (i % 8));
  return b;
}

super_t from_bytes(const bytes_t& b) {
  super_t s;
  for (int i = 0; i < 4; i++) s.w[i] = 0;
  for (int i = 0; i < 32; i++) s.w[i / 8] |= uint64_t(b[i]) << 8 * (i % 8);
  return s;
}

// gf2p8affineqb without the constant: bit b of each result byte is the parity of
// (byte 7 - b of the word's matrix) AND (the byte).
bytes_t gf2p8affine(const bytes_t& x, const bytes_t& matrix) {
  bytes_t r{};
  for (int i = 0; i < 32; i++)
    for (int b = 0; b < 8; b++) {
      const uint8_t row = matrix[(i & ~7) + 7 - b];
      r[i] |= uint8_t((__builtin_popcount(row & x[i]) & 1) << b);
    }
  return r;
}

bytes_t splat_word(uint64_t w) {
  bytes_t r;
  for (int i = 0; i < 32; i++) r[i] = uint8_t(w >> 8 * (i % 8));
  return r;
}

// Every 16-bit group rotated right by r.
bytes_t rotr16(const bytes_t& x, int r) {
  bytes_t out;
  for (int i = 0; i < 32; i += 2) {
    const int group = x[i] | x[i + 1] << 8;
    const int rotated = (group >> r | group << (16 - r)) & 0xffff;
    out[i] = uint8_t(rotated);
    out[i + 1] = uint8_t(rotated >> 8);
  }
  return out;
}

super_t run_plan(const global_plan_t& plan, const super_t& in, int axis1_turns = 0) {
  bytes_t v = rotr16(to_bytes(in), 4 * axis1_turns);
  if (plan.pre_negate_axis1) {
    bytes_t r;
    for (int i = 0; i < 32; i++) r[i] = uint8_t((v[i] & 0x0f) | (v[i ^ 1] & 0xf0));
    v = r;
  }
  for (int s = 0; s <= plan.transposes; s++) {
    const global_stage_t& stage = plan.stages[s];
    if (stage.bits) v = gf2p8affine(v, splat_word(stage.bit_matrix));
    if (stage.bytes) {
      bytes_t r;
      for (int j = 0; j < 32; j++) r[j] = v[stage.byte_source[j]];
      v = r;
    }
    if (s < plan.transposes) v = gf2p8affine(splat_word(0x8040201008040201ULL), v);
  }
  return from_bytes(v);
}

template <int... g>
std::array<global_plan_t, 8> all_plans(std::integer_sequence<int, g...>) {
  return {plan_global(g)...};
}

template <int... g>
std::array<local_global_plan_t, 8> all_local_plans(std::integer_sequence<int, g...>) {
  return {plan_local_global(g)...};
}

// The plan of a whole symmetry as its instructions run: the tables of its local part in the
// stages they join, after the rotation of axis 1.
super_t run_local_plan(const local_global_plan_t& lp, int local, const super_t& in) {
  global_plan_t plan = lp.plan;
  plan.stages[0].bytes = true;
  plan.stages[0].byte_source = lp.first_bytes[local >> 4 & 15];
  if (plan.transposes == 0) {
    plan.stages[0].bits = true;
    plan.stages[0].bit_matrix = lp.first_bits[local & 3];
  } else {
    plan.stages[1].bytes = true;
    plan.stages[1].byte_source = lp.second_bytes[local & 3];
  }
  return run_plan(plan, in, local >> 2 & 3);
}

}  // namespace

TEST(global_plan, equals_transform_super_for_every_global) {
  const simd_level_t saved = current_simd_level();
  set_simd_level(simd_level_t::portable);
  const auto plans = all_plans(std::make_integer_sequence<int, 8>());
  std::mt19937_64 rng(7);
  int transposes = 0;
  for (int g = 0; g < 8; g++) {
    transposes += plans[g].transposes;
    for (int trial = 0; trial < 64; trial++) {
      super_t c;
      for (auto& w : c.w) w = rng();
      if (trial < 8) c = super_t::singleton(trial * 37 % 256);  // single bits first
      ASSERT_EQ(run_plan(plans[g], c), transform_super(symmetry_t(g, 0), c))
          << "global " << g << ", trial " << trial;
    }
  }
  set_simd_level(saved);
  EXPECT_GT(transposes, 0);  // the plans do route bits through the transpose
  EXPECT_EQ(plans[0].transposes, 0);
}

// A plan with transposes moves bits within bytes only through them: its in-byte bit
// permutations are folded into its byte permutations.
TEST(global_plan, transposes_leave_no_bit_stage) {
  const auto plans = all_plans(std::make_integer_sequence<int, 8>());
  int folded = 0;
  for (int g = 0; g < 8; g++) {
    if (plans[g].transposes == 0) continue;
    folded++;
    for (int s = 0; s <= plans[g].transposes; s++)
      EXPECT_FALSE(plans[g].stages[s].bits) << "global " << g << ", stage " << s;
  }
  EXPECT_GT(folded, 0);
}

TEST(global_plan, local_part_folded_in_for_every_symmetry) {
  const simd_level_t saved = current_simd_level();
  set_simd_level(simd_level_t::portable);
  const auto plans = all_local_plans(std::make_integer_sequence<int, 8>());
  std::mt19937_64 rng(11);
  for (int g = 0; g < 8; g++)
    for (int local = 0; local < 256; local++)
      for (int trial = 0; trial < 3; trial++) {
        super_t c;
        for (auto& w : c.w) w = rng();
        if (trial == 0) c = super_t::singleton((local * 37 + g) % 256);
        ASSERT_EQ(run_local_plan(plans[g], local, c), transform_super(symmetry_t(g, local), c))
            << "global " << g << ", local " << local << ", trial " << trial;
      }
  set_simd_level(saved);
}
