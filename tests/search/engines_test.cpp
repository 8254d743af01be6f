// Tests of the forward engines: the move rule on hand-made positions, the board engine against
// a brute-force minimax, the super engine against the board engine on every rotation of
// 2,000 random boards, leaf values, value conventions and fast superstandardization.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "pentago/base/random_moves.h"
#include "pentago/base/symmetry.h"
#include "pentago/search/board_search.h"
#include "pentago/search/standardize.h"
#include "pentago/search/super_search.h"
#include "pentago/util/error.h"

using namespace pentago;

namespace {

// A board with `stones` stones on random cells (black first), no reachability filter.
board_t random_board(std::mt19937_64& rng, int stones) { return random_cells_board(rng, stones); }

// A position reached by random legal moves from the empty board, still open, with `stones`
// stones; tries again when a playout ends early.
board_t random_playout(std::mt19937_64& rng, int stones) {
  for (;;) {
    board_t board = 0;
    int n = 0;
    for (; n < stones && terminal_value(board) == 2; n++) {
      board = place_random_stone(board, n & 1, rng);
      if (won(unpack(board, n & 1))) break;  // immediate win: the game is over
      board = rotate_randomly(board, rng);
    }
    if (n == stones && terminal_value(board) == 2) return board;
  }
}

// g.board: quadrant i turned CCW g_i times.
board_t rotated(board_t board, int g) { return transform_board(symmetry_t(0, g), board); }

// The rules (docs/formats.md, "Boards") as a plain minimax: no pruning, no table, no move ordering.
int brute_force(side_t me, side_t op) {
  const bool me_five = won(me), op_five = won(op);
  if (me_five || op_five) return me_five && op_five ? 0 : me_five ? 1 : -1;
  const side_t empty = side_mask & ~(me | op);
  if (!empty) return 0;
  int best = -1;
  for (side_t rest = empty; rest; rest &= rest - 1) {
    const side_t placed = me | (rest & -rest);
    if (won(placed)) return 1;
    for (int q = 0; q < 4; q++)
      for (int dir : {1, -1})
        best = std::max(best, -brute_force(rotate_side(op, q, dir), rotate_side(placed, q, dir)));
  }
  return best;
}

int brute_force_value(board_t board) {
  const int turn = board_turn(board);
  return brute_force(unpack(board, turn), unpack(board, 1 - turn));
}

// The recurrence (docs/formats.md, "Supers") written out directly: no table, no standardization, no
// pruning.
superinfo_t plain_super(side_t black, side_t white, int n, int leaf_stones,
                        const leaf_function_t& leaf) {
  if (n == leaf_stones) return leaf(pack(black, white));
  const side_t me = n & 1 ? white : black, op = n & 1 ? black : white;
  const super_t w0 = super_wins(me), w1 = super_wins(op), imm = w0 | w1;
  super_t win, notlose;
  if (n == 36) return {w0 & ~w1, w0 | ~w1};
  for (side_t rest = side_mask & ~(black | white); rest; rest &= rest - 1) {
    const side_t cell = rest & -rest;
    const super_t p = super_wins(me | cell);
    win |= p;
    if (n == 35 && leaf_stones != 36) {
      win |= rmax(p & ~w1);
      notlose |= rmax(p | ~w1);
    } else {
      const superinfo_t child = n & 1 ? plain_super(black, white | cell, n + 1, leaf_stones, leaf)
                                      : plain_super(black | cell, white, n + 1, leaf_stones, leaf);
      win |= rmax(~child.notlose);
      notlose |= rmax(~child.win);
    }
  }
  return {(win & ~imm) | (w0 & ~w1), (notlose & ~imm) | w0};
}

// Deterministic pseudo-random super pair of a standardized board (win implies notlose).
superinfo_t noise(board_t standard) {
  std::mt19937_64 rng(standard);
  superinfo_t v;
  for (int i = 0; i < 4; i++) v.win.w[i] = rng() & rng(), v.notlose.w[i] = v.win.w[i] | rng();
  // Make it invariant under the board's stabilizer, so that the leaf is equivariant: for each
  // global part, the local turns that bring every quadrant back.
  const superinfo_t raw = v;
  for (int g = 0; g < 8; g++) {
    const board_t t = transform_board(symmetry_t(g, 0), standard);
    std::vector<int> locals = {0};
    for (int j = 0; j < 4; j++) {
      std::vector<int> next;
      for (int r = 0; r < 4; r++)
        if (rotate_quadrant(quadrant(t, j), r) == quadrant(standard, j))
          for (int l : locals) next.push_back(l | r << 2 * j);
      locals = next;
    }
    for (int l : locals) {
      const symmetry_t sym = symmetry_t(0, l) * symmetry_t(g, 0);
      EXPECT_EQ(transform_board(sym, standard), standard);
      v.win |= transform_super(sym, raw.win);
      v.notlose |= transform_super(sym, raw.notlose);
    }
  }
  return v;
}

board_t picture(const char* rows) { return parse_board(rows); }

// Adds black-white pairs of stones on random cells outside `keep_empty` until the board has
// `stones` stones (same parity), never changing whether either side has five.
board_t padded(board_t board, int stones, side_t keep_empty, std::mt19937_64& rng) {
  side_t black = unpack(board, 0), white = unpack(board, 1);
  const bool black_five = won(black), white_five = won(white);
  while (popcount(black | white) < stones) {
    const board_t before = pack(black, white);
    for (side_t* side : {&black, &white})
      for (;;) {
        const int bit = int(rng() % 64);
        const side_t cell = side_t(1) << bit;
        if (!(side_mask & cell) || ((black | white | keep_empty) & cell)) continue;
        *side |= cell;
        if (won(black) == black_five && won(white) == white_five) break;
        *side &= ~cell;
      }
    EXPECT_NE(before, pack(black, white));
  }
  return pack(black, white);
}

}  // namespace

