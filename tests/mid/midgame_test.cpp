// Tests of the midgame solver: every listed value against the forward super search on random
// positions of 24 or more stones (to place and to rotate), the 2013 order of the list, finished
// roots, negamax consistency between a position and separately solved children at 15-22 stones,
// thread-count independence, layer sizes and workspace, and the errors.
#include "pentago/mid/midgame.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "pentago/base/random_moves.h"
#include "pentago/mid/subsets.h"
#include "pentago/search/super_search.h"
#include "pentago/util/error.h"

using namespace pentago;

namespace {

// A position reached by random moves from the empty board, still open, with `stones` stones:
// to place, or (to_rotate) right after the last placement, before its rotation.
board_t random_position(std::mt19937_64& rng, int stones, bool to_rotate) {
  for (;;) {
    board_t board = 0;
    bool open = true;
    for (int n = 0; n < stones && open; n++) {
      board = place_random_stone(board, n & 1, rng);
      if (won(unpack(board, n & 1))) open = false;
      if (to_rotate && n == stones - 1) break;
      board = rotate_randomly(board, rng);
      if (terminal_value(board) != 2) open = false;
    }
    if (open) return board;
  }
}

// Expected list entries for one board to rotate (8 rotations then itself) from the forward
// search; returns the board's value for the placer.
int expect_rotations(super_searcher& search, board_t board, const std::vector<midgame_value>& got,
                     size_t& at) {
  // The board to rotate as a board to place for the next player: bit g is g.board.
  const superinfo_t v = search.solve(board);
  int best = -1;
  for (int s = 0; s < 8; s++) {
    const int q = s >> 1, dir = s % 2 == 0 ? 1 : -1;
    const int g = ((dir + 4) % 4) << 2 * q;
    const int value = int(rotation_value(v, g));
    EXPECT_LT(at, got.size());
    if (at >= got.size()) return best;
    EXPECT_EQ(got[at].board, rotate_board(board, q, dir)) << "entry " << at;
    EXPECT_FALSE(got[at].to_rotate);
    EXPECT_EQ(got[at].value, value) << "rotation " << s << " of " << board;
    at++;
    best = std::max(best, -value);
  }
  return best;
}

// Checks a whole list against the forward search.
void check_against_search(board_t board, bool to_rotate, const midgame_result& r) {
  super_search_options options;
  options.table_bits = 18;
  super_searcher search(options);
  const int stones = count_stones(board);
  const int mover = stones & 1;
  size_t at = 0;
  if (to_rotate) {
    const int v = expect_rotations(search, board, r.values, at);
    ASSERT_EQ(r.values.size(), 9u);
    EXPECT_EQ(r.values[8].board, board);
    EXPECT_TRUE(r.values[8].to_rotate);
    EXPECT_EQ(r.values[8].value, v);
    return;
  }
  int best = -1;
  for (side_t rest = empty_cells(board); rest; rest &= rest - 1) {
    const int bit = __builtin_ctzll(rest);
    const board_t child = place_stone(board, mover, bit / 16, bit % 16);
    int v = 1;
    if (!won(unpack(child, mover))) v = expect_rotations(search, child, r.values, at);
    ASSERT_LT(at, r.values.size());
    EXPECT_EQ(r.values[at].board, child);
    EXPECT_TRUE(r.values[at].to_rotate);
    EXPECT_EQ(r.values[at].value, v) << "placement at bit " << bit;
    at++;
    best = std::max(best, v);
  }
  ASSERT_EQ(r.values.size(), at + 1);
  EXPECT_EQ(r.values[at].board, board);
  EXPECT_FALSE(r.values[at].to_rotate);
  EXPECT_EQ(r.values[at].value, best);
  EXPECT_EQ(best, int(search.value(board)));
}

midgame_options threads(int n) {
  midgame_options o;
  o.threads = n;
  return o;
}

}  // namespace

TEST(midgame, layer_sizes_and_workspace) {
  // midgame.md §4 and §7: positions over all layers and the peak pair of layers.
  uint64_t total = 0;
  for (int n = 0; n <= 18; n++) total += midgame_layer_size(18, n);
  EXPECT_EQ(total, 86574831u);
  EXPECT_EQ(midgame_workspace_bytes(18), 509693184u);
  EXPECT_EQ(midgame_workspace_bytes(20), 64576512u);
  EXPECT_EQ(midgame_workspace_bytes(24), 997920u);
  // The two-layer estimates: 1.4 GiB at 17 stones, 4.0 GiB at 16, 11.2 GiB at 15.
  EXPECT_EQ(midgame_workspace_bytes(17), 1489872384u);
  EXPECT_EQ(midgame_workspace_bytes(16), 4256778240u);
  EXPECT_EQ(midgame_workspace_bytes(15), 11972188800u);
  EXPECT_GT(midgame_default_workspace_limit(), uint64_t(0));
}

TEST(midgame, too_few_stones_names_the_memory) {
  std::mt19937_64 rng(1);
  const board_t board = random_position(rng, 14, false);
  try {
    (void)midgame_solve(board, false);
    FAIL() << "no error";
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("GiB"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("14-stone"), std::string::npos) << e.what();
  }
}

