// The flushed run log, and the check that an output file can be written when the run ends
// (pentago/end/run_log.h).
#include "pentago/end/run_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "pentago/util/error.h"

namespace pentago {

void check_new_output_file(const std::string& option, const std::string& path,
                           const std::string& run_dir) {
  namespace fs = std::filesystem;
  if (path.empty()) return;
  std::error_code ec;
  if (fs::symlink_status(path, ec).type() != fs::file_type::not_found)
    throw usage_error_t(option + " " + path + " already exists; refusing to overwrite");
  fs::path folder = fs::path(path).parent_path();
  if (folder.empty()) folder = ".";
  const auto normal = [](const fs::path& p) {
    fs::path n = fs::absolute(p).lexically_normal();
    return n.has_filename() ? n : n.parent_path();
  };
  if (!run_dir.empty() && normal(folder) == normal(run_dir)) return;
  if (!fs::is_directory(folder, ec))
    throw usage_error_t(option + " " + path + ": folder " + folder.string() + " does not exist");
  if (access(folder.c_str(), W_OK | X_OK) != 0)
    throw usage_error_t(option + " " + path + ": cannot write in " + folder.string() + ": " +
                        std::strerror(errno));
  // What permissions do not tell (a root user, a read-only or virtual file system such as
  // /proc): create the file now, and remove it until the run writes it.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    throw usage_error_t(option + " " + path + ": cannot create it: " + std::strerror(errno));
  ::close(fd);
  ::unlink(path.c_str());
}

run_log_t::~run_log_t() {
  if (file_) std::fclose(file_);
}

void run_log_t::open(const std::string& path) {
  file_ = std::fopen(path.c_str(), "w");
  if (!file_) throw pentago_error_t("cannot open log " + path + ": " + std::strerror(errno));
  path_ = path;
}

void run_log_t::line(const std::string& text) {
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
      throw pentago_error_t("cannot write log " + path_ + ": " + reason);
    }
  }
}

}  // namespace pentago
