// pentago-search: solves one position by forward search and prints its value and the value
// of every legal move (cell + rotation) as a table, with nodes searched and time.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <tuple>
#include <vector>

#include "cli.h"
#include "pentago/base/board.h"
#include "pentago/search/lockless_table.h"
#include "pentago/search/super_search.h"
#include "pentago/util/error.h"
#include "pentago/util/timer.h"

using namespace pentago;

namespace {

const char* usage_text =
    "usage: pentago-search [--threads N] [--table-bits B] BOARD\n"
    "\n"
    "Solves a pentago position by forward search and prints its value for the player to move\n"
    "and the value of every legal move (a stone on an empty cell, then a quadrant turn).\n"
    "\n"
    "BOARD is the decimal packed board (digits only: always a number, never a file name), a\n"
    "file holding the 6x6 picture (rows a..f from the top, columns 1..6; '_' empty, '0' black,\n"
    "'1' white, as printed by this program), or '-' to read the picture or number from\n"
    "standard input (at most 4096 bytes). The player to move follows from the stone counts:\n"
    "black when they are equal, else white. A finished game is answered by the rules.\n"
    "\n"
    "Moves are written as cell, quadrant and turn: 'c4 q3 cw' places at row c, column 4, then\n"
    "turns quadrant 3 clockwise (quadrants: 0 lower left, 1 upper left, 2 lower right,\n"
    "3 upper right). A placement making five in a row wins at once and has no turn.\n"
    "\n"
    "options:\n"
    "  --threads N      search threads (default 1)\n"
    "  --table-bits B   transposition table of 2^B buckets, 256 bytes each (default 18)\n"
    "  -h, --help       show this help\n"
    "\n"
    "Positions with 26 or more stones take seconds; every empty cell costs roughly a factor\n"
    "of ten.\n";

const char* player_names[2] = {"black", "white"};

struct move_row_t {
  int bit;
  int quadrant;
  int dir;  // +1 CCW, -1 CW, 0: the placement wins, no rotation
  game_value_t value;
};

std::string with_commas(uint64_t n) {
  const std::string digits = std::to_string(n);
  std::string s;
  for (size_t i = 0; i < digits.size(); i++) {
    if (i && (digits.size() - i) % 3 == 0) s += ',';
    s += digits[i];
  }
  return s;
}

int run(int argc, char** argv) {
  super_search_options_t options;
  options.table_bits = 18;
  std::vector<std::string> positional;
  argument_cursor_t args(argc, argv);
  while (args.next()) {
    if (args.arg() == "--threads")
      options.threads = int(args.int_value(1, 1024));
    else if (args.arg() == "--table-bits")
      options.table_bits = int(args.int_value(8, 40));
    else if (args.is_option())
      args.unknown();
    else
      positional.push_back(args.arg());
  }
  if (positional.size() != 1)
    throw usage_error_t(positional.empty()
                            ? "missing BOARD (see --help)"
                            : "expected one BOARD, got " + std::to_string(positional.size()));
  const board_t board = cli::read_board(positional[0]);

  // Refuse tables that do not fit in memory instead of being killed while zeroing them.
  const double table_bytes = std::ldexp(2.0 * 128, options.table_bits);
  const double memory = double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE));
  if (memory > 0 && table_bytes > memory / 2)
    throw usage_error_t("a table of 2^" + std::to_string(options.table_bits) + " buckets needs " +
                        std::to_string(uint64_t(table_bytes / (1 << 20))) +
                        " MiB, more than half of " + std::to_string(uint64_t(memory / (1 << 20))) +
                        " MiB of memory");

  const int stones = count_stones(board), turn = board_turn(board);
  const char* mover = player_names[turn];
  std::printf("board %llu: %d stones, %s to move\n\n", (unsigned long long)board, stones, mover);
  std::printf("%s\n\n", str_board(board).c_str());

  // A finished game has its value by the rules: no search (and no table) needed.
  if (const int over = terminal_value(board); over != 2) {
    const side_t me = unpack(board, turn), op = unpack(board, 1 - turn);
    std::printf("value: %s (the player to move) %s by the rules: the game is over (%s)\n", mover,
                over > 0   ? "wins"
                : over < 0 ? "loses"
                           : "ties",
                won(me) && won(op) ? "both players have five in a row"
                : won(me)          ? "the player to move has five in a row"
                : won(op)          ? "the opponent has five in a row"
                                   : "the board is full");
    std::printf("no moves\n");
    return 0;
  }

  super_searcher_t engine(options);
  const auto start = std::chrono::steady_clock::now();
  const superinfo_t root = engine.solve(board);
  const double root_seconds = seconds_since(start);
  const search_stats_t root_stats = engine.stats();
  const game_value_t value = rotation_value(root);
  const char* outcome = value == game_value_t::win    ? "wins"
                        : value == game_value_t::loss ? "loses"
                                                      : "ties";
  std::printf("value: %s (the player to move) %s with perfect play\n", mover, outcome);
  std::printf("root search: %.3f s, %s positions expanded, table hits %.1f%% of %s probes\n",
              root_seconds, with_commas(root_stats.nodes).c_str(), 100 * root_stats.hit_rate(),
              with_commas(root_stats.table_probes).c_str());

  // Every move: a placement that makes five wins at once; otherwise the rotated child's value
  // is bit r of the child's super, from the opponent's view.
  std::vector<move_row_t> moves;
  const side_t me = unpack(board, turn);
  for (side_t rest = empty_cells(board); rest; rest &= rest - 1) {
    const int bit = __builtin_ctzll(rest);
    if (won(me | side_t(1) << bit)) {
      moves.push_back({bit, 0, 0, game_value_t::win});
      continue;
    }
    const superinfo_t child = engine.solve(place_stone(board, turn, bit / 16, bit % 16));
    for (int q = 0; q < 4; q++)
      for (int dir : {1, -1}) {
        const int r = (dir > 0 ? 1 : 3) << 2 * q;
        moves.push_back({bit, q, dir, game_value_t(-int(rotation_value(child, r)))});
      }
  }
  const double total_seconds = seconds_since(start);
  const search_stats_t total = engine.stats();
  game_value_t best = game_value_t::loss;
  int tally[3] = {0, 0, 0};
  for (const auto& m : moves) {
    best = std::max(best, m.value);
    tally[int(m.value) + 1]++;
  }
  PENTAGO_CHECK(best == value, "the best move disagrees with the position's value");
  // Best first, then in reading order of the picture (rows a..f, columns 1..6).
  const auto reading_order = [](const move_row_t& m) {
    const int q = m.bit / 16, i = m.bit % 16;
    const int x = 3 * (q / 2) + i / 3, y = 3 * (q % 2) + i % 3;
    return std::tuple(-int(m.value), 5 - y, x, m.dir ? m.quadrant : -1, -m.dir);
  };
  std::sort(moves.begin(), moves.end(), [&](const move_row_t& a, const move_row_t& b) {
    return reading_order(a) < reading_order(b);
  });

  std::printf("\n%zu moves for %s: %d win, %d tie, %d lose\n\n", moves.size(), mover, tally[2],
              tally[1], tally[0]);
  std::printf("  move       value for %s\n", mover);
  std::printf("  ---------  ---------------\n");
  for (const auto& m : moves)
    std::printf("  %-9s  %s\n", move_name(m.bit, m.quadrant, m.dir).c_str(), value_name(m.value));
  std::printf(
      "\nsearch: %.3f s in all, %s positions expanded, %s table probes (%.1f%% hits), "
      "%d thread%s, table 2^%d buckets (%s MiB)\n",
      total_seconds, with_commas(total.nodes).c_str(), with_commas(total.table_probes).c_str(),
      100 * total.hit_rate(), options.threads, options.threads == 1 ? "" : "s", options.table_bits,
      with_commas(uint64_t(table_bytes / (1 << 20))).c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return cli::run_main("pentago-search", usage_text, argc, argv, run);
}
