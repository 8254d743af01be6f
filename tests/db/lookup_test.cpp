// Tests of position look-up: the published slices 0-2 (the empty board is a black win, every
// move's value is minimax over the stored children), forward-search fallback with and without
// leaves from a saved slice or the meaningless marker, immediate wins, and the block cache.
#include "pentago/db/lookup.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include "pentago/end/meaningless.h"
#include "pentago/search/super_search.h"
#include "pentago/util/error.h"

using namespace pentago;
namespace fs = std::filesystem;

namespace {

const std::string published = PENTAGO_SHARED_DATA;

// Directories of this process, removed at exit unless PENTAGO_KEEP_TEST_RUNS is set.
struct test_dirs {
  std::vector<fs::path> paths;
  ~test_dirs() {
    if (std::getenv("PENTAGO_KEEP_TEST_RUNS")) return;
    std::error_code ec;
    for (const auto& p : paths) fs::remove_all(p, ec);
  }
} created_dirs;

std::string fresh_dir(const std::string& name) {
  const fs::path dir = fs::path(PENTAGO_BINARY_DIR) / "test-runs" /
                       ("lookup-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  created_dirs.paths.push_back(dir);
  return dir.string();
}

// The value of a board for its mover, read by hand from disk-format bits.
game_value mover_value(const superinfo_t& disk, board_t board, int rotation = 0) {
  const bool black = disk.win(rotation), white = disk.notlose(rotation);
  if (!black && !white) return game_value::tie;
  return black == (board_turn(board) == 0) ? game_value::win : game_value::loss;
}

// Every move of `board` computed independently: place, rotate, negate the child's value.
std::vector<game_value> expected_moves(board_t board,
                                       const std::function<superinfo_t(board_t)>& child_value) {
  std::vector<game_value> values;
  const int turn = board_turn(board);
  for (int y = 5; y >= 0; y--)
    for (int x = 0; x < 6; x++) {
      const side_t bit = cell_bit(x, y);
      if (!(empty_cells(board) & bit)) continue;
      const int i = __builtin_ctzll(bit);
      const board_t placed = place_stone(board, turn, i / 16, i % 16);
      if (won(unpack(placed, turn))) {
        values.push_back(game_value::win);
        continue;
      }
      for (int q = 0; q < 4; q++)
        for (int dir : {1, -1}) {
          const board_t child = rotate_board(placed, q, dir);
          values.push_back(game_value(-int(mover_value(child_value(child), child))));
        }
    }
  return values;
}

void write_meaningless_slice(const std::string& dir, int n) {
  write_slice_file(
      dir + "/slice-" + std::to_string(n) + ".pentago", slice_sections(n),
      [n](int, const section_t& s, const block_t& b, std::span<superinfo_t> nodes) {
        const auto shape = block_shape(s, b);
        size_t k = 0;
        for (int i0 = 0; i0 < shape[0]; i0++)
          for (int i1 = 0; i1 < shape[1]; i1++)
            for (int i2 = 0; i2 < shape[2]; i2++)
              for (int i3 = 0; i3 < shape[3]; i3++)
                nodes[k++] = to_black_white(
                    meaningless_value(section_board(
                        s, {8 * b[0] + i0, 8 * b[1] + i1, 8 * b[2] + i2, 8 * b[3] + i3})),
                    n & 1);
      });
}

// A random board with `stones` stones whose game is not over.
board_t random_board(std::mt19937_64& rng, int stones) {
  for (;;) {
    side_t sides[2] = {0, 0};
    for (int k = 0; k < stones; k++) {
      side_t bit;
      do {
        const int c = int(rng() % 36);
        bit = cell_bit(c / 6, c % 6);
      } while ((sides[0] | sides[1]) & bit);
      sides[k & 1] |= bit;
    }
    const board_t b = pack(sides[0], sides[1]);
    if (terminal_value(b) == 2) return b;
  }
}

}  // namespace

TEST(lookup, empty_board_is_a_black_win) {
  slice_database db;
  EXPECT_EQ(db.add_directory(published), 3);
  EXPECT_EQ(db.slices(), (std::vector<int>{0, 1, 2}));
  position_evaluator evaluator(db);
  value_source source;
  EXPECT_EQ(evaluator.value(0, &source), game_value::win);
  EXPECT_EQ(source, value_source::saved_slice);
  // Black wins under every rotation of the empty board.
  EXPECT_EQ(db.black_white(0).win, super_t::ones());
  EXPECT_EQ(evaluator.searches(), 0u);
}

TEST(lookup, moves_are_minimax_over_stored_children) {
  slice_database db;
  db.add_directory(published);
  position_evaluator evaluator(db);
  // The empty board and every one-stone board (children in slices 1 and 2).
  std::vector<board_t> boards = {0};
  for (int x = 0; x < 6; x++)
    for (int y = 0; y < 6; y++) boards.push_back(pack(cell_bit(x, y), 0));
  for (const board_t board : boards) {
    const auto moves = evaluator.moves(board);
    const auto expected =
        expected_moves(board, [&](board_t child) { return db.black_white(child); });
    ASSERT_EQ(moves.size(), expected.size());
    game_value best = game_value::loss;
    for (size_t i = 0; i < moves.size(); i++) {
      EXPECT_EQ(moves[i].value, expected[i]) << board << " move " << move_name(moves[i]);
      EXPECT_EQ(moves[i].source, value_source::saved_slice);
      EXPECT_EQ(count_stones(moves[i].child), count_stones(board) + 1);
      best = std::max(best, moves[i].value);
    }
    EXPECT_EQ(evaluator.value(board), best) << board;
    // Every rotation too: the stored value of g.board is the board's super at bit g.
    const superinfo_t all = db.black_white(board);
    for (int g : {1, 17, 85, 255})
      EXPECT_EQ(mover_value(all, board, g),
                mover_value(db.black_white(transform_board(symmetry_t(0, g), board)),
                            transform_board(symmetry_t(0, g), board)));
  }
  EXPECT_EQ(evaluator.searches(), 0u);
  // Children of a position fall in few blocks: most look-ups hit the cache.
  const auto stats = db.cache().stats();
  EXPECT_GT(stats.hits, 10 * stats.misses);
}

TEST(lookup, falls_back_to_exact_search) {
  slice_database db;
  db.add_directory(published);
  position_evaluator evaluator(db);
  std::mt19937_64 rng(7);
  for (int i = 0; i < 3; i++) {
    const board_t board = random_board(rng, 32);
    value_source source;
    EXPECT_EQ(evaluator.black_white(board, &source), super_black_white(board));
    EXPECT_EQ(source, value_source::search);
  }
  EXPECT_EQ(evaluator.searches(), 3u);
  // Full boards follow the rules.
  for (int i = 0; i < 3; i++) {
    std::vector<int> cells(36);
    for (int c = 0; c < 36; c++) cells[c] = c;
    std::shuffle(cells.begin(), cells.end(), rng);
    side_t sides[2] = {0, 0};
    for (int k = 0; k < 36; k++) sides[k & 1] |= cell_bit(cells[k] / 6, cells[k] % 6);
    const board_t full = pack(sides[0], sides[1]);
    value_source source;
    EXPECT_EQ(evaluator.black_white(full, &source), super_black_white(full));
    EXPECT_EQ(source, value_source::full_board);
  }
  // Too deep: one line of error.
  EXPECT_THROW(evaluator.black_white(random_board(rng, 3)), pentago::error);
}

TEST(lookup, searches_down_to_a_saved_slice_or_the_meaningless_marker) {
  // Reference: forward search with meaningless leaves at slice 4.
  super_search_options o;
  o.leaf_stones = 4;
  o.leaf = cached_leaf(meaningless_value);
  super_searcher reference(o);

  const std::string saved = fresh_dir("saved-4");
  write_meaningless_slice(saved, 4);
  const std::string marker = fresh_dir("marker-4");
  std::ofstream(marker + "/meaningless-4");

  for (const auto& dir : {saved, marker}) {
    slice_database db;
    EXPECT_EQ(db.add_directory(dir), dir == saved ? 1 : 0);
    position_evaluator evaluator(db);
    std::mt19937_64 rng(11);
    for (int stones : {2, 3, 3}) {
      const board_t board = random_board(rng, stones);
      value_source source;
      EXPECT_EQ(evaluator.black_white(board, &source), reference.black_white(board)) << dir;
      EXPECT_EQ(source, value_source::search);
      // The moves of a 3-stone board: children at slice 4 come from the file or the marker.
      if (stones == 3) {
        const auto moves = evaluator.moves(board);
        const auto expected = expected_moves(
            board, [&](board_t c) { return to_black_white(meaningless_value(c), 0); });
        ASSERT_EQ(moves.size(), expected.size());
        for (size_t i = 0; i < moves.size(); i++) {
          EXPECT_EQ(moves[i].value, expected[i]);
          EXPECT_EQ(moves[i].source,
                    dir == saved ? value_source::saved_slice : value_source::meaningless);
        }
      }
    }
  }
}

TEST(lookup, immediate_wins_are_listed_once) {
  slice_database db;
  position_evaluator evaluator(db);
  std::mt19937_64 rng(3);
  int found = 0;
  for (int attempt = 0; attempt < 2000 && found < 3; attempt++) {
    const board_t board = random_board(rng, 32);
    const auto moves = evaluator.moves(board);
    const auto expected =
        expected_moves(board, [](board_t child) { return super_black_white(child); });
    ASSERT_EQ(moves.size(), expected.size());
    bool immediate = false;
    game_value best = game_value::loss;
    for (size_t i = 0; i < moves.size(); i++) {
      EXPECT_EQ(moves[i].value, expected[i]);
      best = std::max(best, moves[i].value);
      if (moves[i].direction == 0) {
        immediate = true;
        EXPECT_EQ(moves[i].value, game_value::win);
        EXPECT_EQ(move_name(moves[i]).size(), 2u);
      }
    }
    EXPECT_EQ(evaluator.value(board), best);
    found += immediate;
  }
  EXPECT_EQ(found, 3);
}

TEST(lookup, block_cache_evicts_least_recently_used) {
  const supertensor_reader reader(published + "/slice-2.pentago");
  ASSERT_GE(reader.sections().size(), 3u);
  const uint64_t one = 64 * uint64_t(block_nodes(reader.sections()[0], {0, 0, 0, 0}));
  block_cache cache(one);  // room for about one block
  const block_t zero{0, 0, 0, 0};
  const auto a = cache.get(reader, 0, zero);
  EXPECT_EQ(*cache.get(reader, 0, zero), reader.read_block(0, zero));
  EXPECT_EQ(cache.stats().hits, 1u);
  cache.get(reader, 1, zero);
  cache.get(reader, 2, zero);
  EXPECT_GE(cache.stats().evictions, 1u);
  EXPECT_EQ(cache.stats().misses, 3u);
  EXPECT_EQ(*a, reader.read_block(0, zero));  // still valid after eviction
  EXPECT_LE(cache.stats().bytes, std::max<uint64_t>(one, 64 * 16));
}

TEST(lookup, names_and_errors) {
  EXPECT_EQ(cell_name(0, 5), "a1");
  EXPECT_EQ(cell_name(5, 0), "f6");
  move_value_t m;
  m.x = 2, m.y = 3, m.quadrant = 3, m.direction = -1;
  EXPECT_EQ(move_name(m), "c3 q3 cw");
  slice_database db;
  EXPECT_THROW(db.add_directory(fresh_dir("empty") + "/missing"), pentago::error);
  db.add_file(published + "/slice-1.pentago");
  EXPECT_THROW(db.add_file(published + "/slice-1.pentago"), pentago::error);
  EXPECT_THROW(db.black_white(0), pentago::error);  // slice 0 not added
  EXPECT_FALSE(db.find(0).has_value());
}
