// The shared command-line conventions (apps/cli.h, base/options.h): decimal-only values, the
// argument cursor, the capped board reader, picture row labels, move notation and the main
// wrapper's exit codes and one-line messages.
#include "cli.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace pentago;
namespace fs = std::filesystem;

namespace {

TEST(options, integers_are_decimal_only) {
  EXPECT_EQ(parse_int_option("--threads", "010", 1, 100), 10);  // not octal 8
  EXPECT_EQ(parse_int_option("--save", "08", -1, 35), 8);       // not an octal error
  EXPECT_EQ(parse_int_option("--save", "-1", -1, 35), -1);
  for (const char* bad : {"0x10", "0X1", "+5", " 5", "5 ", "", "-", "1e3", "5k", "0b1"})
    EXPECT_THROW(parse_int_option("--threads", bad, -100, 100000), usage_error_t) << bad;
  EXPECT_THROW(parse_int_option("--threads", "99999999999999999999", 0, 10), usage_error_t);
  EXPECT_THROW(parse_int_option("--threads", "11", 0, 10), usage_error_t);
}

TEST(options, memory_sizes_are_decimal_only) {
  EXPECT_EQ(parse_memory_option("--memory", "16G"), uint64_t(16) << 30);
  EXPECT_EQ(parse_memory_option("--memory", "1.5GiB"), uint64_t(3) << 29);
  EXPECT_EQ(parse_memory_option("--memory", "512m"), uint64_t(512) << 20);
  EXPECT_EQ(parse_memory_option("--memory", "1000"), 1000u);
  for (const char* bad :
       {"0x10G", "inf", "nan", "1e9", "-1G", "0", "G", ".5G", "1.G", "1 G", "4Q", "", "0.1"})
    EXPECT_THROW(parse_memory_option("--memory", bad), usage_error_t) << bad;
}

TEST(options, numbers_lie_in_their_range) {
  EXPECT_EQ(parse_number_option("--speed", "1e6", 1, 1e12), 1e6);
  EXPECT_EQ(parse_number_option("--xz-ratio", "0.15", 0.001, 2), 0.15);
  EXPECT_EQ(parse_number_option("--job-seconds", "0", 0, 1e6), 0);
  for (const char* bad : {"", "x", "1e6x", "nan", "3", "-1", "0"})
    EXPECT_THROW(parse_number_option("--xz-ratio", bad, 0.001, 2), usage_error_t) << bad;
  try {
    parse_number_option("--xz-ratio", "3", 0.001, 2);
    ADD_FAILURE() << "3 is over the range";
  } catch (const usage_error_t& e) {
    EXPECT_EQ(std::string(e.what()),
              "--xz-ratio must be a number in [0.001000, 2.000000], got '3'");
  }
}

struct command_line_t {
  std::vector<std::string> words;
  std::vector<char*> argv;
  explicit command_line_t(std::vector<std::string> w) : words(std::move(w)) {
    for (auto& s : words) argv.push_back(s.data());
  }
  int argc() const { return int(argv.size()); }
};

TEST(argument_cursor, both_value_spellings_and_flags) {
  command_line_t c({"app", "--threads", "3", "--memory=2G", "-", "ROOT", "--flag"});
  argument_cursor_t args(c.argc(), c.argv.data());
  ASSERT_TRUE(args.next());
  EXPECT_EQ(args.arg(), "--threads");
  EXPECT_EQ(args.int_value(1, 8), 3);
  ASSERT_TRUE(args.next());
  EXPECT_EQ(args.arg(), "--memory");
  EXPECT_EQ(args.memory_value(), uint64_t(2) << 30);
  ASSERT_TRUE(args.next());
  EXPECT_FALSE(args.is_option());  // '-' is standard input
  ASSERT_TRUE(args.next());
  EXPECT_EQ(args.arg(), "ROOT");
  ASSERT_TRUE(args.next());
  EXPECT_THROW(args.value(), usage_error_t);  // at the end of the line
  EXPECT_FALSE(args.next());

  command_line_t flag({"app", "--json=1"});
  argument_cursor_t f(flag.argc(), flag.argv.data());
  ASSERT_TRUE(f.next());
  EXPECT_THROW(f.next(), usage_error_t);  // a flag given a value
}

const fs::path scratch = fs::path(PENTAGO_BINARY_DIR) / "test-runs" / "cli";

TEST(board_reader, reads_numbers_pictures_files_and_stdin) {
  fs::create_directories(scratch);
  std::istringstream none;
  EXPECT_EQ(cli::board_text("12345", none), "12345");
  EXPECT_EQ(cli::read_board("1"), board_t(1));
  const std::string picture = str_board(1);
  EXPECT_EQ(cli::board_text(picture, none), picture);
  std::ofstream(scratch / "board.txt") << picture;
  EXPECT_EQ(cli::read_board((scratch / "board.txt").string()), board_t(1));
  std::istringstream in(picture);
  EXPECT_EQ(parse_board(cli::board_text("-", in)), board_t(1));
  // A file named with digits only is still the number, as in every app.
  std::ofstream(scratch / "7") << picture;
  EXPECT_EQ(cli::board_text("7", none), "7");
}

TEST(board_reader, refuses_what_is_not_a_board) {
  fs::create_directories(scratch);
  std::istringstream none;
  std::istringstream big(std::string(cli::max_board_bytes + 1, '_'));
  EXPECT_THROW(cli::board_text("-", big), usage_error_t);
  std::ofstream(scratch / "big.txt") << std::string(100000, '0');
  EXPECT_THROW(cli::board_text((scratch / "big.txt").string(), none), usage_error_t);
  if (fs::exists("/dev/zero")) {
    EXPECT_THROW(cli::board_text("/dev/zero", none), usage_error_t);
  }
  try {
    cli::board_text((scratch / "missing.txt").string(), none);
    FAIL();
  } catch (const usage_error_t& e) {
    EXPECT_NE(std::string(e.what()).find("no such file"), std::string::npos) << e.what();
  }
  try {
    cli::board_text(scratch.string(), none);
    FAIL();
  } catch (const usage_error_t& e) {
    EXPECT_NE(std::string(e.what()).find("is a directory"), std::string::npos) << e.what();
  }
}

TEST(board_reader, row_labels_must_match_their_rows) {
  const std::string rows[6] = {"______", "______", "______", "______", "______", "0_____"};
  std::string good, reversed;
  for (int r = 0; r < 6; r++) {
    good += std::string(1, char('a' + r)) + "  " + rows[r] + "\n";
    reversed += std::string(1, char('f' - r)) + "  " + rows[r] + "\n";
  }
  EXPECT_EQ(parse_board(good), cell_bit(0, 0));
  EXPECT_THROW(parse_board(reversed), usage_error_t);  // f..a from the top: refused, not misread
}

TEST(move_notation, cells_quadrants_and_turns) {
  EXPECT_EQ(cell_name(0, 5), "a1");
  EXPECT_EQ(cell_name(5, 0), "f6");
  for (int x = 0; x < 6; x++)
    for (int y = 0; y < 6; y++)
      EXPECT_EQ(cell_name_of_bit(__builtin_ctzll(cell_bit(x, y))), cell_name(x, y));
  EXPECT_EQ(move_name(3, 3, 3, -1), "c4 q3 cw");
  EXPECT_EQ(move_name(0, 0, 0, 1), "f1 q0 ccw");
  EXPECT_EQ(move_name(0, 0, 2, 0), "f1");  // an immediate win: no turn
}

int run_with(const std::function<int(int, char**)>& body, std::vector<std::string> words,
             std::string* err) {
  command_line_t c(std::move(words));
  testing::internal::CaptureStderr();
  testing::internal::CaptureStdout();
  const int code =
      cli::run_main("pentago-test", "usage: pentago-test\n", c.argc(), c.argv.data(), body);
  testing::internal::GetCapturedStdout();
  *err = testing::internal::GetCapturedStderr();
  return code;
}

TEST(run_main, exit_codes_and_one_line_messages) {
  std::string err;
  EXPECT_EQ(run_with([](int, char**) -> int { throw usage_error_t("bad\noption"); }, {"t"}, &err),
            2);
  EXPECT_EQ(err, "pentago-test: bad; option\n");
  EXPECT_EQ(run_with([](int, char**) -> int { throw pentago_error_t("disk full\n"); }, {"t"}, &err),
            1);
  EXPECT_EQ(err, "pentago-test: error: disk full\n");
  EXPECT_EQ(run_with([](int, char**) -> int { throw std::bad_alloc(); }, {"t"}, &err), 1);
  EXPECT_EQ(err, "pentago-test: error: out of memory\n");
  EXPECT_EQ(run_with([](int, char**) -> int { throw pentago_error_t("never"); },
                     {"t", "x", "--help"}, &err),
            0);
  EXPECT_EQ(err, "");
  EXPECT_EQ(run_with([](int, char**) { return 0; }, {"t"}, &err), 0);
}

}  // namespace
