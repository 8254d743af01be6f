// Tests of the query path on the published slices 0-2: answers equal to the slices read
// independently (negamax between slices 0, 1 and 2), the rules for finished games, positions
// to rotate, errors naming the missing slice, partial answers, a corrupt local copy, position
// parsing, the JSON shape, routes decided once and followed, and midgame answers: values,
// distances and the best line.
#include "pentago/query/query.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "pentago/db/lookup.h"
#include "pentago/util/error.h"
#include "test_support.h"

using namespace pentago;
namespace fs = std::filesystem;

namespace {

const std::string published = PENTAGO_SHARED_DATA;

std::string fresh_dir(const std::string& name) { return test::fresh_dir("query", name); }

// The value of a board to place for its mover, read independently of the query path.
int stored_value(const slice_database_t& db, board_t board) {
  const superinfo_t v = db.black_white(board);
  const bool black = v.win(0), white = v.notlose(0);
  if (!black && !white) return 0;
  return black == (board_turn(board) == 0) ? 1 : -1;
}

query_options_t published_options() {
  query_options_t o;
  o.databases = {published};
  return o;
}

// The compact form of a board given by its top rows (6 cells each); the rest is empty.
std::string rows(std::initializer_list<const char*> top) {
  std::string s;
  for (const char* r : top) s += r;
  return s + std::string(36 - s.size(), '_');
}

board_t board_of(const std::string& compact) { return parse_position(compact).board; }

}  // namespace

TEST(query, answers_equal_the_slices_and_are_negamax_consistent) {
  slice_database_t db;
  ASSERT_EQ(db.add_directory(published), 3);
  query_engine_t engine(published_options());
  EXPECT_EQ(engine.slices(), (std::vector<int>{0, 1, 2}));
  std::vector<board_t> roots = {0};
  for (int x = 0; x < 6; x++)
    for (int y = 0; y < 6; y++) roots.push_back(pack(cell_bit(x, y), 0));
  for (const board_t board : roots) {
    const int n = count_stones(board);
    const position_answer_t a = engine.answer({board, false});
    EXPECT_EQ(a.stones, n);
    EXPECT_EQ(a.to_move, n & 1);
    EXPECT_EQ(a.source, answer_source_t::database);
    EXPECT_EQ(a.slice, n + 1);
    // The root's value equals the stored value of its own slice (read from slice n).
    EXPECT_EQ(a.value, stored_value(db, board)) << board;
    ASSERT_EQ(a.moves.size(), size_t(36 - n));
    int previous = 2;
    for (const auto& m : a.moves) {
      EXPECT_LE(m.value, previous) << "moves not sorted best first";
      previous = m.value;
      ASSERT_TRUE(m.child.to_rotate);
      EXPECT_EQ(count_stones(m.child.board), n + 1);
      ASSERT_EQ(m.rotations.size(), 8u);
      int best = -2, prev_r = 2;
      for (const auto& r : m.rotations) {
        EXPECT_LE(r.value, prev_r);
        prev_r = r.value;
        EXPECT_FALSE(r.child.to_rotate);
        // Every rotation: minus the child's stored value in slice n + 1.
        EXPECT_EQ(r.value, -stored_value(db, r.child.board)) << r.child.board;
        best = std::max(best, r.value);
      }
      EXPECT_EQ(m.value, best);
      // The child to rotate, asked on its own, reads slice n + 1 and agrees.
      const position_answer_t c = engine.answer(m.child);
      EXPECT_EQ(c.value, m.value);
      EXPECT_EQ(c.to_move, n & 1);
      EXPECT_EQ(c.moves.size(), 8u);
    }
    EXPECT_EQ(a.value, a.moves.front().value);
  }
  // Children of the same position fall in few blocks.
  const query_stats_t s = engine.stats();
  EXPECT_GT(s.block_cache_hits, 10 * s.block_cache_misses);
  EXPECT_EQ(s.midgame_solves, 0u);
}

