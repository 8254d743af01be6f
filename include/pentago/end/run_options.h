// Command-line helpers shared by the solver drivers: integers with C prefixes, memory sizes
// (suffix K/M/G/T, powers of 1024, fractions allowed), and a log that tees to stdout and a
// file, flushing every line so progress is readable while a job runs.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>

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
