// The shared command-line conventions of the apps: board reader, move notation, main wrapper.
#include "cli.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <new>

#include "pentago/util/error.h"

namespace pentago::cli {
namespace {

// At most max_board_bytes + 1 bytes of a stream, so that too long input is detected without
// reading it all (/dev/zero never ends).
std::string read_capped(std::istream& in, const std::string& where) {
  std::string text(max_board_bytes + 1, '\0');
  in.read(text.data(), std::streamsize(text.size()));
  text.resize(size_t(in.gcount()));
  if (in.bad()) throw pentago_error_t("cannot read " + where);
  if (text.size() > max_board_bytes)
    throw usage_error_t(where + " holds more than " + std::to_string(max_board_bytes) +
                        " bytes: not a board (a board is a number or a 6x6 picture)");
  return text;
}

}  // namespace

bool is_board_code(const std::string& arg) {
  // Digits with an optional trailing 'm' (to rotate), or the 36 cells of the compact form.
  std::string body = arg;
  if (!body.empty() && body.back() == 'm') body.pop_back();
  if (body.empty()) return false;
  if (std::all_of(body.begin(), body.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return true;
  return body.size() == 36 && std::all_of(body.begin(), body.end(), [](char c) {
           return c == '_' || c == '.' || c == '0' || c == '1';
         });
}

std::string board_text(const std::string& arg, std::istream& stdin_stream) {
  if (arg == "-") return read_capped(stdin_stream, "standard input");
  if (arg.size() > max_board_bytes)
    throw usage_error_t("board argument longer than " + std::to_string(max_board_bytes) + " bytes");
  if (is_board_code(arg) || arg.find('\n') != std::string::npos) return arg;
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto status = fs::status(arg, ec);
  if (!fs::exists(status))
    throw usage_error_t("board '" + arg +
                        "' is neither a number, a picture nor an existing file (no such file)");
  if (fs::is_directory(status)) throw usage_error_t("board file '" + arg + "' is a directory");
  std::ifstream file(arg, std::ios::binary);
  if (!file) throw usage_error_t("cannot open board file '" + arg + "': " + std::strerror(errno));
  return read_capped(file, "board file '" + arg + "'");
}

board_t read_board(const std::string& arg) { return parse_board(board_text(arg, std::cin)); }

std::string error_line(const char* name, const std::string& message, bool usage) {
  std::string line = std::string(name) + ": " + (usage ? "" : "error: ");
  for (size_t i = 0; i < message.size(); i++) {
    const char c = message[i];
    if (c == '\n') {
      if (i + 1 < message.size()) line += "; ";
    } else {
      line += c;
    }
  }
  return line + '\n';
}

int run_main(const char* name, const std::string& usage, int argc, char** argv,
             const std::function<int(int, char**)>& body) {
  if (!usage.empty())
    for (int i = 1; i < argc; i++)
      if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
        std::fputs(usage.c_str(), stdout);
        return 0;
      }
  try {
    return body(argc, argv);
  } catch (const usage_error_t& e) {
    std::fflush(stdout);
    std::fputs(error_line(name, e.what(), true).c_str(), stderr);
    return 2;
  } catch (const std::bad_alloc&) {
    std::fflush(stdout);
    std::fputs(error_line(name, "out of memory", false).c_str(), stderr);
    return 1;
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fputs(error_line(name, e.what(), false).c_str(), stderr);
    return 1;
  }
}

}  // namespace pentago::cli