TEST(query, positions_to_rotate_read_their_own_slice) {
  slice_database_t db;
  db.add_directory(published);
  query_engine_t engine(published_options());
  std::mt19937_64 rng(5);
  for (int k = 0; k < 10; k++) {
    // Two stones, the second just placed by white: its rotations are 2-stone boards.
    const int a = int(rng() % 36);
    int b = int(rng() % 36);
    if (b == a) b = (b + 1) % 36;
    const board_t board = pack(cell_bit(a / 6, a % 6), cell_bit(b / 6, b % 6));
    const position_answer_t r = engine.answer({board, true});
    EXPECT_EQ(r.to_move, 1);
    EXPECT_EQ(r.slice, 2);
    ASSERT_EQ(r.moves.size(), 8u);
    for (const auto& m : r.moves) {
      EXPECT_TRUE(m.rotations.empty());
      EXPECT_EQ(m.value, -stored_value(db, m.child.board));
    }
  }
}

TEST(query, finished_games_follow_the_rules_without_data) {
  query_engine_t engine(query_options_t{});  // no database at all
  // Black has five in a row on row a, white to move: black has won.
  const board_t five = board_of(rows({"00000_", "111_1_"}));
  position_answer_t a = engine.answer({five, false});
  EXPECT_EQ(a.source, answer_source_t::rules);
  EXPECT_EQ(a.value, -1);  // for white, to move
  EXPECT_TRUE(a.moves.empty());
  // White has just placed the stone making its five and must rotate: a win at once.
  const board_t white_five = board_of(rows({"11111_", "000_00"}));
  ASSERT_EQ(count_stones(white_five), 10);
  a = engine.answer({white_five, true});
  EXPECT_EQ(a.source, answer_source_t::rules);
  EXPECT_EQ(a.to_move, 1);
  EXPECT_EQ(a.value, 1);
  // A full board where nobody has five: a tie.
  std::string full;
  for (int row = 0; row < 6; row++) full += row % 2 ? "011001" : "100110";
  const position_t full_position = parse_position(full);
  if (!won(unpack(full_position.board, 0)) && !won(unpack(full_position.board, 1))) {
    a = engine.answer(full_position);
    EXPECT_EQ(a.value, 0);
    EXPECT_EQ(a.source, answer_source_t::rules);
  }
  EXPECT_FALSE(engine.route({five, false}).needs_midgame());
}

TEST(query, a_position_beyond_the_data_is_an_error_not_a_guess) {
  query_engine_t engine(published_options());
  const board_t four = board_of(rows({"000_11", "1_____"}));
  try {
    (void)engine.answer({four, false});
    FAIL() << "a 6-stone position cannot be answered from slices 0-2";
  } catch (const usage_error_t&) {
    FAIL() << "not a usage error";
  } catch (const pentago_error_t& e) {
    EXPECT_NE(std::string(e.what()).find("slice-7.pentago"), std::string::npos) << e.what();
  }
}

TEST(query, missing_slices_are_named) {
  query_engine_t engine(published_options());
  const board_t two = pack(cell_bit(0, 0), cell_bit(1, 1));
  for (const auto& [p, slice] : std::vector<std::pair<position_t, std::string>>{
           {{two, false}, "slice-3.pentago"}, {{two | 0, true}, "slice-2.pentago"}}) {
    if (p.to_rotate) {
      // Answerable: slice 2 holds the rotations of a 2-stone position.
      EXPECT_EQ(engine.answer(p).slice, 2);
      continue;
    }
    // A partial answer: the value from slice 2, no moves, the reason naming slice 3.
    const position_answer_t a = engine.answer(p);
    EXPECT_TRUE(a.moves.empty());
    EXPECT_EQ(a.source, answer_source_t::database);
    EXPECT_EQ(a.slice, 2);
    EXPECT_NE(a.moves_unknown.find(slice), std::string::npos) << a.moves_unknown;
    EXPECT_EQ(a.moves_unknown.find('\n'), std::string::npos) << a.moves_unknown;
  }
  // Only slice 2 given: the empty board needs slice 1.
  const std::string dir = fresh_dir("only-2");
  fs::copy_file(published + "/slice-2.pentago", dir + "/slice-2.pentago");
  query_options_t o;
  o.databases = {dir};
  query_engine_t partial(o);
  EXPECT_THROW((void)partial.answer({0, false}), pentago_error_t);
  EXPECT_NO_THROW((void)partial.answer({pack(cell_bit(2, 2), 0), false}));
  fs::remove_all(dir);
}

