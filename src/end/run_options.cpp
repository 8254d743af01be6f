// Option value parsing, human-readable sizes and the flushed run log.
#include "pentago/end/run_options.h"

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "pentago/util/error.h"

namespace pentago {

long long parse_int_option(const std::string& option, const std::string& value, long long lo,
                           long long hi) {
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(value.c_str(), &end, 0);
  if (value.empty() || errno || *end)
    throw usage_error(option + ": expected an integer, got '" + value + "'");
  if (v < lo || v > hi)
    throw usage_error(option + ": " + value + " is out of range [" + std::to_string(lo) + ", " +
                      std::to_string(hi) + "]");
  return v;
}

uint64_t parse_memory_option(const std::string& option, const std::string& value) {
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(value.c_str(), &end);
  if (value.empty() || errno || end == value.c_str() || !(v > 0))
    throw usage_error(option + ": expected a positive size like 4G or 512M, got '" + value + "'");
  std::string suffix(end);
  for (auto& c : suffix) c = char(std::toupper((unsigned char)c));
  double scale = 1;
  if (suffix == "" || suffix == "B")
    scale = 1;
  else if (suffix == "K" || suffix == "KB" || suffix == "KIB")
    scale = 1024.0;
  else if (suffix == "M" || suffix == "MB" || suffix == "MIB")
    scale = 1024.0 * 1024;
  else if (suffix == "G" || suffix == "GB" || suffix == "GIB")
    scale = 1024.0 * 1024 * 1024;
  else if (suffix == "T" || suffix == "TB" || suffix == "TIB")
    scale = 1024.0 * 1024 * 1024 * 1024;
  else
    throw usage_error(option + ": unknown size suffix '" + std::string(end) + "' in '" + value +
                      "'");
  const double bytes = v * scale;
  if (bytes > 1e18) throw usage_error(option + ": " + value + " is too large");
  return uint64_t(bytes);
}

std::string format_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  while (std::fabs(bytes) >= 1024 && u < 5) bytes /= 1024, u++;
  char buf[64];
  std::snprintf(buf, sizeof buf, u ? "%.2f %s" : "%.0f %s", bytes, units[u]);
  return buf;
}

std::string format_seconds(double seconds) {
  char buf[64];
  if (seconds < 60) {
    std::snprintf(buf, sizeof buf, "%.1f s", seconds);
  } else {
    const long s = std::lround(seconds);
    std::snprintf(buf, sizeof buf, "%ldh %02ldm %02lds", s / 3600, s / 60 % 60, s % 60);
  }
  return buf;
}

uint64_t physical_memory() {
  return uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGE_SIZE));
}

bool argument_cursor::next() {
  if (++i_ >= argc_) return false;
  arg_ = argv_[i_];
  return true;
}

std::string argument_cursor::value() {
  if (i_ + 1 >= argc_) throw usage_error(arg_ + " needs a value");
  return argv_[++i_];
}

void argument_cursor::take_root(section_t& root) {
  if (have_root_) throw usage_error("more than one root section given: " + arg_);
  root = section_t::parse(arg_);
  have_root_ = true;
}

run_log::~run_log() {
  if (file_) std::fclose(file_);
}

void run_log::open(const std::string& path) {
  file_ = std::fopen(path.c_str(), "w");
  if (!file_) throw error("cannot open log " + path + ": " + std::strerror(errno));
}

void run_log::line(const std::string& text) {
  if (echo_) {
    std::fputs(text.c_str(), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
  }
  if (file_) {
    std::fputs(text.c_str(), file_);
    std::fputc('\n', file_);
    std::fflush(file_);
  }
}

}  // namespace pentago
