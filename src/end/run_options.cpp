// Human-readable sizes, the ROOT argument, shell quoting and the flushed run log.
#include "pentago/end/run_options.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "pentago/util/error.h"

namespace pentago {

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

void take_root(const argument_cursor& args, section_t& root, bool& have_root) {
  if (have_root) throw usage_error("more than one root section given: " + args.arg());
  root = section_t::parse(args.arg());
  have_root = true;
}

std::string shell_quote(const std::string& word) {
  const bool safe = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return std::isalnum((unsigned char)c) || std::strchr("_-+=./:,@%", c);
  });
  if (safe) return word;
  std::string quoted = "'";
  for (const char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

void check_new_output_file(const std::string& option, const std::string& path,
                           const std::string& run_dir) {
  namespace fs = std::filesystem;
  if (path.empty()) return;
  std::error_code ec;
  if (fs::symlink_status(path, ec).type() != fs::file_type::not_found)
    throw usage_error(option + " " + path + " already exists; refusing to overwrite");
  fs::path folder = fs::path(path).parent_path();
  if (folder.empty()) folder = ".";
  const auto normal = [](const fs::path& p) {
    fs::path n = fs::absolute(p).lexically_normal();
    return n.has_filename() ? n : n.parent_path();
  };
  if (!run_dir.empty() && normal(folder) == normal(run_dir)) return;
  if (!fs::is_directory(folder, ec))
    throw usage_error(option + " " + path + ": folder " + folder.string() + " does not exist");
  if (access(folder.c_str(), W_OK | X_OK) != 0)
    throw usage_error(option + " " + path + ": cannot write in " + folder.string() + ": " +
                      std::strerror(errno));
  // What permissions do not tell (a root user, a read-only or virtual file system such as
  // /proc): create the file now, and remove it until the run writes it.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    throw usage_error(option + " " + path + ": cannot create it: " + std::strerror(errno));
  ::close(fd);
  ::unlink(path.c_str());
}

run_log::~run_log() {
  if (file_) std::fclose(file_);
}

void run_log::open(const std::string& path) {
  file_ = std::fopen(path.c_str(), "w");
  if (!file_) throw error("cannot open log " + path + ": " + std::strerror(errno));
  path_ = path;
}

void run_log::line(const std::string& text) {
  if (echo_) {
    std::fputs(text.c_str(), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
  }
  if (file_) {
    errno = 0;
    const bool ok = std::fputs(text.c_str(), file_) >= 0 && std::fputc('\n', file_) != EOF &&
                    std::fflush(file_) == 0;
    if (!ok) {
      const std::string reason = errno ? std::strerror(errno) : "write failed";
      std::fclose(file_);  // the log is lost; later lines must not pretend otherwise
      file_ = nullptr;
      throw error("cannot write log " + path_ + ": " + reason);
    }
  }
}

}  // namespace pentago