// A position to place whose own slice is held but whose children's is not: its value (equal
// to what its parent's rotation says), no moves, the missing slice named; JSON "moves": null.
TEST(query, partial_answers_give_the_value_and_name_the_missing_slice) {
  query_engine_t engine(published_options());
  const position_answer_t parent = engine.answer({pack(cell_bit(1, 4), 0), false});
  int checked = 0;
  for (const auto& m : parent.moves)
    for (const auto& r : m.rotations) {
      if (r.source != answer_source_t::database || checked >= 12) continue;
      const position_answer_t a = engine.answer(r.child);
      EXPECT_EQ(a.value, -r.value) << position_code(r.child);
      EXPECT_EQ(a.source, answer_source_t::database);
      EXPECT_EQ(a.slice, 2);
      EXPECT_TRUE(a.moves.empty());
      EXPECT_NE(a.moves_unknown.find("slice-3.pentago"), std::string::npos) << a.moves_unknown;
      const auto j = nlohmann::json::parse(answer_json(a));
      EXPECT_TRUE(j["moves"].is_null());
      EXPECT_EQ(j["moves_unknown"], a.moves_unknown);
      EXPECT_EQ(j["value"], value_word(-r.value));
      checked++;
    }
  EXPECT_EQ(checked, 12);
  // Answers with moves have no reason field.
  EXPECT_FALSE(nlohmann::json::parse(answer_json(parent)).contains("moves_unknown"));
}

TEST(query, a_corrupt_local_block_is_a_clear_error) {
  const std::string dir = fresh_dir("corrupt");
  const std::string path = dir + "/slice-1.pentago";
  fs::copy_file(published + "/slice-1.pentago", path);
  test::corrupt_first_block(path);  // one byte of the first block's compressed data
  query_options_t o;
  o.databases = {dir};
  query_engine_t engine(o);
  try {
    (void)engine.answer({0, false});
    FAIL() << "a corrupt block was read";
  } catch (const pentago_error_t& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("slice-1.pentago"), std::string::npos) << what;
    EXPECT_NE(what.find("corrupt"), std::string::npos) << what;
  }
  fs::remove_all(dir);
}

TEST(query, json_has_the_shape_of_the_api) {
  query_engine_t engine(published_options());
  const position_answer_t a = engine.answer({pack(cell_bit(1, 4), 0), false});
  const auto j = nlohmann::json::parse(answer_json(a));
  EXPECT_EQ(j["board"], position_code(a.position));
  EXPECT_EQ(j["stones"], 1);
  EXPECT_EQ(j["to_move"], "white");
  EXPECT_EQ(j["phase"], "place");
  EXPECT_EQ(j["value"], value_word(a.value));
  EXPECT_EQ(j["source"], "database");
  EXPECT_EQ(j["slice"], 2);
  EXPECT_TRUE(j["elapsed_ms"].is_number());
  ASSERT_EQ(j["moves"].size(), 35u);
  for (size_t i = 0; i < a.moves.size(); i++) {
    const auto& m = j["moves"][i];
    EXPECT_EQ(m["move"], a.moves[i].move);
    EXPECT_EQ(m["child"], std::to_string(a.moves[i].child.board) + "m");
    EXPECT_EQ(m["value"], value_word(a.moves[i].value));
    EXPECT_TRUE(m["source"].is_string());
    ASSERT_EQ(m["rotations"].size(), 8u);
    for (const auto& r : m["rotations"]) {
      EXPECT_TRUE(r["move"].get<std::string>().rfind("q", 0) == 0);
      EXPECT_EQ(r["child"].get<std::string>().back() != 'm', true);
      EXPECT_TRUE(r["value"] == "win" || r["value"] == "tie" || r["value"] == "loss");
    }
  }
  // A position to rotate: phase "rotate", eight moves without nested rotations.
  const auto r = nlohmann::json::parse(answer_json(engine.answer(a.moves.front().child)));
  EXPECT_EQ(r["phase"], "rotate");
  EXPECT_EQ(r["to_move"], "white");
  EXPECT_EQ(r["board"].get<std::string>().back(), 'm');
  ASSERT_EQ(r["moves"].size(), 8u);
  EXPECT_TRUE(r["moves"][0]["rotations"].empty());
}

