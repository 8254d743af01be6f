// pentago-lookup: the value of a position and of each of its moves, through the query path
// (databases local or remote, the midgame solver, the rules), as text or as the server's JSON.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "pentago/end/run_options.h"
#include "pentago/query/query.h"
#include "pentago/util/error.h"

namespace {

using namespace pentago;

constexpr size_t max_board_input = 4096;

const char usage_text[] =
    "usage: pentago-lookup [--db DIR|URL]... [options] BOARD\n"
    "Prints the value of BOARD for the player to move and the value of each of its moves. A\n"
    "position to place with n stones is read from slice n+1 of the databases, one to rotate from\n"
    "slice n; a position with 18 or more stones that the databases do not hold is solved by the\n"
    "midgame solver; a finished game is valued by the rules. Anything else is an error naming\n"
    "the slice-N.pentago it would need.\n"
    "BOARD: the decimal board code of the published data (a trailing 'm': the player has placed\n"
    "and must rotate), the 36-character form (rows a..f top to bottom, cells _ or . empty, 0\n"
    "black, 1 white, optional trailing 'm'), a file holding a 6x6 picture (rows a..f top to\n"
    "bottom, columns 1..6), or '-' to read any of these from stdin (at most 4 KiB).\n"
    "  --db DIR|URL      a directory of slice-N.pentago files, or an http(s) base URL serving\n"
    "                    slice-N.pentago and slice-N.pentago.index (repeatable; the first\n"
    "                    database holding a needed section is read)\n"
    "  --threads N       midgame solver threads (default 0: every core)\n"
    "  --cache SIZE      memory for decoded blocks (default 128M)\n"
    "  --json            print the answer as one line of JSON (the server's shape)\n"
    "  --no-moves        print only the position's value\n"
    "  --help            this text\n"
    "Moves: 'c4' places at row c, column 4; 'q3 cw' then turns quadrant 3 clockwise (quadrants:\n"
    "0 lower left, 1 upper left, 2 lower right, 3 upper right). A placement making five in a\n"
    "row wins at once and has no turn. Exit status: 0 answered, 1 the data cannot answer or a\n"
    "database failed, 2 bad options or an impossible board.\n";

// Reads at most max_board_input bytes of `fd`; more is a usage error.
std::string read_capped(int fd, const std::string& what) {
  std::string text;
  char buffer[1024];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0) {
      if (errno == EINTR) continue;
      throw error("cannot read " + what + ": " + std::strerror(errno));
    }
    if (n == 0) break;
    text.append(buffer, size_t(n));
    if (text.size() > max_board_input)
      throw usage_error(what + ": board input longer than " + std::to_string(max_board_input) +
                        " bytes");
  }
  return text;
}

position_t read_position(const std::string& arg) {
  if (arg == "-") return parse_position(read_capped(0, "stdin"));
  const bool code = !arg.empty() && std::all_of(arg.begin(), arg.end(), [](char c) {
    return std::isdigit((unsigned char)c) || c == 'm';
  });
  std::error_code ec;
  if (!code && std::filesystem::exists(arg, ec)) {
    if (!std::filesystem::is_regular_file(arg, ec))
      throw usage_error("board file " + arg + ": not a regular file");
    std::FILE* f = std::fopen(arg.c_str(), "rb");
    if (!f) throw usage_error("cannot open board file " + arg + ": " + std::strerror(errno));
    try {
      const std::string text = read_capped(fileno(f), "board file " + arg);
      std::fclose(f);
      return parse_position(text);
    } catch (...) {
      std::fclose(f);
      throw;
    }
  }
  try {
    return parse_position(arg);
  } catch (const usage_error& e) {
    // A one-line argument that is not a code or a 36-character board: a missing file, most
    // likely, rather than a bad picture.
    const bool compact = arg.size() >= 36 && arg.size() <= 37;
    if (code || compact || arg.find('\n') != std::string::npos) throw;
    throw usage_error("BOARD '" + arg + "': no such file, and not a board code or board");
  }
}

std::string source_text(answer_source source, int slice) {
  if (source == answer_source::database && slice >= 0)
    return "database slice " + std::to_string(slice);
  if (source == answer_source::midgame) return "midgame solver";
  return answer_source_name(source);
}

void print_text(const position_answer& a, bool show_moves) {
  const char* color = a.to_move ? "white" : "black";
  std::printf("%s\n\n", str_board(a.position.board).c_str());
  std::printf("board %s: %d stones, %s to %s: %s for %s (%s)\n", position_code(a.position).c_str(),
              a.stones, color, a.position.to_rotate ? "rotate" : "place", value_word(a.value),
              color, source_text(a.source, a.slice).c_str());
  if (!show_moves) return;
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
    std::printf("  %-7s %-4s  %s (%s)\n", m.move.c_str(), value_word(m.value), detail.c_str(),
                answer_source_name(m.source));
  }
  std::printf("%zu %s: %d win, %d tie, %d loss; best %s\n", a.moves.size(),
              a.position.to_rotate ? "rotations" : "placements", counts[2], counts[1], counts[0],
              value_word(a.moves.front().value));
}

int run(int argc, char** argv) {
  query_options options;
  std::string board_arg;
  bool have_board = false, show_moves = true, json = false;
  for (int i = 1; i < argc; i++) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw usage_error(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--db")
      options.databases.push_back(value());
    else if (arg == "--cache")
      options.block_cache_bytes = parse_memory_option(arg, value());
    else if (arg == "--threads")
      options.threads = int(parse_int_option(arg, value(), 0, 1024));
    else if (arg == "--json")
      json = true;
    else if (arg == "--no-moves")
      show_moves = false;
    else if (arg.size() > 1 && arg[0] == '-')
      throw usage_error("unknown option " + arg);
    else if (have_board)
      throw usage_error("more than one board given: " + arg);
    else
      board_arg = arg, have_board = true;
  }
  if (!have_board) throw usage_error("missing BOARD");
  const position_t position = read_position(board_arg);
  query_engine engine(options);
  const position_answer answer = engine.answer(position);
  if (json)
    std::printf("%s\n", answer_json(answer).c_str());
  else
    print_text(answer, show_moves);
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
