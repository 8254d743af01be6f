// Bounds-checked positional file access for the data readers and writers: an input file
// backed by a descriptor or by bytes in memory, an output file, and little-endian helpers.
#pragma once
#include <bit>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace pentago {

static_assert(std::endian::native == std::endian::little,
              "the data layer assumes a little-endian host");

// Little-endian field access into byte buffers (the caller checks the bounds).
template <class T>
inline T load_le(const uint8_t* p) {
  T x;
  std::memcpy(&x, p, sizeof(T));
  return x;
}
template <class T>
inline void store_le(uint8_t* p, T x) {
  std::memcpy(p, &x, sizeof(T));
}

// A read-only file. Every read is checked against the file size and throws pentago::error
// naming the file (and what was being read) instead of reading past the end.
class input_file_t {
 public:
  // Opens a file on disk; throws pentago::error if it cannot be opened.
  explicit input_file_t(const std::string& path);
  // A file image in memory (tests, fuzzing, data received over MPI); `name` is for errors.
  input_file_t(std::string name, std::vector<uint8_t> bytes);
  // A file read through a function (e.g. HTTP range requests): `read(offset, out)` fills `out`
  // with the bytes at `offset` (the range is checked against `size` first) or throws.
  using range_reader_t = std::function<void(uint64_t offset, std::span<uint8_t> out)>;
  input_file_t(std::string name, uint64_t size, range_reader_t read);
  ~input_file_t();
  input_file_t(const input_file_t&) = delete;
  input_file_t& operator=(const input_file_t&) = delete;

  const std::string& name() const { return name_; }
  uint64_t size() const { return size_; }
  // Reads exactly out.size() bytes at `offset`; `what` names the item in error messages.
  // Thread safe (positional reads).
  void read(uint64_t offset, std::span<uint8_t> out, const char* what) const;
  std::vector<uint8_t> read(uint64_t offset, uint64_t size, const char* what) const;
  // Throws unless [offset, offset + size) lies inside the file.
  void check_range(uint64_t offset, uint64_t size, const char* what) const;

 private:
  std::string name_;
  int fd_ = -1;
  std::vector<uint8_t> bytes_;  // in-memory image when fd_ < 0 and there is no reader_
  range_reader_t reader_;
  uint64_t size_ = 0;
};

// A file being written: created (or truncated) on open, closed by the destructor.
class output_file_t {
 public:
  explicit output_file_t(const std::string& path);
  ~output_file_t();
  output_file_t(const output_file_t&) = delete;
  output_file_t& operator=(const output_file_t&) = delete;

  const std::string& name() const { return name_; }
  void write_at(uint64_t offset, std::span<const uint8_t> bytes);
  // Flushes and closes, reporting any failure (the destructor closes silently).
  void close();

 private:
  std::string name_;
  int fd_ = -1;
};

// Whole-file helpers.
std::vector<uint8_t> read_file(const std::string& path);
void write_file(const std::string& path, std::span<const uint8_t> bytes);

}  // namespace pentago