TEST(query, answers_are_cached_by_position) {
  query_engine_t engine(published_options());
  const position_answer_t first = engine.answer({0, false});
  const uint64_t misses = engine.stats().block_cache_misses;
  const position_answer_t again = engine.answer({0, false});
  EXPECT_EQ(again.value, first.value);
  EXPECT_EQ(again.moves.size(), first.moves.size());
  const query_stats_t s = engine.stats();
  EXPECT_EQ(s.queries, 2u);
  EXPECT_EQ(s.answer_cache_hits, 1u);
  EXPECT_EQ(s.block_cache_misses, misses);
  // The children to rotate were remembered with the root's answer: no new block reads.
  (void)engine.answer(first.moves.back().child);
  EXPECT_EQ(engine.stats().answer_cache_hits, 2u);
}

TEST(query, the_midgame_range_is_routed_to_the_midgame_solver) {
  query_engine_t engine(published_options());
  // 18 stones, none in a row of five.
  const position_t p = parse_position(rows({"010101", "101010", "010101"}));
  EXPECT_TRUE(engine.route(p).needs_midgame());
  EXPECT_FALSE(engine.route({0, false}).needs_midgame());
}

TEST(query, a_route_is_decided_once_and_the_answer_follows_it) {
  query_engine_t engine(published_options());
  // A finished game: the rules.
  const board_t five = board_of(rows({"00000_", "111_1_"}));
  EXPECT_EQ(engine.route({five, false}).kind, route_kind_t::rules);
  // The empty board: its children's slice, with the children to read.
  const query_route_t empty = engine.route({0, false});
  EXPECT_EQ(empty.kind, route_kind_t::database);
  EXPECT_EQ(empty.children.size(), 36u * 8);
  const position_answer_t a = engine.answer(empty);
  EXPECT_EQ(a.source, answer_source_t::database);
  EXPECT_EQ(a.moves.size(), 36u);
  // Answered once: the cache, and the same answer without a second computation.
  const query_route_t again = engine.route({0, false});
  ASSERT_EQ(again.kind, route_kind_t::cached);
  ASSERT_TRUE(again.cached);
  EXPECT_EQ(answer_json(engine.answer(again)).substr(0, 200), answer_json(a).substr(0, 200));
  EXPECT_EQ(engine.stats().queries, 2u);
  EXPECT_EQ(engine.stats().answer_cache_hits, 1u);
  // A position to place with 2 stones: slice 3 is missing, its own value is in slice 2.
  const query_route_t partial = engine.route({pack(cell_bit(1, 4), cell_bit(2, 2)), false});
  EXPECT_EQ(partial.kind, route_kind_t::own_value_only);
  EXPECT_NE(partial.missing.find("slice-3.pentago"), std::string::npos) << partial.missing;
  EXPECT_EQ(engine.answer(partial).moves_unknown, partial.missing);
  // Six stones: nothing answers; the answer throws the route's reason.
  const query_route_t none = engine.route({board_of(rows({"000_11", "1_____"})), false});
  EXPECT_EQ(none.kind, route_kind_t::unanswerable);
  EXPECT_NE(none.missing.find("slice-7.pentago"), std::string::npos) << none.missing;
  try {
    (void)engine.answer(none);
    FAIL() << "an unanswerable route was answered";
  } catch (const pentago_error_t& e) {
    EXPECT_EQ(std::string(e.what()), none.missing);
  }
  // An impossible position (nobody has placed, yet to rotate) is refused by the routing.
  EXPECT_THROW((void)engine.route({0, true}), usage_error_t);
}

