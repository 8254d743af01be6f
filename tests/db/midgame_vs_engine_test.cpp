// The midgame solver against the backward engine: a small root of slice 26 solved in process
// with every slice saved (--save), then random boards of the saved slices 26-35, to place and
// to rotate, solved by the midgame solver; the root and every listed board to place must have
// the saved value.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <random>

#include "pentago/db/lookup.h"
#include "pentago/end/local_driver.h"
#include "pentago/layout/section.h"
#include "pentago/mid/midgame.h"

using namespace pentago;
namespace fs = std::filesystem;

namespace {

// Quadrants full of black (0) and of white (1), four black stones in 2 and four white in 3:
// 26 stones, ten empty cells, about 10^6 boards over its descendants.
const char root_section[] = "90094004";

struct run_dir_t {
  std::string path;
  ~run_dir_t() {
    std::error_code ec;
    if (!path.empty() && !std::getenv("PENTAGO_KEEP_TEST_RUNS")) fs::remove_all(path, ec);
  }
};

// A board of `section` with its stones on random cells of each quadrant.
board_t random_section_board(const section_t& section, std::mt19937_64& rng) {
  side_t sides[2] = {0, 0};
  for (int q = 0; q < 4; q++) {
    int cells[9] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
    std::shuffle(cells, cells + 9, rng);
    int k = 0;
    for (int c = 0; c < 2; c++)
      for (int i = 0; i < section.counts[q][c]; i++) sides[c] |= side_t(1) << (16 * q + cells[k++]);
  }
  return pack(sides[0], sides[1]);
}

// The saved value of a board to place, for its player to move (a full board: the rules).
int saved_value(const slice_database_t& db, board_t board) {
  if (count_stones(board) == 36) return terminal_value(board);
  const superinfo_t bw = db.black_white(board);
  const int black = bw.win(0), white = bw.notlose(0);
  return board_turn(board) == 0 ? black - white : white - black;
}

}  // namespace

TEST(midgame_vs_engine, random_boards_of_saved_slices_26_to_35) {
  run_dir_t dir{(fs::path(PENTAGO_BINARY_DIR) / "test-runs" /
                 ("midgame-vs-engine-" + std::to_string(getpid())))
                    .string()};
  fs::remove_all(dir.path);
  fs::create_directories(fs::path(dir.path).parent_path());
  local_options_t o;
  o.root = section_t::parse(root_section);
  o.threads = 2;
  o.dir = dir.path;
  o.save = 35;
  o.echo = false;
  o.memory = uint64_t(2) << 30;
  o.level = 1;
  run_local(o);

  slice_database_t db;
  db.add_directory(dir.path);
  for (int n = 26; n <= 35; n++) ASSERT_TRUE(db.has_slice(n)) << "slice " << n << " not saved";
  const auto sections = descendant_sections(o.root, 35);
  std::mt19937_64 rng(26);
  midgame_workspace_t workspace;
  midgame_options_t options;
  options.threads = 2;
  int compared = 0, open_roots = 0;
  for (int n = 26; n <= 35; n++) {
    // Most boards of these sections have five in a row (valued by the rules, compared too):
    // draw until four open ones (two to place, two to rotate) or 300 boards.
    int open[2] = {0, 0};
    for (int trial = 0; trial < 300 && open[0] + open[1] < 4; trial++) {
      const section_t& section = sections[n][rng() % sections[n].size()];
      const board_t board = random_section_board(section, rng);
      const bool to_rotate = trial % 2 == 1;
      if (open[to_rotate] == 2) continue;
      SCOPED_TRACE(testing::Message()
                   << "slice " << n << " board " << board << (to_rotate ? "m" : ""));
      const midgame_result_t r = midgame_solve(board, to_rotate, options, workspace);
      ASSERT_FALSE(r.values.empty());
      if (!to_rotate) {
        EXPECT_EQ(r.values.back().value, saved_value(db, board));
        compared++;
      }
      open[to_rotate] += r.values.size() > 1;
      open_roots += r.values.size() > 1;
      // Every listed board to place (after a rotation) of slice n (to rotate) or n + 1.
      for (const midgame_value_t& v : r.values) {
        if (v.to_rotate || v.board == board) continue;
        EXPECT_EQ(v.value, saved_value(db, v.board)) << "child " << v.board;
        compared++;
      }
    }
  }
  EXPECT_GE(open_roots, 30);
  EXPECT_GT(compared, 1000);
}
