// Bootstrap tests of the super kernels at every supported SIMD level against one-board
// definitions, of the symmetry group laws and standardization, and of the scratch spans that
// reuse node vectors.
#include "pentago/base/super.h"

#include <gtest/gtest.h>

#include <random>

#include "pentago/base/random_moves.h"
#include "pentago/base/symmetry.h"

using namespace pentago;

namespace {

std::mt19937_64 rng(12345);

side_t random_side(double p) {
  std::bernoulli_distribution coin(p);
  side_t s = 0;
  for (int b = 0; b < 64; b++)
    if ((side_mask >> b & 1) && coin(rng)) s |= side_t(1) << b;
  return s;
}

board_t random_board() {
  const int stones = std::uniform_int_distribution<int>(0, 36)(rng);
  return random_cells_board(rng, stones);
}

super_t random_super() {
  super_t s;
  for (auto& w : s.w) w = rng();
  return s;
}

symmetry_t random_symmetry() { return symmetry_t::from_index(int(rng() % 2048)); }

// g.side: quadrant i turned CCW g_i times, one quadrant at a time.
side_t rotate_by(side_t side, int g) {
  for (int q = 0; q < 4; q++)
    for (int k = 0; k < (g >> 2 * q & 3); k++) side = rotate_side(side, q, 1);
  return side;
}

super_t wins_reference(side_t side) {
  super_t r;
  for (int g = 0; g < 256; g++) r.set(g, won(rotate_by(side, g)));
  return r;
}

int add_local(int a, int b) {
  int r = 0;
  for (int i = 0; i < 4; i++) r |= (((a >> 2 * i) + (b >> 2 * i)) & 3) << 2 * i;
  return r;
}

super_t rmax_reference(const super_t& f) {
  super_t r;
  for (int g = 0; g < 256; g++)
    for (int q = 0; q < 4; q++)
      for (int d : {1, 3})
        if (f(add_local(g, d << 2 * q))) r.set(g);
  return r;
}

// (s.C)(x) = C(conj_G^-1(x) + l): push C(z) forward to x = conj_G(z - l).
super_t transform_reference(symmetry_t s, const super_t& c) {
  super_t r;
  int neg_l = 0;
  for (int i = 0; i < 4; i++) neg_l |= (-(s.local >> 2 * i) & 3) << 2 * i;
  for (int z = 0; z < 256; z++)
    if (c(z)) r.set(conjugate_local(s.global, add_local(z, neg_l)));
  return r;
}

class super_kernels_test : public ::testing::TestWithParam<simd_level_t> {
 protected:
  void SetUp() override {
    if (!simd_supported(GetParam())) GTEST_SKIP() << "CPU lacks " << simd_name(GetParam());
    saved = current_simd_level();
    set_simd_level(GetParam());
  }
  void TearDown() override {
    if (simd_supported(GetParam())) set_simd_level(saved);
  }
  simd_level_t saved = simd_level_t::portable;
};

}  // namespace

TEST_P(super_kernels_test, super_wins) {
  for (int i = 0; i < 10000; i++) {
    const side_t side = random_side(i % 3 == 0 ? 0.8 : 0.5);
    ASSERT_EQ(super_wins(side), wins_reference(side)) << std::hex << side;
  }
}

TEST_P(super_kernels_test, rmax_definition) {
  for (int i = 0; i < 10000; i++) {
    const super_t f = random_super();
    ASSERT_EQ(rmax(f), rmax_reference(f));
  }
}

TEST_P(super_kernels_test, rmax_against_rotating_boards) {
  // rmax(super_wins(side))(g) = some single quadrant turn of g.side has five in a row.
  for (int i = 0; i < 10000; i++) {
    const side_t side = random_side(0.6);
    const super_t r = rmax(super_wins(side));
    for (int g = 0; g < 256; g += 37) {
      const side_t rotated = rotate_by(side, g);
      bool any = false;
      for (int q = 0; q < 4; q++)
        for (int d : {1, -1}) any |= won(rotate_side(rotated, q, d));
      ASSERT_EQ(r(g), any);
    }
  }
}

