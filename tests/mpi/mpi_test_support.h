// Helpers of the MPI engine's test programs (endgame_mpi_test, cluster_test): running
// pentago-endgame under a time limit, comparing output files, the published counts, and a
// one-process reference run shared by the test processes ctest runs in parallel.
#pragma once
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "pentago/data/npy.h"
#include "pentago/end/local_driver.h"

namespace pentago::test {

namespace fs = std::filesystem;

inline const std::string bin = std::string(PENTAGO_BINARY_DIR) + "/bin/";
inline const std::string data = PENTAGO_SHARED_DATA;

// BUILD/test-runs/<prefix>-<name>, emptied (its parent created).
inline std::string run_dir(const std::string& prefix, const std::string& name) {
  const fs::path dir = fs::path(PENTAGO_BINARY_DIR) / "test-runs" / (prefix + "-" + name);
  fs::remove_all(dir);
  fs::create_directories(dir.parent_path());
  return dir.string();
}

struct result_t {
  int code;
  std::string output;
};

// A text file's contents (empty if it cannot be read).
inline std::string file_text(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

// Runs a shell command with a time limit, capturing stdout and stderr.
inline result_t shell(const std::string& command, int timeout_seconds = 900) {
  const std::string out =
      fs::temp_directory_path() / ("pentago-mpi-test-" + std::to_string(::getpid()) + ".out");
  const std::string full =
      "timeout " + std::to_string(timeout_seconds) + " " + command + " > " + out + " 2>&1";
  const int status = std::system(full.c_str());
  std::string text = file_text(out);
  fs::remove(out);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128, text};
}

inline std::string endgame(int ranks, const std::string& args) {
  return "mpiexec -n " + std::to_string(ranks) + " " + bin + "pentago-endgame " + args;
}

inline std::vector<uint8_t> bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), {});
}

inline void expect_same_files(const std::string& a, const std::string& b, int lo, int hi,
                              bool sparse = true) {
  for (int n = lo; n <= hi; n++)
    for (const char* kind : {"counts", "sparse"}) {
      if (!sparse && kind[0] == 's') continue;
      const std::string name = std::string("/") + kind + "-" + std::to_string(n) + ".npy";
      EXPECT_EQ(bytes(a + name), bytes(b + name)) << a << name << " vs " << b;
    }
}

inline void expect_published_counts(const std::string& dir, int lo, int hi) {
  for (int n = lo; n <= hi; n++) {
    const auto ours = read_npy(dir + "/counts-" + std::to_string(n) + ".npy");
    const auto published = read_npy(data + "/counts-" + std::to_string(n) + ".npy");
    std::map<uint64_t, size_t> row_of;
    for (size_t r = 0; r < published.rows; r++) row_of[published(r, 0)] = r;
    ASSERT_GT(ours.rows, 0u);
    for (size_t r = 0; r < ours.rows; r++) {
      ASSERT_TRUE(row_of.count(ours(r, 0))) << "slice " << n;
      for (int c = 1; c < 4; c++) EXPECT_EQ(ours(r, c), published(row_of[ours(r, 0)], c));
    }
  }
}

// An in-process run to compare with, shared by the test processes ctest runs in parallel:
// made once under a file lock and marked complete.
inline std::string local_reference(const std::string& root, int meaningless = 0) {
  const std::string key = root + "-" + std::to_string(meaningless);
  const fs::path dir = fs::path(PENTAGO_BINARY_DIR) / "test-runs" / ("reference-" + key);
  fs::create_directories(dir.parent_path());
  const std::string lock_path = dir.string() + ".lock";
  const int fd = ::open(lock_path.c_str(), O_CREAT | O_RDWR, 0666);
  EXPECT_GE(fd, 0);
  ::flock(fd, LOCK_EX);
  if (!fs::exists(dir / "complete")) {
    fs::remove_all(dir);
    local_options_t o;
    o.root = section_t::parse(root);
    o.threads = 2;
    o.dir = dir.string();
    o.meaningless = meaningless;
    o.save = -1;
    o.echo = false;
    run_local(o);
    std::ofstream(dir / "complete");
  }
  ::flock(fd, LOCK_UN);
  ::close(fd);
  return dir.string();
}

}  // namespace pentago::test
