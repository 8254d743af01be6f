// Cluster-shaped runs of pentago-endgame (issue 21), oversubscribed on this machine: 64 ranks on
// a small root give the published counts and the same files as one process, and a run split
// into two stages by jobs/slurm/staged.sh (1 rank, then 3 ranks restarting from the first
// stage's slice file) gives the same counts and samples as one run.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include "pentago/data/npy.h"
#include "pentago/end/local_driver.h"

using namespace pentago;
namespace fs = std::filesystem;

namespace {

const std::string bin = std::string(PENTAGO_BINARY_DIR) + "/bin/";
const std::string data = PENTAGO_SHARED_DATA;

std::string fresh_dir(const std::string& name) {
  const fs::path dir = fs::path(PENTAGO_BINARY_DIR) / "test-runs" / ("cluster-" + name);
  fs::remove_all(dir);
  fs::create_directories(dir.parent_path());
  return dir.string();
}

// Runs a shell command under a time limit; returns its exit code and output.
std::pair<int, std::string> shell(const std::string& command, int timeout_seconds) {
  const std::string out =
      fs::temp_directory_path() / ("pentago-cluster-test-" + std::to_string(::getpid()) + ".out");
  const std::string full =
      "timeout " + std::to_string(timeout_seconds) + " " + command + " > " + out + " 2>&1";
  const int status = std::system(full.c_str());
  std::ifstream in(out);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  fs::remove(out);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128, text};
}

std::vector<uint8_t> bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), {});
}

// counts-N.npy and sparse-N.npy of slice n are byte-identical in both folders.
void expect_same_slice_outputs(const std::string& a, const std::string& b, int n) {
  for (const char* kind : {"/counts-", "/sparse-"}) {
    const std::string name = kind + std::to_string(n) + ".npy";
    EXPECT_EQ(bytes(a + name), bytes(b + name)) << a << name << " vs " << b;
  }
}

void expect_published_counts(const std::string& dir, int n) {
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

// A one-process run of a root, shared with the other MPI tests (same folder, lock and marker
// as endgame_mpi_test's reference runs).
std::string local_reference(const std::string& root) {
  const fs::path dir = fs::path(PENTAGO_BINARY_DIR) / "test-runs" / ("reference-" + root + "-0");
  fs::create_directories(dir.parent_path());
  const std::string lock_path = dir.string() + ".lock";
  const int fd = ::open(lock_path.c_str(), O_CREAT | O_RDWR, 0666);
  EXPECT_GE(fd, 0);
  ::flock(fd, LOCK_EX);
  if (!fs::exists(dir / "complete")) {
    fs::remove_all(dir);
    local_options o;
    o.root = section_t::parse(root);
    o.threads = 2;
    o.dir = dir.string();
    o.echo = false;
    run_local(o);
    std::ofstream(dir / "complete");
  }
  ::flock(fd, LOCK_UN);
  ::close(fd);
  return dir.string();
}

// The per-rank resident high water a run logged ("done: ..., memory high water X per rank").
std::string logged_high_water(const std::string& dir) {
  std::ifstream log(dir + "/log");
  std::string line, last;
  while (std::getline(log, line))
    if (line.rfind("done: ", 0) == 0) last = line;
  return last;
}

}  // namespace

// 64 ranks x 2 threads on 2 cores (each rank owns a few of slice 35's 250 lines).
TEST(many_ranks, r64_44444554_matches_published_and_one_process) {
  const std::string dir = fresh_dir("44444554-r64");
  const auto [code, output] = shell(
      "mpiexec -n 64 " + bin + "pentago-endgame --threads 2 --memory 1G --dir " + dir + " 44444554",
      1200);
  ASSERT_EQ(code, 0) << output;
  const std::string reference = local_reference("44444554");
  for (int n : {35, 34}) {
    expect_published_counts(dir, n);
    expect_same_slice_outputs(dir, reference, n);
  }
  EXPECT_NE(logged_high_water(dir).find("memory high water"), std::string::npos);
}

// The staged chain of jobs/slurm/staged.sh, rehearsed here without a scheduler: slices 35-34
// on 1 rank (saving slice 34 as a checkpoint), then 33-30 on 3 ranks from that file.
TEST(staged, two_stages_of_25263480_equal_one_run) {
  const std::string base = fresh_dir("staged-25263480");
  const std::string script = std::string(PENTAGO_SOURCE_DIR) + "/jobs/slurm/staged.sh";
  const auto [code, output] = shell(
      "env LAUNCH=local STAGES='35-34:1 33-30:3' MEMORY=1G THREADS=2 SAVE=-1 ROOT=25263480 "
      "RUN_BASE=" +
          base + " PENTAGO_BIN=" + bin + " bash " + script,
      1800);
  ASSERT_EQ(code, 0) << output;
  EXPECT_NE(output.find("pentago staged: 2 stages done"), std::string::npos) << output;
  // Stage 1 wrote slices 35 and 34 and the file stage 2 restarted from; stage 2 the rest.
  EXPECT_TRUE(fs::exists(base + "/stage-1/slice-34.pentago"));
  EXPECT_FALSE(fs::exists(base + "/stage-2/counts-34.npy"));
  EXPECT_NE(bytes(base + "/stage-2/log").size(), 0u);
  const std::string reference = local_reference("25263480");
  for (int n = 35; n >= 30; n--) {
    const std::string dir = base + (n >= 34 ? "/stage-1" : "/stage-2");
    expect_published_counts(dir, n);
    expect_same_slice_outputs(dir, reference, n);
  }
}
