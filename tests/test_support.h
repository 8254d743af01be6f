// Helpers shared by the test programs: a fresh scratch folder per test process under the
// build tree, and a copy of a published slice file with one block's data corrupted.
#pragma once
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "pentago/data/supertensor.h"

namespace pentago::test {

// BUILD/test-runs/<prefix>-<name>-<pid>, emptied and created: parallel ctest processes never
// share one.
inline std::string fresh_dir(const std::string& prefix, const std::string& name) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(PENTAGO_BINARY_DIR) / "test-runs" /
                       (prefix + "-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

// Flips one byte in the middle of the compressed data of block (0, 0, 0, 0) of the first
// section of the slice file at `path` (in place).
inline void corrupt_first_block(const std::string& path) {
  blob_t blob;
  {
    const supertensor_reader_t reader(path);
    blob = reader.block_blob(0, {0, 0, 0, 0});
  }
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(std::streamoff(blob.offset + blob.compressed_size / 2));
  char c;
  f.get(c);
  f.seekp(std::streamoff(blob.offset + blob.compressed_size / 2));
  f.put(char(c ^ 0x5a));
}

}  // namespace pentago::test
