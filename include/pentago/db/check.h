// Verification of a run directory (docs/tools.md, "pentago-check"; paper §VII): the run record
// (run.jsonl) against the files, slice files read block by block (xz checksums), counts
// recomputed from them and compared with published counts, sparse samples against the slice
// files and forward search, the negamax relation between two saved slices, unexpected files.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace pentago {

struct check_options_t {
  // Samples are checked by forward search where the search is short: slices with at least
  // this many stones (depth 36 - n <= 36 - search_min), or in meaningless mode slices at most
  // 36 - search_min below the meaningless slice.
  int search_min = 30;
  int64_t search_max = -1;     // most samples searched per slice (a random subset); -1: all
  std::vector<int> integrity;  // slices N: check slice-N against slice-(N+1)
  double fraction = 1;         // fraction of each slice N's boards that --integrity checks
  uint64_t seed = 8183131;     // chooses the boards of --fraction and --search-max
  int samples = -1;            // expected samples per section; -1: the run record's, else 256
  // Without DIR/run.jsonl the check fails, unless this is false (--no-record: an older run
  // directory, or files not written by a run, checked by their contents alone).
  bool require_record = true;
  std::string data;  // folder of published counts-N.npy to compare counts with; "": none
  int threads = 0;   // 0: all hardware threads
  uint64_t cache_bytes = uint64_t(1) << 30;  // decoded block cache of --integrity
  int max_reports = 10;  // failures of one kind listed per slice before a summary line
};

struct check_result_t {
  std::vector<std::string> failures;  // one line each, "DIR: slice N: reason"
  std::vector<std::string> notes;     // one line each: worth knowing, not errors
  uint64_t slice_files = 0, blocks = 0, nodes = 0;
  uint64_t count_rows = 0, samples = 0, samples_searched = 0, integrity_boards = 0;
  uint64_t published_rows = 0;  // counts rows equal to the published ones
  uint64_t record_files = 0;    // files of the run record found with their recorded sizes
  bool passed() const { return failures.empty(); }
};

// Verifies one run directory. `print` receives one progress or summary line at a time (it may
// be empty); failures and notes are also returned. Never throws for bad data, only for bad
// options (usage_error).
check_result_t check_run_directory(const std::string& dir, const check_options_t& options,
                                   const std::function<void(const std::string&)>& print = {});

// Parses the command line of pentago-check (options and directories, "--opt value" or
// "--opt=value"); throws usage_error. Leaves options.data empty unless --data is given.
struct check_command_t {
  check_options_t options;
  std::vector<std::string> dirs;
  bool no_data = false;  // --no-data: no published counts, not even the default folder
};
check_command_t parse_check_command(int argc, char** argv);
std::string check_usage();

}  // namespace pentago
