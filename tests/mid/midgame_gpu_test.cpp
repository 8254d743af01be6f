// Tests of the batched midgame solver's kernels and host side on the CPU reference device (the
// code nvcc compiles for the GPU, run on host threads): rmax and the win tables against the
// CPU's halfsuper routines, and whole batches (values and distances, roots to place and to
// rotate, several stone counts, finished roots) against the CPU solver; batches split by a
// memory bound give the same lists; the errors. On a GPU machine pentago-midgame-gpu --check
// runs the same comparison on the device.
#include "pentago/mid/midgame_gpu.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "../../src/mid/midgame_device.h"
#include "pentago/base/random_moves.h"
#include "pentago/mid/halfsuper.h"
#include "pentago/mid/midgame.h"
#include "pentago/util/error.h"

using namespace pentago;

namespace {

halfsuper_t random_half(std::mt19937_64& rng) { return {halfsuper_t::vec_t{rng(), rng()}}; }
gpu::half_t to_gpu(halfsuper_t h) { return {h.word(0), h.word(1)}; }
bool same(gpu::half_t a, halfsuper_t b) { return a.lo == b.word(0) && a.hi == b.word(1); }

TEST(midgame_gpu, rmax_matches_halfsuper_rmax) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 20000; i++) {
    const halfsuper_t h = i < 128 ? [&] {
      halfsuper_t one = halfsuper_t::zero();
      one.set(i);
      return one;
    }()
                                  : random_half(rng);
    ASSERT_TRUE(same(gpu::rmax(to_gpu(h)), halfsuper_rmax(h))) << i;
  }
}

TEST(midgame_gpu, wins_match_halfsuper_wins) {
  const auto tables = detail::make_gpu_tables();
  std::mt19937_64 rng(11);
  int with_wins = 0;
  for (int i = 0; i < 20000; i++) {
    const side_t side = unpack(random_cells_board(rng, 2 * (6 + i % 12)), 0);
    const auto want = halfsuper_wins_both(side);
    const gpu::half_pair_t got = gpu::wins_both(*tables, side);
    ASSERT_TRUE(same(got.parity[0], want.first)) << side;
    ASSERT_TRUE(same(got.parity[1], want.second)) << side;
    with_wins += bool(want.first | want.second);
  }
  EXPECT_GT(with_wins, 1000);
}

// The GPU lists against the CPU solver's, entry by entry.
void expect_same_lists(const std::vector<midgame_position_t>& positions,
                       const std::vector<midgame_result_t>& got, bool distance) {
  ASSERT_EQ(got.size(), positions.size());
  midgame_options_t o;
  o.threads = 2;
  o.distance = distance;
  for (size_t i = 0; i < positions.size(); i++) {
    const midgame_result_t want = midgame_solve(positions[i].board, positions[i].to_rotate, o);
    ASSERT_EQ(got[i].values.size(), want.values.size()) << positions[i].board;
    for (size_t k = 0; k < want.values.size(); k++) {
      const midgame_value_t &w = want.values[k], &g = got[i].values[k];
      EXPECT_EQ(g.board, w.board) << positions[i].board << " entry " << k;
      EXPECT_EQ(g.to_rotate, w.to_rotate) << positions[i].board << " entry " << k;
      EXPECT_EQ(g.value, w.value) << positions[i].board << " entry " << k;
      EXPECT_EQ(g.distance, w.distance) << positions[i].board << " entry " << k;
    }
  }
}

std::vector<midgame_position_t> random_positions(uint64_t seed, int count, int lo, int hi) {
  std::mt19937_64 rng(seed);
  std::vector<midgame_position_t> positions;
  for (int i = 0; i < count; i++) {
    const int stones = lo + int(rng() % uint64_t(hi - lo + 1));
    const bool to_rotate = i % 2 == 1;
    positions.push_back({random_open_position(rng, stones, to_rotate), to_rotate});
  }
  return positions;
}

