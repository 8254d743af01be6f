// pentago-lookup: the value of a position and of each of its moves, through the query path
// (databases local or remote, the midgame solver, the rules), as text or as the server's JSON.
#include <cstdio>
#include <iostream>

#include "cli.h"
#include "pentago/mid/midgame.h"
#include "pentago/query/query.h"

namespace {

using namespace pentago;

const char usage_text[] =
    "usage: pentago-lookup [--db DIR|URL]... [options] BOARD\n"
    "Prints the value of BOARD for the player to move and the value of each of its moves. A\n"
    "position to place with n stones is read from slice n+1 of the databases, one to rotate from\n"
    "slice n; a position with 15 or more stones that the databases do not hold is solved by the\n"
    "midgame solver; a finished game is valued by the rules. A position to place whose slice n\n"
    "is held but not slice n+1 gets its value only (moves unknown, naming the slice). Anything\n"
    "else is an error naming the slice-N.pentago it would need.\n"
    "BOARD: the decimal board code of the published data (a trailing 'm': the player has placed\n"
    "and must rotate), the 36-character form (rows a..f top to bottom, cells _ or . empty, 0\n"
    "black, 1 white, optional trailing 'm'), a file holding a 6x6 picture (rows a..f top to\n"
    "bottom, columns 1..6), or '-' to read any of these from stdin (at most 4 KiB).\n"
    "  --db DIR|URL      a directory of slice-N.pentago files, or an http(s) base URL serving\n"
    "                    slice-N.pentago and slice-N.pentago.index (repeatable; the first\n"
    "                    database holding a needed section is read)\n"
    "  --threads N       midgame solver threads (default 0: every core)\n"
    "  --midgame-memory SIZE  largest midgame workspace (default 3/4 of the memory; 15 stones\n"
    "                    need 11.2G, 16 need 4.0G, 17 need 1.4G, 18 need 486M)\n"
    "  --no-distance     no distances from the midgame solver (the plain solve: up to about\n"
    "                    8 times faster; distances are computed from 18 stones)\n"
    "  --distance-from N distances from N stones on (15..36; default 18: below that they\n"
    "                    cost up to 8 times a solve of tens of seconds)\n"
    "  --gpu             midgame solves on the GPU when this build has CUDA and a device is\n"
    "                    present; otherwise one line on stderr says why and the CPU solver\n"
    "                    answers\n"
    "  --cache SIZE      memory for decoded blocks (default 128M)\n"
    "  --timeout SECONDS longest time of one read from a remote database, its retries\n"
    "                    included (default 30)\n"
    "  --json            print the answer as one line of JSON (the server's shape)\n"
    "  --no-moves        print only the position's value\n"
    "  --help            this text\n"
    "Moves: 'c4' places at row c, column 4; 'q3 cw' then turns quadrant 3 clockwise (quadrants:\n"
    "0 lower left, 1 upper left, 2 lower right, 3 upper right). A placement making five in a\n"
    "row wins at once and has no turn. Exit status: 0 answered, 1 the data cannot answer or a\n"
    "database failed, 2 bad options or an impossible board.\n";

std::string source_text(answer_source_t source, int slice) {
  if (source == answer_source_t::database && slice >= 0)
    return "database slice " + std::to_string(slice);
  if (source == answer_source_t::midgame) return "midgame solver";
  return answer_source_name(source);
}

// " in N turns" for a known distance, else nothing.
std::string turns_text(int distance) {
  if (distance <= 0) return "";
  return " in " + std::to_string(distance) + (distance == 1 ? " turn" : " turns");
}

void print_text(const position_answer_t& a, bool show_moves) {
  const char* color = a.to_move ? "white" : "black";
  std::printf("%s\n\n", str_board(a.position.board).c_str());
  std::printf("board %s: %d stones, %s to %s: %s for %s%s (%s)\n",
              position_code(a.position).c_str(), a.stones, color,
              a.position.to_rotate ? "rotate" : "place", value_word(a.value), color,
              turns_text(a.distance).c_str(), source_text(a.source, a.slice).c_str());
  if (!show_moves) return;
  if (!a.moves_unknown.empty()) {
    std::printf("moves unknown: %s\n", a.moves_unknown.c_str());
    return;
  }
  if (a.moves.empty()) {
    std::printf("no moves: the game is over\n");
    return;
  }
  int counts[3] = {0, 0, 0};
  for (const auto& m : a.moves) {
    counts[m.value + 1]++;
    std::string detail;
    if (!m.rotations.empty()) {
      int r[3] = {0, 0, 0};
      for (const auto& x : m.rotations) r[x.value + 1]++;
      detail = "best " + m.rotations.front().move + "; rotations " + std::to_string(r[2]) +
               " win " + std::to_string(r[1]) + " tie " + std::to_string(r[0]) + " loss";
    } else if (!a.position.to_rotate) {
      detail = "five in a row";
    } else {
      detail = "child " + position_code(m.child);
    }
    const std::string value = value_word(m.value) + turns_text(m.distance);
    std::printf("  %-7s %-16s  %s (%s)\n", m.move.c_str(), value.c_str(), detail.c_str(),
                answer_source_name(m.source));
  }
  std::printf("%zu %s: %d win, %d tie, %d loss; best %s\n", a.moves.size(),
              a.position.to_rotate ? "rotations" : "placements", counts[2], counts[1], counts[0],
              value_word(a.moves.front().value));
}

int run(int argc, char** argv) {
  query_options_t options;
  std::string board_arg;
  bool have_board = false, show_moves = true, json = false;
  argument_cursor_t args(argc, argv);
  while (args.next()) {
    const std::string& arg = args.arg();
    if (arg == "--db")
      options.databases.push_back(args.value());
    else if (arg == "--cache")
      options.block_cache_bytes = args.memory_value();
    else if (arg == "--threads")
      options.threads = int(args.int_value(0, 1024));
    else if (arg == "--timeout")
      options.fetch_timeout_seconds = parse_timeout_option(arg, args.value());
    else if (arg == "--no-distance")
      options.distance_min_stones = 37;
    else if (arg == "--distance-from")
      options.distance_min_stones = int(args.int_value(midgame_min_stones, 36));
    else if (arg == "--midgame-memory")
      options.midgame_memory = args.memory_value();
    else if (arg == "--gpu")
      options.gpu = true;
    else if (arg == "--json")
      json = true;
    else if (arg == "--no-moves")
      show_moves = false;
    else if (args.is_option())
      args.unknown();
    else if (have_board)
      throw usage_error_t("more than one board given: " + arg);
    else
      board_arg = arg, have_board = true;
  }
  if (!have_board) throw usage_error_t("missing BOARD");
  const position_t position = parse_position(cli::board_text(board_arg, std::cin));
  query_engine_t engine(options);
  const std::string no_gpu = engine.stats().midgame_gpu_unavailable;
  if (!no_gpu.empty())
    std::fprintf(stderr, "pentago-lookup: --gpu: %s; the CPU midgame solver answers\n",
                 no_gpu.c_str());
  const position_answer_t answer = engine.answer(position);
  if (json)
    std::printf("%s\n", answer_json(answer).c_str());
  else
    print_text(answer, show_moves);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return pentago::cli::run_main("pentago-lookup", usage_text, argc, argv, run);
}
