// pentago-check's command line: options parsed with the argument cursor ("--opt value" and
// "--opt=value"), and its usage text.
#include <cstdlib>
#include <filesystem>

#include "pentago/db/check.h"
#include "pentago/util/error.h"
#include "pentago/util/options.h"

namespace pentago {

std::string check_usage() {
  return "usage: pentago-check [options] DIR...\n"
         "Verifies run directories of pentago-endgame: the run record DIR/run.jsonl against\n"
         "the files (a run without a done record did not finish), every block of every\n"
         "slice-N.pentago (headers, xz checksums), counts-N.npy against counts recomputed from\n"
         "the slice files and against the published counts (--data), sparse-N.npy samples\n"
         "against the slice files and against forward search, that the sections of\n"
         "consecutive slices are parents and children, and that no unexpected file is\n"
         "present. Prints a summary and 'All checks passed', or one line per failure on\n"
         "stderr and exits 1.\n"
         "  --search-min N   forward-search the samples of slices with >= N stones (default 30);\n"
         "                   in meaningless mode, slices within 36-N of the meaningless slice\n"
         "  --search-max K   search at most K random samples per slice (default: all)\n"
         "  --integrity N    check that every board of slice-N.pentago has the best value over\n"
         "                   its children in slice-(N+1).pentago (N = 35: by the rules); may be\n"
         "                   repeated\n"
         "  --fraction F     check only a random fraction F of slice N's boards (default 1)\n"
         "  --seed S         seed of the random choices (default 8183131)\n"
         "  --samples K      expected samples per section (default: the run record's, else 256)\n"
         "  --data DIR       published counts-N.npy to compare every counts file with (default:\n"
         "                   $PENTAGO_DATA, else the repository's ../shared/data if present)\n"
         "  --no-data        compare with no published counts\n"
         "  --no-record      check a directory without run.jsonl (an older run, or files not\n"
         "                   written by a run) by its files alone\n"
         "  --threads T      threads (default: all hardware threads)\n"
         "  --cache SIZE     decoded block cache of --integrity (default 1G)\n"
         "  --max-reports K  failures of one kind listed before a summary line (default 10)\n"
         "  --help           this text\n";
}

check_command_t parse_check_command(int argc, char** argv) {
  check_command_t c;
  auto& o = c.options;
  argument_cursor_t args(argc, argv);
  while (args.next()) {
    const std::string& arg = args.arg();
    if (!args.is_option()) {
      c.dirs.push_back(arg);
    } else if (arg == "--search-min") {
      o.search_min = int(args.int_value(0, 37));
    } else if (arg == "--search-max") {
      o.search_max = args.int_value(0, INT64_MAX);
    } else if (arg == "--integrity") {
      o.integrity.push_back(int(args.int_value(0, 35)));
    } else if (arg == "--fraction") {
      const std::string v = args.value();
      char* end = nullptr;
      o.fraction = std::strtod(v.c_str(), &end);
      if (v.empty() || *end || !(o.fraction > 0 && o.fraction <= 1))
        throw usage_error_t("--fraction must be a number in (0, 1], got '" + v + "'");
    } else if (arg == "--seed") {
      o.seed = uint64_t(args.int_value(0, INT64_MAX));
    } else if (arg == "--samples") {
      o.samples = int(args.int_value(0, 1 << 24));
    } else if (arg == "--data") {
      o.data = args.value();
      std::error_code ec;
      if (o.data.empty() || !std::filesystem::is_directory(o.data, ec))
        throw usage_error_t("--data: '" + o.data + "' is not a directory");
    } else if (arg == "--no-data") {
      c.no_data = true;
    } else if (arg == "--no-record") {
      o.require_record = false;
    } else if (arg == "--threads") {
      o.threads = int(args.int_value(1, 1024));
    } else if (arg == "--cache") {
      o.cache_bytes = args.memory_value();
    } else if (arg == "--max-reports") {
      o.max_reports = int(args.int_value(1, 1 << 20));
    } else {
      args.unknown();
    }
  }
  if (c.dirs.empty()) throw usage_error_t("missing DIR");
  if (c.options.fraction < 1 && c.options.integrity.empty())
    throw usage_error_t("--fraction needs --integrity");
  if (c.no_data && !o.data.empty()) throw usage_error_t("--data and --no-data exclude each other");
  return c;
}

}  // namespace pentago
