// Tests of the halfsuper kernels against the super kernels of base: split and merge, rmax on
// halves, and halfsuper_wins, each on 10^4 random inputs and every SIMD level of base.
#include "pentago/mid/halfsuper.h"

#include <gtest/gtest.h>

#include <random>

#include "pentago/base/super.h"

using namespace pentago;

namespace {

constexpr int trials = 10000;

super_t random_super(std::mt19937_64& rng) {
  super_t s;
  // Sparse, dense and uniform words so that both set and clear neighbours are exercised.
  const int kind = int(rng() % 3);
  for (auto& w : s.w) w = kind == 0 ? rng() & rng() & rng() : kind == 1 ? rng() | rng() : rng();
  return s;
}

side_t random_side(std::mt19937_64& rng) {
  side_t s = 0;
  const int stones = int(rng() % 19);
  for (int i = 0; i < stones; i++) {
    const int q = int(rng() % 4), c = int(rng() % 9);
    s |= side_t(1) << (16 * q + c);
  }
  return s;
}

class halfsuper_levels : public testing::TestWithParam<simd_level_t> {
 protected:
  void SetUp() override {
    if (!simd_supported(GetParam())) GTEST_SKIP() << "CPU lacks " << simd_name(GetParam());
    saved_ = current_simd_level();
    set_simd_level(GetParam());
  }
  void TearDown() override {
    if (simd_supported(GetParam())) set_simd_level(saved_);
  }
  simd_level_t saved_ = simd_level_t::portable;
};

}  // namespace

TEST(halfsuper, index_formula) {
  // Bit j of the parity-p half is rotation (2a' + ((b + c + d + p) mod 2), b, c, d).
  for (int r = 0; r < 256; r++) {
    const int g0 = r & 3, g1 = r >> 2 & 3, g2 = r >> 4 & 3, g3 = r >> 6 & 3;
    const int parity = (g0 + g1 + g2 + g3) & 1;
    const super_t one = super_t::singleton(r);
    const halfsuper_t h = split_super(one, parity);
    const int j = halfsuper_index(g0, g1, g2, g3);
    EXPECT_EQ(h, [&] {
      halfsuper_t e = halfsuper_t::zero();
      e.set(j);
      return e;
    }()) << r;
    EXPECT_FALSE(bool(split_super(one, 1 - parity))) << r;
  }
}

TEST(halfsuper, split_merge_round_trip) {
  std::mt19937_64 rng(11);
  for (int t = 0; t < trials; t++) {
    const super_t s = random_super(rng);
    const halfsuper_t h0 = split_super(s, 0), h1 = split_super(s, 1);
    ASSERT_EQ(merge_halves(h0, h1), s);
    ASSERT_EQ(popcount(s), __builtin_popcountll(h0.word(0)) + __builtin_popcountll(h0.word(1)) +
                               __builtin_popcountll(h1.word(0)) + __builtin_popcountll(h1.word(1)));
  }
}

TEST_P(halfsuper_levels, rmax_matches_super_rmax) {
  std::mt19937_64 rng(12);
  for (int t = 0; t < trials; t++) {
    const super_t s = random_super(rng);
    const super_t r = rmax(s);
    for (int p = 0; p < 2; p++) {
      ASSERT_EQ(halfsuper_rmax(split_super(s, p)), split_super(r, 1 - p)) << t << " parity " << p;
      ASSERT_EQ(halfsuper_rmax_at(GetParam(), split_super(s, p)), split_super(r, 1 - p))
          << t << " parity " << p;
    }
  }
}

TEST_P(halfsuper_levels, wins_match_super_wins) {
  std::mt19937_64 rng(13);
  int nonempty = 0;
  for (int t = 0; t < trials; t++) {
    const side_t side = random_side(rng);
    const super_t w = super_wins(side);
    nonempty += bool(w);
    const auto both = halfsuper_wins_both(side);
    ASSERT_EQ(both.first, split_super(w, 0)) << std::hex << side;
    ASSERT_EQ(both.second, split_super(w, 1)) << std::hex << side;
    ASSERT_EQ(halfsuper_wins(side, 1), both.second);
  }
  EXPECT_GT(nonempty, trials / 10);  // the sample has plenty of sides with fives
}

INSTANTIATE_TEST_SUITE_P(levels, halfsuper_levels,
                         testing::Values(simd_level_t::portable, simd_level_t::sse,
                                         simd_level_t::avx2),
                         [](const auto& info) { return std::string(simd_name(info.param)); });
