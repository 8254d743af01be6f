// Tests for Threefry, the counter-mode generator and the FE2 permutation (docs/formats.md,
// "Randomness and the partition").
#include "pentago/util/random.h"

#include <gtest/gtest.h>

#include <vector>

namespace pentago {
namespace {

TEST(Random, Uint128Helpers) {
  const uint128_t x = make_uint128(0x0123456789abcdefULL, 0xfedcba9876543210ULL);
  EXPECT_EQ(high64(x), 0x0123456789abcdefULL);
  EXPECT_EQ(low64(x), 0xfedcba9876543210ULL);
  EXPECT_EQ(hex(x), "0123456789abcdef:fedcba9876543210");
  EXPECT_EQ(hex(17), "0000000000000000:0000000000000011");
}

// Known answers of Random123's threefry2x64-20 (key, ctr, result as hi:lo).
TEST(Random, ThreefryKnownAnswers) {
  const uint128_t ones = ~uint128_t(0);
  EXPECT_EQ(hex(threefry(0, 0)), "6f81ed42f350084d:c2b6e3a8c2c69865");
  EXPECT_EQ(hex(threefry(ones, ones)), "d06633d0893b8b68:e02cb7c4d95d277a");
  EXPECT_EQ(hex(threefry(make_uint128(0x082efa98ec4e6c89ULL, 0xa4093822299f31d0ULL),
                         make_uint128(0x13198a2e03707344ULL, 0x243f6a8885a308d3ULL))),
            "56be8361d3311526:263c7d30bb0f0af1");
  EXPECT_EQ(hex(threefry(17, 0)), "16b7a36f5166ddcb:7eb12eea968c042c");
  EXPECT_EQ(hex(threefry(17, 1)), "f50a9ddff210fe05:fc8c07362a2cd9ec");
}

TEST(Random, CounterMode) {
  random_t rng(17);
  EXPECT_EQ(rng.bits<uint128_t>(), threefry(17, 0));
  EXPECT_EQ(rng.bits<uint64_t>(), low64(threefry(17, 1)));
  EXPECT_EQ(rng.bits<uint32_t>(), static_cast<uint32_t>(threefry(17, 2)));
  EXPECT_EQ(rng.counter(), 3u);
  EXPECT_EQ(rng.seed(), 17u);
  const uint32_t raw = static_cast<uint32_t>(threefry(17, 3));
  EXPECT_EQ(rng.uniform(5, 12), 5 + static_cast<int>(raw % 7));
  EXPECT_EQ(rng.uniform_double(), 0x1p-64 * static_cast<double>(low64(threefry(17, 4))));
}

// First four uint32 draws seeded with the sample hash of section 00000000 (docs/formats.md,
// "Samples").
TEST(Random, SampleSeedDraws) {
  random_t rng(0xebe54d10660ea4b5ULL);
  EXPECT_EQ(rng.bits<uint32_t>(), 3269237950u);
  EXPECT_EQ(rng.bits<uint32_t>(), 690490447u);
  EXPECT_EQ(rng.bits<uint32_t>(), 1860320174u);
  EXPECT_EQ(rng.bits<uint32_t>(), 1848935616u);
  random_t again(0xebe54d10660ea4b5ULL);
  const std::array<int, 4> shape = {10, 100, 1000, 7};
  const auto index = again.uniform_index(shape);
  EXPECT_EQ(index, (std::array<int, 4>{3269237950u % 10, 690490447u % 100, 1860320174u % 1000,
                                       1848935616u % 7}));
}

TEST(Random, UniformRanges) {
  random_t rng(12345);
  std::vector<int> hits(7);
  double sum = 0;
  const int draws = 70000;
  for (int i = 0; i < draws; i++) {
    const int v = rng.uniform(-3, 4);
    ASSERT_GE(v, -3);
    ASSERT_LT(v, 4);
    hits[v + 3]++;
    const double u = rng.uniform_double();
    ASSERT_GE(u, 0);
    ASSERT_LE(u, 1);
    sum += u;
  }
  for (const int h : hits) EXPECT_NEAR(h, draws / 7, 500);
  EXPECT_NEAR(sum / draws, 0.5, 0.01);
}

std::vector<uint64_t> permute_prefix(uint64_t n, uint128_t key, int count) {
  std::vector<uint64_t> result;
  for (int x = 0; x < count; x++) result.push_back(random_permute(n, key, x));
  return result;
}

// Golden values of the 2013 solver's permutation (docs/formats.md, "Randomness and the partition").
TEST(Random, PermuteGolden) {
  EXPECT_EQ(permute_prefix(10, 17, 10), (std::vector<uint64_t>{0, 9, 3, 1, 7, 2, 6, 8, 5, 4}));
  EXPECT_EQ(permute_prefix(1000, 17, 10),
            (std::vector<uint64_t>{293, 446, 608, 641, 189, 278, 858, 131, 239, 368}));
  EXPECT_EQ(permute_prefix(1000, 1, 10),
            (std::vector<uint64_t>{998, 498, 565, 886, 373, 753, 328, 51, 516, 676}));
  EXPECT_EQ(permute_prefix(95263785, 17, 5),
            (std::vector<uint64_t>{19614260, 67940527, 17700304, 86252772, 1676904}));
}

// Every small n, several keys: a bijection of [0, n) whose inverse is random_unpermute.
TEST(Random, PermuteBijective) {
  for (const uint128_t key : {uint128_t(0), uint128_t(1), uint128_t(17), make_uint128(7, 99)}) {
    for (uint64_t n = 1; n <= 300; n++) {
      std::vector<bool> seen(n);
      for (uint64_t x = 0; x < n; x++) {
        const uint64_t y = random_permute(n, key, x);
        ASSERT_LT(y, n);
        ASSERT_FALSE(seen[y]) << "n " << n << " x " << x;
        seen[y] = true;
        ASSERT_EQ(random_unpermute(n, key, y), x) << "n " << n << " x " << x;
      }
    }
  }
  // Powers of two and their neighbours, where the Feistel width changes.
  for (int k = 9; k <= 16; k++) {
    for (const uint64_t n : {(uint64_t(1) << k) - 1, uint64_t(1) << k, (uint64_t(1) << k) + 1}) {
      std::vector<bool> seen(n);
      for (uint64_t x = 0; x < n; x++) {
        const uint64_t y = random_permute(n, 17, x);
        ASSERT_FALSE(seen[y]);
        seen[y] = true;
        ASSERT_EQ(random_unpermute(n, 17, y), x);
      }
    }
  }
}

// Large domains (up to 63 bits): the inverse holds on a sample.
TEST(Random, PermuteInverseLarge) {
  random_t rng(3);
  for (const uint64_t n : {uint64_t(95263785), uint64_t(1) << 32, (uint64_t(1) << 32) + 5,
                           uint64_t(0x7fffffffffffffffULL), uint64_t(123456789012345ULL)}) {
    for (int i = 0; i < 1000; i++) {
      const uint64_t x = rng.bits<uint64_t>() % n;
      const uint64_t y = random_permute(n, 17, x);
      ASSERT_LT(y, n);
      ASSERT_EQ(random_unpermute(n, 17, y), x);
      ASSERT_EQ(random_permute(n, 17, random_unpermute(n, 17, x)), x);
    }
  }
}

// The permutation really depends on the key and is far from the identity.
TEST(Random, PermuteScrambles) {
  const uint64_t n = 100000;
  int fixed = 0, same = 0;
  for (uint64_t x = 0; x < n; x++) {
    fixed += random_permute(n, 17, x) == x;
    same += random_permute(n, 17, x) == random_permute(n, 18, x);
  }
  EXPECT_LT(fixed, 10);
  EXPECT_LT(same, 10);
}

TEST(Random, PermuteRejectsBadArguments) {
  EXPECT_THROW(random_permute(0, 17, 0), std::exception);
  EXPECT_THROW(random_permute(10, 17, 10), std::exception);
  EXPECT_THROW(random_unpermute(10, 17, 11), std::exception);
}

}  // namespace
}  // namespace pentago
