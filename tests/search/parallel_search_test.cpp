// Parallel super search returns exactly the serial values, whatever the thread count and
// split settings, with exact values and with pseudo-random leaves; leaf errors propagate.
#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <vector>

#include "pentago/base/random_moves.h"
#include "pentago/base/symmetry.h"
#include "pentago/search/super_search.h"

using namespace pentago;

namespace {

// Open positions from seeded random playouts (each move: a stone on a random empty cell,
// then a random quadrant turn), with the given numbers of stones.
std::vector<board_t> fixed_positions(const std::vector<int>& stone_counts, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<board_t> positions;
  for (const int stones : stone_counts)
    for (;;) {
      board_t board = 0;
      int n = 0;
      for (; n < stones && terminal_value(board) == 2; n++) {
        board = rotate_randomly(place_random_stone(board, n & 1, rng), rng);
      }
      if (n == stones && terminal_value(board) == 2) {
        positions.push_back(board);
        break;
      }
    }
  return positions;
}

super_search_options_t with_threads(int threads, int split_min_empties = 5, int split_depth = 4) {
  super_search_options_t options;
  options.threads = threads;
  options.split_min_empties = split_min_empties;
  options.split_depth = split_depth;
  return options;
}

}  // namespace

TEST(parallel_search, same_values_as_serial) {
  const auto positions = fixed_positions({24, 25, 26, 26, 27, 27, 28, 28, 29, 30}, 42);
  super_searcher_t serial(with_threads(1));
  std::vector<superinfo_t> expected;
  for (const board_t b : positions) expected.push_back(serial.solve(b));
  for (const int threads : {2, 3, 4}) {
    super_searcher_t parallel(with_threads(threads));
    for (size_t i = 0; i < positions.size(); i++)
      EXPECT_EQ(parallel.solve(positions[i]), expected[i])
          << threads << " threads, board " << positions[i];
    EXPECT_GT(parallel.stats().nodes, 0u);
    EXPECT_GT(parallel.stats().table_hits, 0u);
  }
}

TEST(parallel_search, aggressive_splitting_and_cancellation) {
  // Split at nearly every node: many split points, many cancelled siblings.
  const auto positions = fixed_positions({26, 27, 28, 29, 30, 31, 32}, 7);
  super_searcher_t serial(with_threads(1));
  super_searcher_t parallel(with_threads(4, 2, 30));
  for (const board_t b : positions) {
    const superinfo_t expected = serial.solve(b);
    // Twice: cold table, then warm.
    EXPECT_EQ(parallel.solve(b), expected) << b;
    EXPECT_EQ(parallel.solve(b), expected) << b;
    // Every rotation of the position too (different frames of the same table entries).
    for (int g = 1; g < 256; g += 37) {
      const board_t r = transform_board(symmetry_t(0, g), b);
      EXPECT_EQ(parallel.solve(r), serial.solve(r)) << r;
    }
  }
}

TEST(parallel_search, pseudo_random_leaves) {
  const auto noise = [](board_t standard) {
    std::mt19937_64 rng(standard * 0x9e3779b97f4a7c15ULL);
    superinfo_t v;
    for (int i = 0; i < 4; i++) v.win.w[i] = rng() & rng(), v.notlose.w[i] = v.win.w[i] | rng();
    return v;
  };
  const auto positions = fixed_positions({22, 23, 24}, 3);
  for (const board_t b : positions) {
    super_search_options_t options = with_threads(1);
    options.leaf_stones = count_stones(b) + 4;
    options.leaf = equivariant_leaf(noise);
    const superinfo_t expected = super_searcher_t(options).solve(b);
    options.threads = 3;
    options.split_min_empties = 3;
    EXPECT_EQ(super_searcher_t(options).solve(b), expected) << b;
  }
}

TEST(parallel_search, leaf_errors_propagate) {
  super_search_options_t options = with_threads(3, 2, 30);
  const auto positions = fixed_positions({26}, 1);
  options.leaf_stones = 30;
  options.leaf = [](board_t) -> superinfo_t { throw std::runtime_error("leaf failed"); };
  super_searcher_t engine(options);
  superinfo_t v;
  EXPECT_THROW(v = engine.solve(positions[0]), std::runtime_error);
  // The engine is still usable afterwards.
  options.leaf = [](board_t b) { return super_solve(b); };
  super_searcher_t fine(options);
  EXPECT_EQ(fine.solve(positions[0]), super_solve(positions[0]));
}
