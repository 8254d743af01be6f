// Cluster-shaped runs of pentago-endgame, oversubscribed on this machine: 64 ranks on
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

#include "mpi/mpi_test_support.h"
#include "pentago/data/npy.h"
#include "pentago/end/local_driver.h"

using namespace pentago;
using namespace pentago::test;
namespace fs = std::filesystem;

namespace {

// A fresh folder of this test program.
std::string fresh_dir(const std::string& name) { return run_dir("cluster", name); }

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
    expect_published_counts(dir, n, n);
    expect_same_files(dir, reference, n, n);
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
    expect_published_counts(dir, n, n);
    expect_same_files(dir, reference, n, n);
  }
}
