// Tests of the slice database of pentago-check and the query path, and of the run-directory
// scanner: the published slices 0-2 (the empty board is a black win; the rotations of a board
// are its record's bits), duplicate slices, meaningless markers, and the classification of a
// run directory's files.
#include "pentago/db/lookup.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "pentago/db/run_directory.h"
#include "pentago/util/error.h"
#include "test_support.h"

using namespace pentago;
namespace fs = std::filesystem;

namespace {

const std::string published = PENTAGO_SHARED_DATA;

std::string fresh_dir(const std::string& name) { return test::fresh_dir("lookup", name); }

}  // namespace

TEST(lookup, empty_board_is_a_black_win) {
  slice_database_t db;
  EXPECT_EQ(db.add_directory(published), 3);
  EXPECT_EQ(db.slices(), (std::vector<int>{0, 1, 2}));
  // Black wins under every rotation of the empty board.
  EXPECT_EQ(db.black_white(0).win, super_t::ones());
  EXPECT_EQ(db.black_white(0).notlose, super_t{});
  // Bit g of a board's record is the value of g.board.
  for (int x = 0; x < 6; x++)
    for (int y = 0; y < 6; y++) {
      const board_t board = pack(cell_bit(x, y), 0);
      const superinfo_t all = db.black_white(board);
      for (int g : {1, 17, 85, 255}) {
        const superinfo_t other = db.black_white(transform_board(symmetry_t(0, g), board));
        EXPECT_EQ(all.win(g), other.win(0));
        EXPECT_EQ(all.notlose(g), other.notlose(0));
      }
    }
  EXPECT_GT(db.cache().stats().hits, 0u);
}

TEST(lookup, names_and_errors) {
  EXPECT_EQ(cell_name(0, 5), "a1");
  EXPECT_EQ(cell_name(5, 0), "f6");
  slice_database_t db;
  EXPECT_THROW(db.add_directory(fresh_dir("empty") + "/missing"), pentago::pentago_error_t);
  db.add_file(published + "/slice-1.pentago");
  EXPECT_THROW(db.add_file(published + "/slice-1.pentago"), pentago::pentago_error_t);
  EXPECT_THROW(db.black_white(0), pentago::pentago_error_t);  // slice 0 not added
  EXPECT_FALSE(db.find(0).has_value());
  const std::string marker = fresh_dir("marker");
  std::ofstream(marker + "/meaningless-4");
  slice_database_t m;
  EXPECT_EQ(m.add_directory(marker), 0);
  EXPECT_EQ(m.meaningless(), 4);
}

TEST(lookup, run_directory_scanner_classifies_files) {
  const std::string dir = fresh_dir("scan");
  for (const char* name :
       {"counts-3.npy", "sparse-3.npy", "slice-3.pentago", "slice-3.pentago.index", "counts-35.npy",
        "meaningless-7", "log", "counts-99.npy", "slice-123.pentago", "meaningless-0", "notes.txt"})
    std::ofstream(dir + "/" + name);
  fs::create_directory(dir + "/slice-4.pentago");  // not a file
  const run_directory_listing_t l = scan_run_directory(dir);
  ASSERT_EQ(l.slices.size(), 2u);
  const slice_files_t& s3 = l.slices.at(3);
  EXPECT_EQ(s3.counts, dir + "/counts-3.npy");
  EXPECT_EQ(s3.sparse, dir + "/sparse-3.npy");
  EXPECT_EQ(s3.slice, dir + "/slice-3.pentago");
  EXPECT_EQ(s3.index, dir + "/slice-3.pentago.index");
  EXPECT_EQ(l.slices.at(35).counts, dir + "/counts-35.npy");
  EXPECT_TRUE(l.slices.at(35).slice.empty());
  EXPECT_EQ(l.meaningless_markers, std::vector<int>{7});
  std::vector<std::string> others;
  for (const auto& e : l.others) others.push_back(e.path().filename().string());
  EXPECT_EQ(others, (std::vector<std::string>{"counts-99.npy", "log", "meaningless-0", "notes.txt",
                                              "slice-123.pentago", "slice-4.pentago"}));
  EXPECT_THROW(scan_run_directory(dir + "/log"), pentago::pentago_error_t);
  fs::remove_all(dir);
}