TEST(search_rules, fives_on_the_board_decide_first) {
  // The super engine values all 256 rotations, so positions are padded to 28 stones to keep
  // the search short; padding never changes who has five.
  std::mt19937_64 rng(17);
  // Black (to move) already has five on row f: a win before any move.
  const board_t black_five =
      padded(picture("______\n______\n1_1___\n1_____\n1_1___\n00000_"), 28, 0, rng);
  EXPECT_EQ(board_value(black_five), game_value_t::win);
  EXPECT_EQ(super_value(black_five), game_value_t::win);
  // White five only (black to move): a loss for black although black could complete a line.
  const board_t white_five =
      padded(picture("11111_\n______\n0000__\n______\n0_____\n______"), 28, 0, rng);
  EXPECT_EQ(board_value(white_five), game_value_t::loss);
  EXPECT_EQ(super_value(white_five), game_value_t::loss);
  // Both fives: a tie.
  const board_t both =
      padded(picture("11111_\n______\n______\n______\n______\n00000_"), 28, 0, rng);
  EXPECT_EQ(board_value(both), game_value_t::tie);
  EXPECT_EQ(super_value(both), game_value_t::tie);
}

TEST(search_rules, placement_five_wins_at_once) {
  // White to move completes five on row a by placing at a5; no rotation is needed.
  std::mt19937_64 rng(19);
  const board_t b =
      padded(picture("1111_0\n00____\n______\n______\n00____\n______"), 29, cell_bit(4, 5), rng);
  EXPECT_EQ(board_turn(b), 1);
  EXPECT_EQ(board_value(b), game_value_t::win);
  EXPECT_EQ(super_value(b), game_value_t::win);
}

TEST(search_rules, full_board_is_a_tie) {
  // A full board with no five: a tie.
  side_t black = 0, white = 0;
  for (int x = 0; x < 6; x++)
    for (int y = 0; y < 6; y++) ((x / 2 + y) & 1 ? white : black) |= cell_bit(x, y);
  const board_t b = pack(black, white);
  ASSERT_EQ(terminal_value(b), 0);
  EXPECT_EQ(board_value(b), game_value_t::tie);
  EXPECT_EQ(super_value(b), game_value_t::tie);
}

TEST(search_rules, board_engine_matches_brute_force) {
  std::mt19937_64 rng(31);
  int checked = 0;
  for (int i = 0; i < 160; i++) {
    const int stones = 32 + i % 4;
    const board_t b = i % 2 ? random_board(rng, stones) : random_playout(rng, stones);
    board_searcher_t with_table(10), without_table(0);
    const int expected = brute_force_value(b);
    EXPECT_EQ(int(with_table.value(b)), expected) << b;
    EXPECT_EQ(int(without_table.value(b)), expected) << b;
    checked += terminal_value(b) == 2;
  }
  EXPECT_GT(checked, 60);  // most positions need an actual search
}

// The main cross-check: super engine bit g equals the board engine on g.board, for all 256
// rotations of 2,000 boards with 26..34 stones (random placements and random playouts).
TEST(search_engines, super_agrees_with_board_on_every_rotation) {
  std::mt19937_64 rng(2024);
  board_searcher_t reference(20);
  super_searcher_t engine;
  // Fewer boards with many empty cells: the board engine's cost grows fast there.
  const int boards_per_count[9] = {60, 90, 180, 220, 270, 290, 300, 300, 300};
  int boards = 0, open = 0, mismatches = 0;
  for (int stones = 26; stones <= 34; stones++)
    for (int i = 0; i < boards_per_count[stones - 26]; i++) {
      const board_t b = i % 4 == 3 ? random_playout(rng, stones) : random_board(rng, stones);
      const superinfo_t v = engine.solve(b);
      ASSERT_TRUE(popcount(v.win & ~v.notlose) == 0) << "win without notlose at " << b;
      for (int g = 0; g < 256; g++) {
        const game_value_t expected = reference.value(rotated(b, g));
        if (rotation_value(v, g) != expected && mismatches++ < 10)
          ADD_FAILURE() << "board " << b << " rotation " << g << ": super "
                        << value_name(rotation_value(v, g)) << ", board engine "
                        << value_name(expected) << "\n"
                        << str_board(rotated(b, g));
      }
      boards++;
      open += terminal_value(b) == 2;
    }
  EXPECT_EQ(mismatches, 0);
  EXPECT_GE(boards, 2000);
  EXPECT_GT(open, 1000);
}

