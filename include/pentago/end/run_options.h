// Command-line helpers shared by the solver drivers: integers with C prefixes, memory sizes
// (suffix K/M/G/T, powers of 1024, fractions allowed), and a log that tees to stdout and a
// file, flushing every line so progress is readable while a job runs.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>

#include "pentago/layout/section.h"

namespace pentago {

// Parses an integer option value (strtoll base 0) in [lo, hi]; throws usage_error naming it.
long long parse_int_option(const std::string& option, const std::string& value, long long lo,
                           long long hi);
// Parses "7G", "512M", "1.5GB", "1000000" (bytes); throws usage_error naming the option.
uint64_t parse_memory_option(const std::string& option, const std::string& value);
std::string format_bytes(double bytes);      // "1.23 GiB"
std::string format_seconds(double seconds);  // "1h 02m 03s" / "12.3 s"
// Total physical memory of this machine.
uint64_t physical_memory();

// Walks a command line for the option parsers: arg() is the current word, value() consumes
// the next one as the option's value, and take_root() accepts the one positional ROOT.
class argument_cursor {
 public:
  argument_cursor(int argc, char** argv) : argc_(argc), argv_(argv) {}
  bool next();
  const std::string& arg() const { return arg_; }
  bool is_option() const { return arg_.size() > 1 && arg_[0] == '-'; }
  std::string value();              // usage_error "<option> needs a value" at the end of the line
  void take_root(section_t& root);  // usage_error on a second positional argument
  bool have_root() const { return have_root_; }

 private:
  int argc_, i_ = 0;
  char** argv_;
  std::string arg_;
  bool have_root_ = false;
};

class run_log {
 public:
  run_log() = default;
  ~run_log();
  void open(const std::string& path);  // also echo to stdout when `echo`
  void set_echo(bool echo) { echo_ = echo; }
  void line(const std::string& text);  // appends '\n' and flushes
 private:
  FILE* file_ = nullptr;
  bool echo_ = true;
};

}  // namespace pentago
