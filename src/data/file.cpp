// Bounds-checked positional file access (POSIX pread/pwrite) and whole-file helpers.
#include "pentago/data/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "pentago/util/error.h"

namespace pentago {

namespace {

std::string errno_text() { return std::strerror(errno); }

}  // namespace

input_file_t::input_file_t(const std::string& path) : name_(path) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw pentago_error_t(path + ": cannot open: " + errno_text());
  struct stat st;
  std::string why;
  if (::fstat(fd_, &st) != 0)
    why = errno_text();
  else if (!S_ISREG(st.st_mode))
    why = "not a regular file";
  if (!why.empty()) {
    ::close(fd_);
    throw pentago_error_t(path + ": cannot open: " + why);
  }
  size_ = uint64_t(st.st_size);
}

input_file_t::input_file_t(std::string name, std::vector<uint8_t> bytes)
    : name_(std::move(name)), bytes_(std::move(bytes)), size_(bytes_.size()) {}

input_file_t::input_file_t(std::string name, uint64_t size, range_reader_t read)
    : name_(std::move(name)), reader_(std::move(read)), size_(size) {}

input_file_t::~input_file_t() {
  if (fd_ >= 0) ::close(fd_);
}

void input_file_t::check_range(uint64_t offset, uint64_t size, const char* what) const {
  if (offset > size_ || size > size_ - offset)
    throw pentago_error_t(name_ + ": " + what + " at offset " + std::to_string(offset) +
                          " of size " + std::to_string(size) +
                          " extends past the end of the file (size " + std::to_string(size_) + ")");
}

void input_file_t::read(uint64_t offset, std::span<uint8_t> out, const char* what) const {
  check_range(offset, out.size(), what);
  if (reader_) {
    if (!out.empty()) reader_(offset, out);
    return;
  }
  if (fd_ < 0) {
    if (!out.empty()) std::memcpy(out.data(), bytes_.data() + offset, out.size());
    return;
  }
  size_t done = 0;
  while (done < out.size()) {
    const ssize_t n = ::pread(fd_, out.data() + done, out.size() - done, off_t(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw pentago_error_t(name_ + ": reading " + what + " failed: " +
                            (n < 0 ? errno_text() : std::string("unexpected end of file")));
    done += size_t(n);
  }
}

std::vector<uint8_t> input_file_t::read(uint64_t offset, uint64_t size, const char* what) const {
  check_range(offset, size, what);
  std::vector<uint8_t> out(size);
  read(offset, out, what);
  return out;
}

output_file_t::output_file_t(const std::string& path) : name_(path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) throw pentago_error_t(path + ": cannot create: " + errno_text());
}

output_file_t::~output_file_t() {
  if (fd_ >= 0) ::close(fd_);
}

void output_file_t::write_at(uint64_t offset, std::span<const uint8_t> bytes) {
  if (fd_ < 0) throw pentago_error_t(name_ + ": write after close");
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::pwrite(fd_, bytes.data() + done, bytes.size() - done, off_t(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw pentago_error_t(name_ + ": write failed: " + errno_text());
    done += size_t(n);
  }
}

void output_file_t::close() {
  if (fd_ < 0) return;
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) throw pentago_error_t(name_ + ": close failed: " + errno_text());
}

std::vector<uint8_t> read_file(const std::string& path) {
  input_file_t file(path);
  return file.read(0, file.size(), "contents");
}

void write_file(const std::string& path, std::span<const uint8_t> bytes) {
  output_file_t file(path);
  file.write_at(0, bytes);
  file.close();
}

}  // namespace pentago
