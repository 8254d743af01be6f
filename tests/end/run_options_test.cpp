// Driver helpers: a log that cannot be written fails loudly, shell quoting survives the shell,
// output files are checked before a run, and the fast meaningless values equal their
// definition (XOR over the 8 global symmetries, salts 0-3 for win and 7 for notlose).
#include "pentago/end/run_options.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "pentago/end/meaningless.h"
#include "pentago/util/error.h"
#include "pentago/util/random.h"

using namespace pentago;
namespace fs = std::filesystem;

namespace {

TEST(run_log, write_error_throws_naming_the_file) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  run_log log;
  log.set_echo(false);
  log.open("/dev/full");  // opens fine; every write fails with ENOSPC
  try {
    log.line("slice 35: something worth keeping");
    FAIL() << "a failed log write was ignored";
  } catch (const error& e) {
    EXPECT_NE(std::string(e.what()).find("/dev/full"), std::string::npos) << e.what();
  }
}

// What sh makes of a word after quoting: the word itself.
std::string through_shell(const std::string& word) {
  const std::string command = "printf '%s' " + shell_quote(word);
  FILE* pipe = popen(command.c_str(), "r");
  std::string out;
  char buffer[256];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
  pclose(pipe);
  return out;
}

TEST(shell_quote, words_survive_the_shell) {
  for (const std::string word : {"plain", "run dir", "it's", "a\"b", "$HOME", "x;rm -rf y",
                                 "back\\slash", "*", "", "tab\there", "--dir=/a b/c"})
    EXPECT_EQ(through_shell(word), word) << shell_quote(word);
  EXPECT_EQ(shell_quote("/runs/r-1/slice-35.pentago"), "/runs/r-1/slice-35.pentago");
}

TEST(check_new_output_file, refuses_what_cannot_be_written) {
  const fs::path dir = fs::path(PENTAGO_BINARY_DIR) / "test-runs" / "new-output-file";
  fs::remove_all(dir);
  fs::create_directories(dir);
  EXPECT_NO_THROW(check_new_output_file("--trace", "", ""));
  EXPECT_NO_THROW(check_new_output_file("--trace", (dir / "t.json").string(), ""));
  std::ofstream(dir / "exists.json") << "{}";
  EXPECT_THROW(check_new_output_file("--trace", (dir / "exists.json").string(), ""), usage_error);
  EXPECT_THROW(check_new_output_file("--trace", (dir / "no" / "t.json").string(), ""), usage_error);
  // A folder whose permissions allow writing but where no file can be made (even for root).
  EXPECT_THROW(check_new_output_file("--trace", "/proc/nope.json", ""), usage_error);
  EXPECT_FALSE(fs::exists(dir / "t.json"));  // the check leaves nothing behind
  // Inside the run directory, which the run is about to create.
  EXPECT_NO_THROW(
      check_new_output_file("--trace", (dir / "run" / "t.json").string(), (dir / "run/").string()));
  if (::geteuid() != 0) {
    fs::create_directories(dir / "locked");
    fs::permissions(dir / "locked", fs::perms::owner_read | fs::perms::owner_exec);
    EXPECT_THROW(check_new_output_file("--trace", (dir / "locked" / "t.json").string(), ""),
                 usage_error);
    fs::permissions(dir / "locked", fs::perms::owner_all);
  }
}

TEST(meaningless, value_equals_its_definition) {
  random_t random(make_uint128(71, 3));
  for (int i = 0; i < 200; i++) {
    // Random positions: each cell empty, black or white.
    side_t black = 0, white = 0;
    for (int x = 0; x < 6; x++)
      for (int y = 0; y < 6; y++) {
        const int c = int(random.bits<uint64_t>() % 3);
        (c == 1 ? black : c == 2 ? white : black) |= c ? cell_bit(x, y) : 0;
      }
    const board_t board = pack(black, white);
    const super_t win = super_meaningless(board, 0) | super_meaningless(board, 1) |
                        super_meaningless(board, 2) | super_meaningless(board, 3);
    const superinfo_t v = meaningless_value(board);
    ASSERT_TRUE(v.win == win) << board;
    ASSERT_TRUE(v.notlose == (win | super_meaningless(board, 7))) << board;
  }
}

}  // namespace
