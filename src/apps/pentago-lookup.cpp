// pentago-lookup: the value of a position and of each of its moves from saved slice files.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "pentago/db/lookup.h"
#include "pentago/end/run_options.h"
#include "pentago/util/error.h"

namespace {

using namespace pentago;

const char usage_text[] =
    "usage: pentago-lookup --db DIR [--db DIR...] [options] BOARD\n"
    "Prints the value of BOARD and of each of its moves, looked up in DIR/slice-N.pentago\n"
    "(a position with N stones is read from slice N). Where a slice is not saved the value\n"
    "comes from a forward search, whose leaves are the nearest saved slice above (or the\n"
    "meaningless slice of a test run).\n"
    "BOARD: a decimal board number, a file holding a 6x6 picture (rows a..f top to bottom,\n"
    "columns 1..6, cells _ 0 1), or '-' to read the picture from stdin.\n"
    "  --cache SIZE      memory for decoded blocks (default 1G)\n"
    "  --threads N       forward search threads (default 1)\n"
    "  --max-depth D     longest forward search allowed, in stones (default 12)\n"
    "  --no-moves        print only the position's value\n"
    "  --help            this text\n"
    "Moves are written as cell, quadrant and turn: 'c4 q3 cw' places at row c, column 4, then\n"
    "turns quadrant 3 clockwise (quadrants: 0 lower left, 1 upper left, 2 lower right,\n"
    "3 upper right). A placement making five in a row wins at once and has no turn.\n";

board_t read_board_argument(const std::string& arg) {
  if (arg == "-") {
    std::stringstream text;
    text << std::cin.rdbuf();
    return parse_board(text.str());
  }
  std::error_code ec;
  if (std::filesystem::is_regular_file(arg, ec)) {
    std::ifstream in(arg);
    std::stringstream text;
    text << in.rdbuf();
    if (!in) throw usage_error("cannot read board file " + arg);
    return parse_board(text.str());
  }
  return parse_board(arg);
}

const char* value_word(game_value v) {
  return v == game_value::win ? "win" : v == game_value::loss ? "loss" : "tie";
}

int run(int argc, char** argv) {
  std::vector<std::string> dirs;
  std::string board_arg;
  bool have_board = false, show_moves = true;
  uint64_t cache = uint64_t(1) << 30;
  evaluator_options options;
  for (int i = 1; i < argc; i++) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw usage_error(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--db")
      dirs.push_back(value());
    else if (arg == "--cache")
      cache = parse_memory_option(arg, value());
    else if (arg == "--threads")
      options.threads = int(parse_int_option(arg, value(), 1, 1024));
    else if (arg == "--max-depth")
      options.max_search_depth = int(parse_int_option(arg, value(), 0, 36));
    else if (arg == "--no-moves")
      show_moves = false;
    else if (arg.size() > 1 && arg[0] == '-')
      throw usage_error("unknown option " + arg);
    else if (have_board)
      throw usage_error("more than one board given: " + arg);
    else
      board_arg = arg, have_board = true;
  }
  if (dirs.empty()) throw usage_error("missing --db DIR");
  if (!have_board) throw usage_error("missing BOARD");
  const board_t board = read_board_argument(board_arg);

  slice_database db(cache);
  for (const auto& dir : dirs) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec))
      throw usage_error("--db " + dir + ": no such directory");
    db.add_directory(dir);
  }
  position_evaluator evaluator(db, options);
  value_source source;
  const int n = count_stones(board), turn = board_turn(board);
  const game_value v = evaluator.value(board, &source);
  std::printf("%s\n\n", str_board(board).c_str());
  std::printf("board %llu: %d stones, %s to move: %s for %s (%s)\n", (unsigned long long)board, n,
              turn ? "white" : "black", value_word(v), turn ? "white" : "black",
              source_name(source));
  if (!show_moves) return 0;
  const auto moves = evaluator.moves(board);
  if (moves.empty()) {
    std::printf("no moves: the game is over\n");
    return 0;
  }
  int counts[3] = {0, 0, 0};
  game_value best = game_value::loss;
  for (const auto& m : moves) {
    std::printf("  %-10s %-4s  child %llu (%s)\n", move_name(m).c_str(), value_word(m.value),
                (unsigned long long)m.child, source_name(m.source));
    counts[int(m.value) + 1]++;
    best = std::max(best, m.value);
  }
  std::printf("%zu moves: %d win, %d tie, %d loss; best %s\n", moves.size(), counts[2], counts[1],
              counts[0], value_word(best));
  if (best != v) {
    std::fprintf(
        stderr,
        "pentago-lookup: inconsistent data: the position is a %s but its best move is a %s\n",
        value_word(v), value_word(best));
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; i++)
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::fputs(usage_text, stdout);
      return 0;
    }
  try {
    return run(argc, argv);
  } catch (const pentago::usage_error& e) {
    std::fprintf(stderr, "pentago-lookup: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pentago-lookup: error: %s\n", e.what());
    return 1;
  }
}
