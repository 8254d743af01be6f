// pentago-index: writes the slice-N.pentago.index sidecar of existing slice files (runs saved
// before runs wrote them, or copies that lost them), so that their directory can be served
// over plain HTTP as a remote database (pentago-lookup --db URL, pentago-serve --db URL).
#include <cstdio>
#include <filesystem>
#include <regex>
#include <string>

#include "cli.h"
#include "pentago/data/supertensor.h"

namespace {

const char usage_text[] =
    "usage: pentago-index [--replace] FILE.pentago...\n"
    "Writes FILE.pentago.index beside each slice file: the 12-byte block records a remote\n"
    "database reads (docs/tools.md): for a complete slice the 2013 layout (every section of\n"
    "the slice), for a file holding only some sections (a run from a root other than\n"
    "00000000) the partial layout (the file's sections, in file order).\n"
    "An existing sidecar is left alone (an error) unless --replace is given.\n"
    "  --replace   overwrite existing .index files\n"
    "  --help      this text\n"
    "Exit status: 0 every sidecar written, 1 a file could not be read or indexed, 2 bad usage.\n";

}  // namespace

int main(int argc, char** argv) {
  using namespace pentago;
  return cli::run_main("pentago-index", usage_text, argc, argv, [](int argc, char** argv) {
    bool replace = false;
    std::vector<std::string> files;
    argument_cursor_t args(argc, argv);
    while (args.next()) {
      if (args.arg() == "--replace")
        replace = true;
      else if (args.is_option())
        args.unknown();
      else
        files.push_back(args.arg());
    }
    if (files.empty()) throw usage_error_t("no slice files given");
    for (const auto& file : files) {
      const std::string index = file + ".index";
      if (!replace && std::filesystem::exists(index))
        throw pentago_error_t(index + " already exists (--replace overwrites it)");
      const supertensor_reader_t reader(file);
      // A remote database finds slice N by the name slice-N.pentago: a sidecar for a file
      // that holds another slice would serve wrong blocks under that name.
      const std::string name = std::filesystem::path(file).filename().string();
      std::smatch m;
      if (std::regex_match(name, m, std::regex(R"(slice-(\d+)\.pentago)")) &&
          std::stoi(m[1]) != reader.slice())
        throw pentago_error_t(file + " holds slice " + std::to_string(reader.slice()) +
                              ", not the slice " + m[1].str() +
                              " its name says (no sidecar written)");
      write_slice_index(reader, index);
      std::printf("wrote %s\n", index.c_str());
    }
    return 0;
  });
}