TEST(midgame, workspace_limit) {
  std::mt19937_64 rng(2);
  const board_t board = random_position(rng, 24, false);
  midgame_options o;
  o.workspace_limit = 1000;
  try {
    (void)midgame_solve(board, false, o);
    FAIL() << "no error";
  } catch (const error& e) {
    // One line naming the need and the limit.
    const std::string what = e.what();
    EXPECT_NE(what.find("needs a workspace of 1.0 MiB"), std::string::npos) << what;
    EXPECT_NE(what.find("limit of 0.0 MiB"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
  o.workspace_limit = midgame_workspace_bytes(24);
  EXPECT_EQ(midgame_solve(board, false, o).workspace_bytes, midgame_workspace_bytes(24));
}

TEST(midgame, finished_roots_by_the_rules) {
  // Black has five in the bottom row; white to move.
  side_t black = 0, white = 0;
  for (int x = 0; x < 5; x++) black |= cell_bit(x, 0);
  for (int x = 0; x < 4; x++) white |= cell_bit(x, 2) | cell_bit(x, 4);
  for (int y : {1, 3, 5}) black |= cell_bit(0, y) | cell_bit(5, y) | cell_bit(3, y);
  for (int x : {1, 2}) white |= cell_bit(x, 5) | cell_bit(x, 3);
  white |= cell_bit(5, 0);
  const board_t board = pack(black, white);
  ASSERT_GE(count_stones(board), 18);
  const midgame_result r = midgame_solve(board, false, threads(1));
  ASSERT_EQ(r.values.size(), 1u);
  EXPECT_EQ(r.values[0].value, terminal_value(board));
  // The same stones as a board to rotate: black placed last (one more stone) and has five.
  if (popcount(black) == popcount(white) + 1) {
    const midgame_result m = midgame_solve(board, true, threads(1));
    ASSERT_EQ(m.values.size(), 1u);
    EXPECT_EQ(m.values[0].value, 1);
  }
}

TEST(midgame, matches_forward_search_to_place) {
  std::mt19937_64 rng(3);
  for (int stones : {24, 25, 26, 28, 31, 34, 35}) {
    const board_t board = random_position(rng, stones, false);
    SCOPED_TRACE(testing::Message() << stones << " stones, board " << board);
    check_against_search(board, false, midgame_solve(board, false, threads(2)));
  }
}

TEST(midgame, matches_forward_search_to_rotate) {
  std::mt19937_64 rng(4);
  for (int stones : {24, 25, 27, 30, 33, 35, 36}) {
    const board_t board = random_position(rng, stones, true);
    SCOPED_TRACE(testing::Message() << stones << " stones to rotate, board " << board);
    check_against_search(board, true, midgame_solve(board, true, threads(2)));
  }
}

TEST(midgame, thread_count_does_not_change_values) {
  std::mt19937_64 rng(5);
  const board_t board = random_position(rng, 22, false);
  const midgame_result a = midgame_solve(board, false, threads(1));
  const midgame_result b = midgame_solve(board, false, threads(3));
  ASSERT_EQ(a.values.size(), b.values.size());
  for (size_t i = 0; i < a.values.size(); i++) {
    EXPECT_EQ(a.values[i].board, b.values[i].board);
    EXPECT_EQ(a.values[i].value, b.values[i].value);
  }
  EXPECT_EQ(b.threads, 3);
}

// Negamax consistency: the children listed in a solve, solved as roots of their own, agree
// with it; and the root is the best of its children, each the best of its rotations.
void check_consistency(int stones, int samples, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const board_t board = random_position(rng, stones, false);
  SCOPED_TRACE(testing::Message() << stones << " stones, board " << board);
  const midgame_result r = midgame_solve(board, false);
  int best = -1, rotation_best = -1, wins = 0, losses = 0;
  std::vector<size_t> rotated;
  for (size_t i = 0; i + 1 < r.values.size(); i++) {
    const midgame_value& v = r.values[i];
    if (v.to_rotate) {
      if (rotation_best > -1 || !won(unpack(v.board, stones & 1))) {
        EXPECT_EQ(v.value, rotation_best) << "child " << i;
      }
      best = std::max(best, v.value);
      rotation_best = -1;
    } else {
      rotation_best = std::max(rotation_best, -v.value);
      rotated.push_back(i);
      wins += v.value == 1;
      losses += v.value == -1;
    }
  }
  EXPECT_EQ(r.values.back().value, best);
  // Solve a few listed boards again as roots: rotated children (to place) and one placement
  // (to rotate), whose 8 rotations must match the parent's list.
  std::shuffle(rotated.begin(), rotated.end(), rng);
  for (int k = 0; k < samples && k < int(rotated.size()); k++) {
    const midgame_value& v = r.values[rotated[k]];
    EXPECT_EQ(midgame_solve(v.board, false).values.back().value, v.value) << v.board;
  }
  for (size_t i = 0; i < r.values.size(); i++)
    if (r.values[i].to_rotate && i >= 8 && !r.values[i - 1].to_rotate) {
      const midgame_result m = midgame_solve(r.values[i].board, true);
      ASSERT_EQ(m.values.size(), 9u);
      for (int s = 0; s < 9; s++) {
        EXPECT_EQ(m.values[s].board, r.values[i - 8 + s].board);
        EXPECT_EQ(m.values[s].value, r.values[i - 8 + s].value);
      }
      break;
    }
}

TEST(midgame, negamax_consistent_20_to_22) {
  check_consistency(22, 6, 6);
  check_consistency(21, 4, 7);
  check_consistency(20, 2, 8);
}

TEST(midgame, negamax_consistent_18_19) {
  check_consistency(19, 1, 9);
  check_consistency(18, 1, 10);
}

// Below the 2013 solver's 18 stones: each root's listed values against its children solved at
// one stone more (workspaces 1.4, 4.0 and 11.2 GiB; about 10 s, 40 s and 2 min of CPU).
TEST(midgame, negamax_consistent_17) { check_consistency(17, 2, 11); }
TEST(midgame, negamax_consistent_16) { check_consistency(16, 1, 12); }
TEST(midgame, negamax_consistent_15) { check_consistency(15, 1, 13); }
