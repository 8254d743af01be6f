// Tests of the midgame solver: every listed value against the forward super search on random
// positions of 24 or more stones (to place and to rotate), the 2013 order of the list, finished
// roots, negamax consistency between a position and separately solved children at 15-22 stones,
// distances against an exact forward search with distance at 26+ stones and their recurrence
// between a position and separately solved children at 18-22 stones,
// thread-count and SIMD-level independence, layer sizes and workspace, and the errors.
#include "pentago/mid/midgame.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <random>
#include <unordered_map>
#include <vector>

#include "pentago/base/random_moves.h"
#include "pentago/mid/subsets.h"
#include "pentago/search/super_search.h"
#include "pentago/util/error.h"

using namespace pentago;

namespace {

// Expected list entries for one board to rotate (8 rotations then itself) from the forward
// search; returns the board's value for the placer.
int expect_rotations(super_searcher_t& search, board_t board,
                     const std::vector<midgame_value_t>& got, size_t& at) {
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
void check_against_search(board_t board, bool to_rotate, const midgame_result_t& r) {
  super_search_options_t options;
  options.table_bits = 18;
  super_searcher_t search(options);
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

midgame_options_t threads(int n) {
  midgame_options_t o;
  o.threads = n;
  return o;
}

}  // namespace

TEST(midgame, layer_sizes_and_workspace) {
  // docs/formats.md, "Midgame solver": positions over all layers and the peak pair of layers.
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
  const board_t board = random_open_position(rng, 14, false);
  try {
    (void)midgame_solve(board, false);
    FAIL() << "no error";
  } catch (const usage_error_t& e) {
    EXPECT_NE(std::string(e.what()).find("GiB"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("14-stone"), std::string::npos) << e.what();
  }
}

TEST(midgame, workspace_limit) {
  std::mt19937_64 rng(2);
  const board_t board = random_open_position(rng, 24, false);
  midgame_options_t o;
  o.workspace_limit = 1000;
  try {
    (void)midgame_solve(board, false, o);
    FAIL() << "no error";
  } catch (const pentago_error_t& e) {
    // One line naming the need and the limit.
    const std::string what = e.what();
    EXPECT_NE(what.find("needs a workspace of 1.0 MiB"), std::string::npos) << what;
    EXPECT_NE(what.find("limit of 0.0 MiB"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
  o.workspace_limit = midgame_workspace_bytes(24);
  EXPECT_EQ(midgame_solve(board, false, o).workspace_bytes, midgame_workspace_bytes(24));
}

TEST(midgame, cancelled_between_layers) {
  std::mt19937_64 rng(3);
  const board_t board = random_open_position(rng, 24, false);
  midgame_options_t o;
  int asked = 0;
  o.cancelled = [&] { return ++asked == 4; };
  EXPECT_THROW((void)midgame_solve(board, false, o), midgame_cancelled_t);
  EXPECT_EQ(asked, 4);  // stopped at the fourth layer, not at the end
  asked = 0;
  o.cancelled = [&] { return ++asked < 0; };
  const midgame_result_t whole = midgame_solve(board, false, o);
  EXPECT_GT(asked, 12);  // asked before each layer of both passes
  EXPECT_EQ(whole.values.size(), midgame_solve(board, false).values.size());
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
  const midgame_result_t r = midgame_solve(board, false, threads(1));
  ASSERT_EQ(r.values.size(), 1u);
  EXPECT_EQ(r.values[0].value, terminal_value(board));
  // The same stones as a board to rotate: black placed last (one more stone) and has five.
  if (popcount(black) == popcount(white) + 1) {
    const midgame_result_t m = midgame_solve(board, true, threads(1));
    ASSERT_EQ(m.values.size(), 1u);
    EXPECT_EQ(m.values[0].value, 1);
  }
}

TEST(midgame, matches_forward_search_to_place) {
  std::mt19937_64 rng(3);
  for (int stones : {24, 25, 26, 28, 31, 34, 35}) {
    const board_t board = random_open_position(rng, stones, false);
    SCOPED_TRACE(testing::Message() << stones << " stones, board " << board);
    check_against_search(board, false, midgame_solve(board, false, threads(2)));
  }
}

TEST(midgame, matches_forward_search_to_rotate) {
  std::mt19937_64 rng(4);
  for (int stones : {24, 25, 27, 30, 33, 35, 36}) {
    const board_t board = random_open_position(rng, stones, true);
    SCOPED_TRACE(testing::Message() << stones << " stones to rotate, board " << board);
    check_against_search(board, true, midgame_solve(board, true, threads(2)));
  }
}

TEST(midgame, thread_count_does_not_change_values) {
  std::mt19937_64 rng(5);
  const board_t board = random_open_position(rng, 22, false);
  const midgame_result_t a = midgame_solve(board, false, threads(1));
  const midgame_result_t b = midgame_solve(board, false, threads(3));
  ASSERT_EQ(a.values.size(), b.values.size());
  for (size_t i = 0; i < a.values.size(); i++) {
    EXPECT_EQ(a.values[i].board, b.values[i].board);
    EXPECT_EQ(a.values[i].value, b.values[i].value);
  }
  EXPECT_EQ(b.threads, 3);
}

// Every SIMD level's row kernels against the forward search (the solver runs at the current
// level), to place and to rotate.
TEST(midgame, every_simd_level_matches_forward_search) {
  const simd_level_t saved = current_simd_level();
  for (const simd_level_t level : {simd_level_t::portable, simd_level_t::sse, simd_level_t::avx2}) {
    if (!simd_supported(level)) continue;
    SCOPED_TRACE(simd_name(level));
    set_simd_level(level);
    std::mt19937_64 rng(40 + int(level));
    for (int i = 0; i < 2; i++) {
      const board_t board = random_open_position(rng, 25 + i, i == 1);
      check_against_search(board, i == 1, midgame_solve(board, i == 1, threads(2)));
    }
  }
  set_simd_level(saved);
}

// Negamax consistency: the children listed in a solve, solved as roots of their own, agree
// with it; and the root is the best of its children, each the best of its rotations.
void check_consistency(int stones, int samples, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const board_t board = random_open_position(rng, stones, false);
  SCOPED_TRACE(testing::Message() << stones << " stones, board " << board);
  const midgame_result_t r = midgame_solve(board, false);
  int best = -1, rotation_best = -1, wins = 0, losses = 0;
  std::vector<size_t> rotated;
  for (size_t i = 0; i + 1 < r.values.size(); i++) {
    const midgame_value_t& v = r.values[i];
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
    const midgame_value_t& v = r.values[rotated[k]];
    EXPECT_EQ(midgame_solve(v.board, false).values.back().value, v.value) << v.board;
  }
  for (size_t i = 0; i < r.values.size(); i++)
    if (r.values[i].to_rotate && i >= 8 && !r.values[i - 1].to_rotate) {
      const midgame_result_t m = midgame_solve(r.values[i].board, true);
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
// 15 stones takes an 11.2 GiB workspace and minutes of CPU: opt-in (PENTAGO_TEST_EXPENSIVE=1),
// so that the suite stays within CI's time and memory beside the other tests.
TEST(midgame, negamax_consistent_15) {
  if (!std::getenv("PENTAGO_TEST_EXPENSIVE"))
    GTEST_SKIP() << "set PENTAGO_TEST_EXPENSIVE=1 to run (11.2 GiB, minutes of CPU)";
  check_consistency(15, 1, 13);
}

namespace {

// An exact forward search with distance: plain negamax over boards, memoized, no pruning.
// For a board to place: {value, turns to the end} for its mover (midgame.h's distance).
class distance_search_t {
 public:
  std::pair<int, int> to_place(board_t board) {
    if (const int t = terminal_value(board); t != 2) return {t, t ? 0 : -1};
    if (const auto it = memo_.find(board); it != memo_.end()) return it->second;
    const int mover = count_stones(board) & 1;
    outcome_t best;
    for (side_t rest = empty_cells(board); rest; rest &= rest - 1) {
      const int bit = __builtin_ctzll(rest);
      const board_t placed = place_stone(board, mover, bit / 16, bit % 16);
      if (won(unpack(placed, mover))) {
        best.add(1, 1);
      } else {
        const auto [v, d] = to_rotate(placed);
        best.add(v, d);
      }
    }
    return memo_[board] = best.result();
  }

  // For a board to rotate (not finished): {value, turns} for the player who placed.
  std::pair<int, int> to_rotate(board_t placed) {
    outcome_t best;
    for (int q = 0; q < 4; q++)
      for (const int dir : {1, -1}) {
        const auto [v, d] = to_place(rotate_board(placed, q, dir));
        best.add(-v, v ? 1 + d : -1);
      }
    return best.result();
  }

 private:
  // The best of a set of options (value, turns): the fastest win, else a tie, else the slowest
  // loss.
  struct outcome_t {
    int value = -2, turns = -1;
    void add(int v, int d) {
      if (v > value) {
        value = v, turns = d;
      } else if (v == value && v > 0) {
        turns = std::min(turns, d);
      } else if (v == value && v < 0) {
        turns = std::max(turns, d);
      }
    }
    std::pair<int, int> result() const { return {value, value ? turns : -1}; }
  };
  std::unordered_map<board_t, std::pair<int, int>> memo_;
};

midgame_options_t with_distance(int threads) {
  midgame_options_t o;
  o.threads = threads;
  o.distance = true;
  return o;
}

// Every listed entry's value and distance against the exact search.
void check_distances_against_search(board_t board, bool to_rotate) {
  const midgame_result_t r = midgame_solve(board, to_rotate, with_distance(2));
  distance_search_t search;
  int decisive = 0;
  for (const midgame_value_t& v : r.values) {
    std::pair<int, int> expected;
    if (!v.to_rotate)
      expected = search.to_place(v.board);
    else if (won(unpack(v.board, (count_stones(v.board) - 1) & 1)))
      expected = {1, 0};  // five by placing: finished
    else
      expected = search.to_rotate(v.board);
    EXPECT_EQ(v.value, expected.first) << v.board << (v.to_rotate ? "m" : "");
    EXPECT_EQ(v.distance, expected.second) << v.board << (v.to_rotate ? "m" : "");
    decisive += v.value != 0;
  }
  EXPECT_GT(decisive, 0);
}

// The listed distances of a root's children equal their own solves' root distances, and the
// root's is the best of its placements', each the best of its rotations' plus one turn.
void check_distance_recurrence(int stones, int samples, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const board_t board = random_open_position(rng, stones, false);
  SCOPED_TRACE(testing::Message() << stones << " stones, board " << board);
  const midgame_result_t r = midgame_solve(board, false, with_distance(2));
  const midgame_result_t plain = midgame_solve(board, false, threads(2));
  ASSERT_EQ(r.values.size(), plain.values.size());
  std::vector<size_t> rotated, placed;
  int root_win = 1000, root_loss = -1;
  for (size_t i = 0; i < r.values.size(); i++) {
    const midgame_value_t& v = r.values[i];
    EXPECT_EQ(v.value, plain.values[i].value) << "entry " << i;
    EXPECT_EQ(plain.values[i].distance, -1);
    EXPECT_EQ(v.distance < 0, v.value == 0) << "entry " << i;
    if (i + 1 == r.values.size()) break;
    if (!v.to_rotate) {
      rotated.push_back(i);
      continue;
    }
    if (i >= 8 && !r.values[i - 1].to_rotate) {
      placed.push_back(i);
      // The placement's distance: its fastest winning rotation or slowest losing one.
      int win = 1000, loss = -1;
      for (size_t k = i - 8; k < i; k++) {
        if (r.values[k].value < 0) win = std::min(win, 1 + r.values[k].distance);
        if (r.values[k].value > 0) loss = std::max(loss, 1 + r.values[k].distance);
      }
      EXPECT_EQ(v.distance, v.value > 0 ? win : v.value < 0 ? loss : -1) << "entry " << i;
    }
    const int turns = v.distance == 0 ? 1 : v.distance;  // 0: five by placing, one turn
    if (v.value > 0) root_win = std::min(root_win, turns);
    if (v.value < 0) root_loss = std::max(root_loss, turns);
  }
  const midgame_value_t& root = r.values.back();
  EXPECT_EQ(root.distance, root.value > 0 ? root_win : root.value < 0 ? root_loss : -1);
  std::shuffle(rotated.begin(), rotated.end(), rng);
  std::shuffle(placed.begin(), placed.end(), rng);
  for (int k = 0; k < samples && k < int(rotated.size()); k++) {
    const midgame_value_t& v = r.values[rotated[k]];
    const midgame_value_t own = midgame_solve(v.board, false, with_distance(2)).values.back();
    EXPECT_EQ(own.value, v.value) << v.board;
    EXPECT_EQ(own.distance, v.distance) << v.board;
  }
  if (!placed.empty()) {
    const midgame_value_t& v = r.values[placed[0]];
    const midgame_result_t m = midgame_solve(v.board, true, with_distance(2));
    ASSERT_EQ(m.values.size(), 9u);
    for (int s = 0; s < 9; s++) {
      EXPECT_EQ(m.values[s].value, r.values[placed[0] - 8 + s].value) << s;
      EXPECT_EQ(m.values[s].distance, r.values[placed[0] - 8 + s].distance) << s;
    }
  }
}

}  // namespace

TEST(midgame, distances_match_exact_search) {
  std::mt19937_64 rng(14);
  for (const auto& [stones, to_rotate] : std::vector<std::pair<int, bool>>{
           {26, false}, {27, true}, {28, false}, {29, false}, {31, true}, {33, false}}) {
    const board_t board = random_open_position(rng, stones, to_rotate);
    SCOPED_TRACE(testing::Message()
                 << stones << " stones" << (to_rotate ? " to rotate" : "") << ", board " << board);
    check_distances_against_search(board, to_rotate);
  }
}

TEST(midgame, distances_follow_the_recurrence_20_to_22) {
  check_distance_recurrence(22, 4, 15);
  check_distance_recurrence(21, 2, 16);
  check_distance_recurrence(20, 1, 17);
}

TEST(midgame, distances_follow_the_recurrence_18_19) {
  check_distance_recurrence(19, 1, 18);
  check_distance_recurrence(18, 1, 19);
}