// A batch of `count` random positions of lo-hi stones on the reference device against the CPU
// solver.
void expect_batch_matches(uint64_t seed, int count, int lo, int hi, bool distance) {
  midgame_gpu_t gpu = midgame_gpu_t::reference(2);
  const auto positions = random_positions(seed, count, lo, hi);
  midgame_gpu_options_t o;
  o.distance = distance;
  expect_same_lists(positions, gpu.solve(positions, o), distance);
}

TEST(midgame_gpu, batches_match_the_cpu_solver) { expect_batch_matches(3, 24, 24, 30, false); }

TEST(midgame_gpu, distances_match_the_cpu_solver) { expect_batch_matches(5, 16, 25, 30, true); }

TEST(midgame_gpu, twenty_two_stones_match) { expect_batch_matches(9, 2, 22, 22, true); }

TEST(midgame_gpu, finished_roots_by_the_rules_beside_open_ones) {
  midgame_gpu_t gpu = midgame_gpu_t::reference(2);
  std::mt19937_64 rng(13);
  std::vector<midgame_position_t> positions;
  // Games played on until they end: finished boards, to place and just placed.
  while (positions.size() < 6) {
    board_t board = 0;
    for (int n = 0; n < 36; n++) {
      board = place_random_stone(board, n & 1, rng);
      if (won(unpack(board, n & 1))) {
        positions.push_back({board, true});
        break;
      }
      board = rotate_randomly(board, rng);
      if (terminal_value(board) != 2) {
        positions.push_back({board, false});
        break;
      }
    }
  }
  positions.push_back({random_open_position(rng, 27, false), false});
  midgame_gpu_options_t o;
  o.distance = true;
  const auto got = gpu.solve(positions, o);
  for (size_t i = 0; i + 1 < positions.size(); i++) EXPECT_EQ(got[i].values.size(), 1u);
  expect_same_lists(positions, got, true);
}

TEST(midgame_gpu, a_memory_bound_splits_batches_without_changing_lists) {
  midgame_gpu_t gpu = midgame_gpu_t::reference(2);
  const auto positions = random_positions(17, 9, 26, 26);
  midgame_gpu_options_t o;
  o.memory_limit = midgame_gpu_t::batch_bytes(26, 2);  // two roots a batch
  const auto split = gpu.solve(positions, o);
  const auto whole = gpu.solve(positions);
  ASSERT_EQ(split.size(), whole.size());
  for (size_t i = 0; i < split.size(); i++) {
    ASSERT_EQ(split[i].values.size(), whole[i].values.size());
    for (size_t k = 0; k < split[i].values.size(); k++)
      EXPECT_EQ(split[i].values[k].value, whole[i].values[k].value);
  }
  expect_same_lists(positions, split, false);
}

TEST(midgame_gpu, errors_name_the_cause) {
  midgame_gpu_t gpu = midgame_gpu_t::reference(1);
  std::mt19937_64 rng(19);
  const board_t eleven = random_open_position(rng, 11, false);
  EXPECT_THROW(gpu.solve({{eleven, false}}), usage_error_t);
  EXPECT_THROW(gpu.solve({{board_t(3), false}}), pentago_error_t);  // both colours on one cell
  midgame_gpu_options_t small;
  small.memory_limit = midgame_gpu_t::batch_bytes(20, 1) - 1;
  try {
    gpu.solve({{random_open_position(rng, 20, false), false}}, small);
    FAIL() << "a batch over the memory bound";
  } catch (const pentago_error_t& e) {
    EXPECT_NE(std::string(e.what()).find("20-stone"), std::string::npos) << e.what();
  }
  midgame_gpu_options_t cancelled;
  cancelled.cancelled = [] { return true; };
  EXPECT_THROW(gpu.solve({{random_open_position(rng, 28, false), false}}, cancelled),
               midgame_cancelled_t);
  std::string why;
  if (!midgame_gpu_available(&why)) {
    EXPECT_FALSE(why.empty());
    EXPECT_THROW(midgame_gpu_t(0), pentago_error_t);
  }
}

}  // namespace
