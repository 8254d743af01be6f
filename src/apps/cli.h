// The command-line conventions every pentago-* app shares: one board reader (a decimal board
// number, a 6x6 picture, a file holding either, or '-' for standard input; input capped in
// size), one move notation ("c4 q3 cw"), and one main wrapper (--help, one line on stderr,
// exit 2 for bad usage and 1 for other failures). Option values and the argument cursor are in
// pentago/util/options.h, which this header includes.
#pragma once
#include <cstddef>
#include <functional>
#include <iosfwd>
#include <string>

#include "pentago/base/board.h"
#include "pentago/util/error.h"
#include "pentago/util/options.h"

namespace pentago::cli {

// The most bytes a board argument may hold: a picture with its counts line and column labels
// is about 100 bytes; anything much longer is not a board.
constexpr size_t max_board_bytes = 4096;

// A board code given on the command line: digits with an optional trailing 'm' (to rotate),
// or the 36-character compact form of the query path (cells '_' '.' '0' '1', optional 'm').
bool is_board_code(const std::string& arg);
// Reads the text of a board argument:
//   "-"                    standard input;
//   a board code           the code itself (never a file name);
//   text with a newline    the picture itself;
//   anything else          a file name (a missing file or a directory is a usage_error).
// Input longer than max_board_bytes is a usage_error, read no further.
std::string board_text(const std::string& arg, std::istream& stdin_stream);
// board_text followed by parse_board (which validates the position).
board_t read_board(const std::string& arg);

// Move notation, as printed by the apps and accepted back by them:
//   cell     "a1".."f6": row letter (a = top row of the picture, y = 5) and column 1..6 (x + 1)
//   turn     "q0".."q3" (0 lower left, 1 upper left, 2 lower right, 3 upper right, the
//            quadrant index of the packed board) then "cw" or "ccw"
// A placement that makes five in a row wins at once and is written as the cell alone.
std::string cell_name(int x, int y);
std::string cell_name(int bit);  // a bit index 16q + i of side_t
// direction +1 = counterclockwise, -1 = clockwise, 0 = no turn (an immediate win).
std::string move_name(int x, int y, int quadrant, int direction);
std::string move_name(int bit, int quadrant, int direction);

// Runs body(argc, argv) as a program called `name`:
//   - if usage is not empty and any argument is --help or -h: prints usage, returns 0;
//   - usage_error: "name: message" on stderr, returns 2;
//   - std::bad_alloc: "name: error: out of memory", returns 1;
//   - any other exception: "name: error: message", returns 1.
// Messages are printed as one line (newlines inside become "; ").
int run_main(const char* name, const std::string& usage, int argc, char** argv,
             const std::function<int(int, char**)>& body);

// The message of an exception as one stderr line "name: [error: ]message\n".
std::string error_line(const char* name, const std::string& message, bool usage);

}  // namespace pentago::cli
