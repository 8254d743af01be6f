// Two-dimensional uint64 .npy arrays (counts-N.npy, sparse-N.npy): the bit-exact 2013 header
// writer, a validating reader, and the header alone for writers that place the body in parallel.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace pentago {

// A C-order (rows, cols) array of uint64.
struct npy_array_t {
  uint64_t rows = 0, cols = 0;
  std::vector<uint64_t> data;  // rows * cols entries

  uint64_t operator()(uint64_t row, uint64_t col) const { return data[row * cols + col]; }
  std::span<const uint64_t> row(uint64_t r) const { return {data.data() + r * cols, cols}; }
};

// The header bytes of a (rows, cols) '<u8' array in the 2013 style: "\x93NUMPY" 1 0, a u16
// length, "{'descr': '<u8', 'fortran_order': False, 'shape': (rows,cols), }", spaces so that
// the whole header plus the final '\n' is a multiple of 16 bytes, then '\n'.
std::string npy_header(uint64_t rows, uint64_t cols);

// Writes `data` (rows * cols values, C order) with npy_header in front.
void write_npy(const std::string& path, uint64_t rows, uint64_t cols,
               std::span<const uint64_t> data);
// The whole file image, for writers that send bytes elsewhere.
std::vector<uint8_t> npy_bytes(uint64_t rows, uint64_t cols, std::span<const uint64_t> data);

// A parsed header: the array shape and where the body starts.
struct npy_header_info_t {
  uint64_t rows = 0, cols = 0;
  uint64_t header_size = 0;  // offset of the body
};
// Parses and validates a header at the start of `bytes` (which may hold more than the
// header). Accepts versions 1.0 and 2.0, dtype '<u8', fortran_order False and the shape
// forms (N,K), (N, K) and (N,K,). Throws pentago::error mentioning `name`.
npy_header_info_t parse_npy_header(std::span<const uint8_t> bytes, const std::string& name);

// Reads and validates a whole 2-D '<u8' file: header, and that the file size is exactly the
// header plus 8 * rows * cols bytes.
npy_array_t read_npy(const std::string& path);
// The same on a file image in memory; `name` is used in error messages.
npy_array_t parse_npy(std::span<const uint8_t> bytes, const std::string& name);

}  // namespace pentago