namespace {

// A random position with `stones` stones whose game is not over.
board_t random_open_board(std::mt19937_64& rng, int stones) {
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

TEST(query, midgame_answers_equal_forward_search_near_the_end) {
  query_engine_t engine(query_options_t{});
  std::mt19937_64 rng(29);
  for (const int stones : {27, 30}) {
    const board_t board = random_open_board(rng, stones);
    const position_answer_t a = engine.answer({board, false});
    EXPECT_EQ(a.value, int(super_value(board))) << board;
    for (const auto& m : a.moves) {
      if (m.rotations.empty()) {
        EXPECT_EQ(m.source, answer_source_t::rules);
        EXPECT_TRUE(won(unpack(m.child.board, a.to_move)));
        continue;
      }
      for (const auto& r : m.rotations)
        EXPECT_EQ(r.value, -int(super_value(r.child.board))) << r.child.board;
    }
  }
  EXPECT_GE(engine.stats().midgame_solves, 2u);
}

TEST(query, midgame_answers_are_negamax_consistent) {
  // A 20-stone position; its children asked of fresh engines (separate solves) agree.
  std::mt19937_64 rng(20);
  const board_t board = random_open_board(rng, 20);
  query_engine_t engine(query_options_t{});
  EXPECT_TRUE(engine.route({board, false}).needs_midgame());
  const position_answer_t a = engine.answer({board, false});
  EXPECT_EQ(a.source == answer_source_t::midgame || a.source == answer_source_t::rules, true);
  EXPECT_FALSE(engine.route({board, false}).needs_midgame());  // cached now
  ASSERT_FALSE(a.moves.empty());
  const move_answer_t& best = a.moves.front();
  EXPECT_EQ(a.value, best.value);
  if (best.child.to_rotate) {
    query_engine_t fresh(query_options_t{});
    const position_answer_t c = fresh.answer(best.child);
    EXPECT_EQ(c.value, best.value);
    ASSERT_EQ(c.moves.size(), 8u);
    const auto& r = c.moves.front();
    query_engine_t fresh2(query_options_t{});
    EXPECT_EQ(fresh2.answer(r.child).value, -r.value);
  }
  // The best line reaches the end of the game, each step valued for its mover.
  const auto line = engine.best_line({board, false});
  ASSERT_GE(line.size(), 2u);
  EXPECT_TRUE(line.back().moves.empty());
  EXPECT_EQ(line.back().source, answer_source_t::rules);
  for (size_t i = 0; i + 1 < line.size(); i++) {
    const bool same_player = line[i].to_move == line[i + 1].to_move;
    EXPECT_EQ(line[i + 1].value, same_player ? line[i].value : -line[i].value) << i;
  }
}

// Distances: every decisive midgame answer, move and rotation has one (also in the JSON),
// moves are ordered fastest win first and slowest loss first, and the best line from a won
// (or lost) position ends in exactly its distance in turns, one less after each turn.
TEST(query, distances_order_the_moves_and_the_best_line_ends_in_distance_turns) {
  query_options_t o;
  o.distance_min_stones = 18;
  query_engine_t engine(o);
  std::mt19937_64 rng(31);
  int lines = 0;
  for (int attempt = 0; attempt < 20 && lines < 2; attempt++) {
    const board_t board = random_open_board(rng, 21 + attempt % 2);
    const position_answer_t a = engine.answer({board, false});
    if (a.value == 0) {
      EXPECT_EQ(a.distance, -1);
      continue;
    }
    SCOPED_TRACE(testing::Message() << "board " << board);
    ASSERT_GE(a.distance, 1);
    EXPECT_EQ(a.distance, a.moves.front().distance);
    const auto j = nlohmann::json::parse(answer_json(a));
    EXPECT_EQ(j["distance"], a.distance);
    for (size_t i = 0; i < a.moves.size(); i++) {
      const move_answer_t& m = a.moves[i];
      EXPECT_EQ(m.distance < 0, m.value == 0) << m.move;
      EXPECT_EQ(j["moves"][i].contains("distance"), m.value != 0) << m.move;
      for (const auto& r : m.rotations) EXPECT_EQ(r.distance < 0, r.value == 0) << r.move;
      if (i == 0 || m.value != a.moves[i - 1].value || m.value == 0) continue;
      if (m.value > 0) {
        EXPECT_GE(m.distance, a.moves[i - 1].distance) << m.move;
      } else {
        EXPECT_LE(m.distance, a.moves[i - 1].distance) << m.move;
      }
    }
    const auto line = engine.best_line({board, false});
    int turns = 0;
    for (size_t i = 0; i + 1 < line.size(); i++) {
      // A turn ends with a rotation, or with a placement making five.
      const bool turn_ends = line[i].position.to_rotate || !line[i + 1].position.to_rotate;
      EXPECT_EQ(line[i + 1].distance, turn_ends ? line[i].distance - 1 : line[i].distance) << i;
      turns += turn_ends;
    }
    EXPECT_EQ(turns, a.distance);
    EXPECT_EQ(line.back().distance, 0);
    EXPECT_TRUE(line.back().moves.empty());
    lines++;
  }
  EXPECT_EQ(lines, 2);
}
