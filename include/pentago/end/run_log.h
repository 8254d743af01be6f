// The solver's log, which tees to stdout and a file and flushes every line so progress is
// readable while a job runs, and the check that an output file can be written at a run's end.
#pragma once
#include <cstdio>
#include <string>

namespace pentago {

// Checks, before a run starts, that the output file named by `option` can be written at its
// end: it must not exist yet (nothing is overwritten) and its folder must exist and be
// writable, unless that folder is run_dir, which the run creates. Empty path: nothing to check.
// Throws usage_error.
void check_new_output_file(const std::string& option, const std::string& path,
                           const std::string& run_dir);

// A log that writes each line to a file (and stdout while echo is on), flushed at once.
// A failed write (full disk) throws pentago::error naming the file.
class run_log_t {
 public:
  run_log_t() = default;
  ~run_log_t();
  void open(const std::string& path);  // also echo to stdout when `echo`
  void set_echo(bool echo) { echo_ = echo; }
  void line(const std::string& text);  // appends '\n' and flushes
 private:
  FILE* file_ = nullptr;
  std::string path_;
  bool echo_ = true;
};

}  // namespace pentago
