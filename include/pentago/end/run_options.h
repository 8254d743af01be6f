// Helpers shared by the solver drivers: human-readable sizes and times, the ROOT argument,
// shell quoting, and a log that tees to stdout and a file, flushing every line so progress is
// readable while a job runs. (Option values and the argument cursor: pentago/util/options.h.)
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>

#include "pentago/layout/section.h"
#include "pentago/util/options.h"

namespace pentago {

std::string format_bytes(double bytes);      // "1.23 GiB"
std::string format_seconds(double seconds);  // "1h 02m 03s" / "12.3 s"
// Total physical memory of this machine.
uint64_t physical_memory();

// The one positional ROOT of the solver drivers: parses the cursor's word into root, with a
// usage_error on a second one.
void take_root(const argument_cursor& args, section_t& root, bool& have_root);

// A word as the shell reads it back: unchanged if it has only safe characters, else in single
// quotes ("it's" -> 'it'\''s').
std::string shell_quote(const std::string& word);

// Checks, before a run starts, that the output file named by `option` can be written at its
// end: it must not exist yet (nothing is overwritten) and its folder must exist and be
// writable, unless that folder is run_dir, which the run creates. Empty path: nothing to check.
// Throws usage_error.
void check_new_output_file(const std::string& option, const std::string& path,
                           const std::string& run_dir);

// A log that writes each line to a file (and stdout while echo is on), flushed at once.
// A failed write (full disk) throws pentago::error naming the file.
class run_log {
 public:
  run_log() = default;
  ~run_log();
  void open(const std::string& path);  // also echo to stdout when `echo`
  void set_echo(bool echo) { echo_ = echo; }
  void line(const std::string& text);  // appends '\n' and flushes
 private:
  FILE* file_ = nullptr;
  std::string path_;
  bool echo_ = true;
};

}  // namespace pentago