TEST_P(super_kernels_test, transform_definition) {
  for (int index = 0; index < 2048; index++) {  // every symmetry once
    const symmetry_t s = symmetry_t::from_index(index);
    const super_t c = random_super();
    ASSERT_EQ(transform_super(s, c), transform_reference(s, c)) << str_symmetry(s);
  }
  for (int i = 0; i < 10000; i++) {
    const symmetry_t s = random_symmetry();
    const super_t c = random_super();
    ASSERT_EQ(transform_super(s, c), transform_reference(s, c)) << str_symmetry(s);
    ASSERT_EQ(transform_super(inverse(s), transform_super(s, c)), c);
  }
}

TEST_P(super_kernels_test, transform_commutes_with_wins) {
  // super_wins(s(side)) == s . super_wins(side): the defining property of transform_super.
  for (int i = 0; i < 10000; i++) {
    const symmetry_t s = random_symmetry();
    const side_t side = random_side(0.6);
    ASSERT_EQ(super_wins(transform_side(s, side)), transform_super(s, super_wins(side)))
        << str_symmetry(s);
  }
}

INSTANTIATE_TEST_SUITE_P(levels, super_kernels_test,
                         ::testing::Values(simd_level_t::portable, simd_level_t::sse,
                                           simd_level_t::avx2, simd_level_t::avx512vbmi),
                         [](const auto& info) { return std::string(simd_name(info.param)); });

TEST(symmetry, group_laws) {
  const symmetry_t id;
  for (int i = 0; i < 10000; i++) {
    const symmetry_t a = random_symmetry(), b = random_symmetry(), c = random_symmetry();
    ASSERT_EQ(a * id, a);
    ASSERT_EQ(id * a, a);
    ASSERT_EQ(a * inverse(a), id);
    ASSERT_EQ(inverse(a) * a, id);
    ASSERT_EQ((a * b) * c, a * (b * c));
    const side_t side = random_side(0.5);
    ASSERT_EQ(transform_side(a * b, side), transform_side(a, transform_side(b, side)));
    const board_t board = random_board();
    ASSERT_EQ(transform_board(inverse(a), transform_board(a, board)), board);
  }
}

TEST(symmetry, commute_is_conjugation) {
  // G^-1 L G as a composition equals the table entry.
  for (int g = 0; g < 8; g++)
    for (int l = 0; l < 256; l++) {
      const symmetry_t G(g, 0), L(0, l);
      const symmetry_t c = inverse(G) * L * G;
      ASSERT_EQ(c.global, 0);
      ASSERT_EQ(c.local, commute_table[g][l]);
    }
}

TEST(symmetry, standardize) {
  for (int i = 0; i < 10000; i++) {
    const board_t board = random_board();
    int g;
    const board_t s = standardize(board, &g);
    ASSERT_EQ(transform_board(symmetry_t(g, 0), board), s);
    ASSERT_EQ(standardize(s), s);
    ASSERT_EQ(standardize(transform_board(symmetry_t(int(rng() % 8), 0), board)), s);
    symmetry_t ss;
    const board_t t = superstandardize(board, &ss);
    ASSERT_EQ(transform_board(ss, board), t);
    ASSERT_LE(t, s);
    ASSERT_EQ(superstandardize(transform_board(random_symmetry(), board)), t);
  }
}

TEST(super, scratch_span_grows_and_never_shrinks) {
  std::vector<superinfo_t> scratch;
  auto a = scratch_span(scratch, 10);
  ASSERT_EQ(a.size(), 10u);
  EXPECT_EQ(scratch.size(), 10u);
  a[9].win = super_t::ones();
  const auto b = scratch_span(scratch, 4);  // smaller: the same memory, nothing cleared
  EXPECT_EQ(b.size(), 4u);
  EXPECT_EQ(b.data(), a.data());
  EXPECT_EQ(scratch.size(), 10u);
  EXPECT_EQ(scratch[9].win, super_t::ones());
  const auto c = scratch_span(scratch, 12);  // larger: grown, the new nodes zero
  EXPECT_EQ(c.size(), 12u);
  EXPECT_EQ(scratch.size(), 12u);
  EXPECT_EQ(c[9].win, super_t::ones());
  EXPECT_EQ(c[11].win, super_t::zero());
}