TEST(search_engines, one_shot_helpers_and_conventions) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 200; i++) {
    const board_t b = random_board(rng, 29 + i % 6);
    const int turn = board_turn(b);
    const superinfo_t v = super_solve(b), files = super_black_white(b);
    EXPECT_EQ(files, to_black_white(v, turn));
    EXPECT_EQ(popcount(files.win & files.notlose), 0) << "black and white both win";
    // Bit 0 is the board itself, in both conventions.
    const int value = int(super_value(b));
    EXPECT_EQ(value, int(board_value(b)));
    const int black_view = files.win(0) ? 1 : files.notlose(0) ? -1 : 0;
    EXPECT_EQ(black_view, turn == 0 ? value : -value);
  }
}

TEST(search_engines, exact_leaves_reproduce_exact_search) {
  // Leaves two plies down valued by the exact search itself change nothing.
  std::mt19937_64 rng(11);
  for (int i = 0; i < 40; i++) {
    const board_t b = random_playout(rng, 26 + i % 4);
    const int n = count_stones(b);
    super_search_options_t options;
    options.leaf_stones = n + 2;
    options.leaf = [](board_t leaf) { return super_solve(leaf); };
    super_searcher_t limited(options);
    EXPECT_EQ(limited.solve(b), super_solve(b)) << b;
    EXPECT_GT(limited.stats().leaves, 0u);
  }
  // Full-board leaves valued by the rules.
  super_search_options_t options;
  options.leaf_stones = 36;
  options.leaf = [](board_t full) { return super_solve(full); };
  super_searcher_t to_the_end(options);
  const board_t b = random_playout(rng, 31);
  EXPECT_EQ(to_the_end.solve(b), super_solve(b));
}

TEST(search_engines, pseudo_random_leaves_match_plain_recurrence) {
  // Meaningless leaf values exercise standardization and the table off the game's values.
  std::mt19937_64 rng(99);
  const leaf_function_t leaf = equivariant_leaf(noise);
  for (int i = 0; i < 30; i++) {
    const board_t b = random_board(rng, 27 + i % 3);
    const int n = count_stones(b);
    super_search_options_t options;
    options.leaf_stones = n + 3;
    options.leaf = leaf;
    options.table_min_empties = 0;  // every position through the table
    super_searcher_t engine(options);
    const superinfo_t expected =
        plain_super(unpack(b, 0), unpack(b, 1), n, options.leaf_stones, leaf);
    EXPECT_EQ(engine.solve(b), expected) << b;
    // A second, all-hits pass over the same table gives the same value.
    EXPECT_EQ(engine.solve(b), expected) << b;
    // And the root itself at the leaf count is the leaf.
    options.leaf_stones = n;
    EXPECT_EQ(super_searcher_t(options).solve(b), leaf(b));
  }
}

TEST(search_engines, exact_search_matches_plain_recurrence) {
  std::mt19937_64 rng(5);
  for (int i = 0; i < 60; i++) {
    const board_t b = random_board(rng, 30 + i % 6);
    EXPECT_EQ(super_solve(b), plain_super(unpack(b, 0), unpack(b, 1), count_stones(b), -1, {}))
        << b;
  }
}

TEST(search_engines, rejects_bad_input) {
  // Results go to named variables: a discarded superinfo_t may get a misaligned slot.
  superinfo_t v;
  EXPECT_THROW(v = super_solve(19683), usage_error_t);                    // not a radix-3 quadrant
  EXPECT_THROW(v = super_solve(pack(0, cell_bit(0, 0))), usage_error_t);  // white moved first
  super_search_options_t options;
  options.threads = 0;
  EXPECT_THROW(super_searcher_t{options}, usage_error_t);
  options.threads = 1;
  options.leaf_stones = 30;  // no leaf function
  EXPECT_THROW(super_searcher_t{options}, usage_error_t);
  options.leaf_stones = 37;
  options.leaf = [](board_t) { return superinfo_t{}; };
  EXPECT_THROW(super_searcher_t{options}, usage_error_t);
  options.leaf_stones = -1;
  options.table_bits = 3;
  EXPECT_THROW(super_searcher_t{options}, usage_error_t);
}

TEST(search_standardize, fast_matches_base) {
  std::mt19937_64 rng(3);
  for (int i = 0; i < 20000; i++) {
    const board_t b = random_board(rng, int(rng() % 37));
    symmetry_t expected_symmetry, symmetry;
    const board_t expected = superstandardize(b, &expected_symmetry);
    ASSERT_EQ(fast_superstandardize(b, &symmetry), expected) << b;
    EXPECT_EQ(symmetry, expected_symmetry) << b;
    EXPECT_EQ(transform_board(symmetry, b), expected) << b;
  }
}
