// End-to-end tests of pentago-endgame under mpiexec (oversubscribed): published counts and
// identical outputs across rank counts, thread counts, partition keys and thread modes;
// meaningless mode; restart and checkpoints; failure and usage handling.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <thread>
#include <tuple>

#include "end/run_record_expect.h"
#include "mpi/mpi_test_support.h"
#include "pentago/data/npy.h"
#include "pentago/data/supertensor.h"
#include "pentago/end/engine_options.h"
#include "pentago/end/local_driver.h"
#include "pentago/end/run_plan.h"
#include "pentago/layout/blocks.h"
#include "pentago/layout/section.h"
#include "pentago/search/super_search.h"

using namespace pentago;
using namespace pentago::test;
namespace fs = std::filesystem;

namespace {

// Every block of every section of two slice files holds the same values.
void expect_same_slice_values(const std::string& a, const std::string& b) {
  supertensor_reader_t ra(a), rb(b);
  ASSERT_EQ(ra.sections(), rb.sections());
  for (int s = 0; s < int(ra.sections().size()); s++)
    for (uint64_t i = 0; i < section_block_count(ra.sections()[s]); i++) {
      const block_t block = block_from_index(ra.sections()[s], i);
      ASSERT_EQ(ra.read_block(s, block), rb.read_block(s, block)) << a << " vs " << b;
    }
}

// A fresh folder of this test program.
std::string fresh_dir(const std::string& name) { return run_dir("mpi", name); }

// Every receive a rank posts is cancelled or completed before the run ends: MPICH's UCX
// transport names each one still posted at the end on stderr.
void expect_no_receive_left_posted(const std::string& output) {
  EXPECT_EQ(output.find("not returned to mpool"), std::string::npos) << output;
}

struct config_t {
  int ranks, threads;
  uint64_t key;
  const char* mode;
  const char* codec = "snappy";  // the in-core codec: blocks travel between ranks in it
};

// Printed by GoogleTest in test listings (and so in ctest names): readable, no raw bytes.
void PrintTo(const config_t& c, std::ostream* os) {
  *os << c.ranks << " ranks, " << c.threads << " threads, key " << c.key << ", " << c.mode << ", "
      << c.codec;
}

class endgame_44444554 : public ::testing::TestWithParam<config_t> {};

}  // namespace

TEST_P(endgame_44444554, matches_published_and_in_process) {
  const config_t c = GetParam();
  const std::string dir =
      fresh_dir("44444554-r" + std::to_string(c.ranks) + "-t" + std::to_string(c.threads) + "-k" +
                std::to_string(c.key) + "-" + c.mode + "-" + c.codec);
  const auto r = shell(endgame(c.ranks, "--threads " + std::to_string(c.threads) + " --randomize " +
                                            std::to_string(c.key) + " --thread-mode " + c.mode +
                                            " --codec " + c.codec + " --dir " + dir + " 44444554"));
  ASSERT_EQ(r.code, 0) << r.output;
  expect_no_receive_left_posted(r.output);
  expect_published_counts(dir, 34, 35);
  expect_same_files(dir, local_reference("44444554"), 34, 35);
}

INSTANTIATE_TEST_SUITE_P(
    configs, endgame_44444554,
    ::testing::Values(config_t{1, 2, 17, "funneled"}, config_t{2, 3, 0, "funneled"},
                      config_t{3, 4, 12345, "funneled"}, config_t{4, 2, 17, "funneled"},
                      config_t{2, 3, 17, "multiple"}, config_t{3, 2, 0, "multiple"},
                      config_t{3, 2, 17, "funneled", "zstd"}, config_t{2, 3, 5, "multiple", "lz4"}),
    [](const auto& info) {
      const config_t& c = info.param;
      const std::string codec = c.codec == std::string("snappy") ? "" : std::string("_") + c.codec;
      return "r" + std::to_string(c.ranks) + "_t" + std::to_string(c.threads) + "_k" +
             std::to_string(c.key) + "_" + c.mode + codec;
    });

// Blocks between the ranks of a node go through shared memory slots by default and inside MPI
// messages with --shared-memory off: the same published outputs either way, and the run record
// counts the blocks that took the slots.
TEST(endgame, shared_memory_slots_change_no_output) {
  std::map<std::string, uint64_t> through_slots;
  for (const std::string mode : {"on", "off"}) {
    const std::string dir = fresh_dir("44444554-shared-memory-" + mode);
    const auto r =
        shell(endgame(3, "--threads 3 --shared-memory " + mode + " --dir " + dir + " 44444554"));
    ASSERT_EQ(r.code, 0) << r.output;
    expect_no_receive_left_posted(r.output);
    expect_published_counts(dir, 34, 35);
    expect_same_files(dir, local_reference("44444554"), 34, 35);
    for (const auto& j : pentago::testing::expect_run_record(dir, "pentago-endgame"))
      if (j.at("record") == "slice")
        through_slots[mode] += j.at("shared_memory_blocks").get<uint64_t>();
  }
  EXPECT_GT(through_slots["on"], 0u);
  EXPECT_EQ(through_slots["off"], 0u);
}

// A rank that cannot map the other ranks' slots shares none with them, and they none with it
// (a pair shares only where both mapped each other): on 3 ranks with rank 1 left out, ranks 0
// and 2 still pass blocks through slots, the rest travels in messages, and the outputs are the
// published ones.
TEST(endgame, shared_memory_slots_with_an_unmapped_rank) {
  const std::string dir = fresh_dir("44444554-unshared-rank");
  const auto r =
      shell(endgame(3, "--threads 3 --test-unshared-rank 1 --log-all --dir " + dir + " 44444554"));
  ASSERT_EQ(r.code, 0) << r.output;
  expect_published_counts(dir, 34, 35);
  expect_same_files(dir, local_reference("44444554"), 34, 35);
  uint64_t through_slots = 0;
  for (const auto& j : pentago::testing::expect_run_record(dir, "pentago-endgame"))
    if (j.at("record") == "slice") through_slots += j.at("shared_memory_blocks").get<uint64_t>();
  EXPECT_GT(through_slots, 0u);
  // Each rank's log says with how many ranks it shares slots.
  const std::map<std::string, int> peers = {{"log", 1}, {"log-1", 0}, {"log-2", 1}};
  for (const auto& [log, shared] : peers) {
    const std::string text = file_text(dir + "/" + log);
    EXPECT_NE(text.find("shared memory slots on this rank: with " + std::to_string(shared) +
                        " of the 2 other ranks of its node"),
              std::string::npos)
        << log << ":\n"
        << text;
  }
}

TEST(endgame, root_44444454_then_restart_on_other_ranks_and_key) {
  // An uninterrupted run that also writes a restart file for slice 34 (fast xz); slice 35 is
  // not stored (run_plan.h's recomputed), so it is no checkpoint.
  const std::string dir = fresh_dir("44444454");
  auto r = shell(endgame(
      2, "--threads 3 --save -1 --checkpoint-every 1 --level 0 --dir " + dir + " 44444454"));
  ASSERT_EQ(r.code, 0) << r.output;
  expect_published_counts(dir, 33, 35);
  // Samples agree with forward search.
  super_searcher_t searcher;
  const auto sparse = read_npy(dir + "/sparse-33.npy");
  ASSERT_EQ(sparse.rows, 256u);
  for (size_t i = 0; i < sparse.rows; i++) {
    const superinfo_t v = searcher.black_white(sparse(i, 0));
    for (int w = 0; w < 4; w++) {
      ASSERT_EQ(sparse(i, 1 + w), v.win.w[w]);
      ASSERT_EQ(sparse(i, 5 + w), v.notlose.w[w]);
    }
  }
  ASSERT_FALSE(fs::exists(dir + "/slice-35.pentago"));
  ASSERT_TRUE(fs::exists(dir + "/slice-34.pentago"));
  ASSERT_FALSE(fs::exists(dir + "/slice-33.pentago"));
  // Restart from slice 34 on 3 ranks with another key: byte-identical counts and samples.
  const std::string again = fresh_dir("44444454-restarted");
  r = shell(endgame(3, "--threads 2 --randomize 12345 --save -1 --restart " + dir +
                           "/slice-34.pentago --dir " + again + " 44444454"));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_FALSE(fs::exists(again + "/counts-34.npy"));
  expect_same_files(dir, again, 33, 33);
}

// With slice 34 computed again by slice 33 instead of stored (--recompute-34: every rank
// computes the blocks it reads itself, its own through the input cache), counts and samples
// are byte-identical to a run that stores slice 34, on 2 ranks and on 3 with another key.
TEST(endgame, recomputed_slice_34_changes_no_output) {
  const std::string stored = fresh_dir("54454443-stored");
  auto r = shell(endgame(2, "--threads 2 --save -1 --memory 1G --dir " + stored + " 54454443"));
  ASSERT_EQ(r.code, 0) << r.output;
  for (const auto& [ranks, key] : {std::pair{2, 17}, std::pair{3, 12345}}) {
    const std::string dir = fresh_dir("54454443-recomputed-" + std::to_string(ranks));
    r = shell(endgame(ranks, "--threads 2 --save -1 --memory 1G --recompute-34 --randomize " +
                                 std::to_string(key) + " --dir " + dir + " 54454443"));
    ASSERT_EQ(r.code, 0) << r.output;
    EXPECT_NE(r.output.find("slice 34: "), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("(not stored: recomputed by slice 33)"), std::string::npos) << r.output;
    expect_same_files(stored, dir, 33, 35);
  }
}

TEST(endgame, restart_from_published_slice_2) {
  const std::string dir = fresh_dir("published-restart");
  const auto r = shell(
      endgame(2, "--threads 2 --restart " + data + "/slice-2.pentago --dir " + dir + " 00000000"));
  ASSERT_EQ(r.code, 0) << r.output;
  expect_published_counts(dir, 0, 1);
  expect_same_files(dir, dir, 0, 1);
  for (int n : {0, 1})
    expect_same_slice_values(dir + "/slice-" + std::to_string(n) + ".pentago",
                             data + "/slice-" + std::to_string(n) + ".pentago");
}

TEST(endgame, meaningless_on_2_and_3_ranks) {
  for (int k : {4, 5})
    for (int ranks : {2, 3}) {
      const std::string dir =
          fresh_dir("meaningless-" + std::to_string(k) + "-" + std::to_string(ranks));
      const auto r = shell(endgame(
          ranks, "--threads 2 --meaningless " + std::to_string(k) + " --dir " + dir + " 00000000"));
      ASSERT_EQ(r.code, 0) << r.output;
      EXPECT_TRUE(fs::exists(dir + "/meaningless-" + std::to_string(k)));
      expect_same_files(dir, local_reference("00000000", k), 0, k - 1);
    }
}

// Runs a 2-rank job writing `dir` and, once it has started (its log exists), sends SIGUSR1 to
// its solver processes only (not mpiexec, timeout or the shell): a checkpoint. Returns the
// job's result and its log.
std::pair<result_t, std::string> run_with_checkpoint_signal(const std::string& dir,
                                                            const std::string& args) {
  std::thread signaller([dir] {
    for (int i = 0; i < 600 && !fs::exists(dir + "/log"); i++)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    std::system(("pkill -USR1 -f '^" + bin + "pentago-endgame .*" + dir + "'").c_str());
  });
  const auto r = shell(endgame(2, args));
  signaller.join();
  return {r, file_text(dir + "/log")};
}

TEST(endgame, checkpoint_on_signal_then_restart) {
  const std::string dir = fresh_dir("checkpoint"), resumed = fresh_dir("checkpoint-resume");
  const std::string args = "--threads 2 --save -1 --meaningless 6 --dir " + dir + " 00000000";
  // Start the job, signal it once it has started, and let it checkpoint.
  const auto [r, text] = run_with_checkpoint_signal(dir, args);
  ASSERT_EQ(r.code, 0) << r.output;
  const auto at = text.find("checkpoint: slice ");
  ASSERT_NE(at, std::string::npos) << text;
  const int n = std::stoi(text.substr(at + 18));
  ASSERT_GE(n, 1);
  ASSERT_TRUE(fs::exists(dir + "/slice-" + std::to_string(n) + ".pentago"));
  EXPECT_NE(text.find("resume with: mpirun"), std::string::npos);
  const auto again = shell(endgame(3,
                                   "--threads 2 --randomize 5 --save -1 --meaningless 6 "
                                   "--restart " +
                                       dir + "/slice-" + std::to_string(n) + ".pentago --dir " +
                                       resumed + " 00000000"));
  ASSERT_EQ(again.code, 0) << again.output;
  expect_same_files(resumed, local_reference("00000000", 6), 0, n - 1);
}

// The logged resume command works when pasted into a shell, even for a --dir with a space.
TEST(endgame, resume_command_is_shell_quoted) {
  const std::string dir = fresh_dir("resume quoted");
  fs::remove_all(dir + "-resume");
  const std::string args = "--threads 2 --save -1 --meaningless 6 --dir '" + dir + "' 00000000";
  const auto [r, text] = run_with_checkpoint_signal(dir, args);
  ASSERT_EQ(r.code, 0) << r.output;
  const auto at = text.find("resume with: ");
  ASSERT_NE(at, std::string::npos) << text;
  const std::string command = text.substr(at + 13, text.find('\n', at) - at - 13);
  const auto again = shell(command);
  ASSERT_EQ(again.code, 0) << command << "\n" << again.output;
  EXPECT_TRUE(fs::exists(dir + "-resume/counts-0.npy")) << command;
}

// A full disk while a slice file is written: one line naming the file, not MPI's error stack.
// Needs a small tmpfs (root); skipped elsewhere.
TEST(endgame, full_disk_names_the_slice_file) {
  // A mount left by an interrupted earlier run would make the folder busy: detach it first.
  const std::string stale = (fs::path(PENTAGO_BINARY_DIR) / "test-runs" / "mpi-full-disk").string();
  std::system(("umount -l " + stale + " 2>/dev/null").c_str());
  const std::string mount = fresh_dir("full-disk");
  fs::create_directories(mount);
  // Pages of 4 KiB: log, run.jsonl, counts and sparse of slices 5 and 4 fill 6,
  // slice-4.pentago needs more.
  if (std::system(("mount -t tmpfs -o size=24k tmpfs " + mount + " 2>/dev/null").c_str()) != 0)
    GTEST_SKIP() << "cannot mount a small tmpfs here";
  const auto r = shell(endgame(
      2, "--threads 2 --samples 0 --meaningless 5 --save 4 --dir " + mount + "/run 00000000"));
  std::system(("umount -l " + mount).c_str());  // lazily: a finishing rank may hold a file
  EXPECT_NE(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("cannot write " + mount + "/run/slice-4.pentago: "), std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("error stack"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("MPI_File"), std::string::npos) << r.output;
}

TEST(endgame, failing_rank_aborts_job_with_message) {
  const std::string dir = fresh_dir("fail");
  const auto start = std::chrono::steady_clock::now();
  const auto r = shell(endgame(2, "--threads 2 --test-fail 1:35 --dir " + dir + " 44444554"), 120);
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.code, 124) << "the job hung";
  EXPECT_NE(r.output.find("rank 1: injected failure"), std::string::npos) << r.output;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 110);
}

TEST(endgame, usage_errors_exit_2_with_one_line) {
  const std::string dir = fresh_dir("usage");
  for (const std::string& args : std::vector<std::string>{
           "--threads 1 --dir " + dir + " 44444554", "--dir " + dir + " 4444455x",
           "--bogus --dir " + dir + " 44444554", "44444554", "--dir " + dir + " --save 99 44444554",
           "--dir " + dir + " --restart /nonexistent.pentago 44444554"}) {
    const auto r = shell(endgame(2, args), 60);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << args << "\n" << r.output;
  }
  fs::create_directories(dir + "-exists");
  const auto r = shell(endgame(2, "--dir " + dir + "-exists 44444554"), 60);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("already exists"), std::string::npos);
}

// pentago-predict's "engine plan" figure is the engine's admission threshold, to the byte:
// one byte less is refused before anything is created, exactly that much runs to the
// published counts with every rank's resident set within it.
TEST(endgame, admission_threshold_equals_predict) {
  const std::string common = "--ranks 2 --threads 2 --stop-after 35 44444554";
  auto p = shell(bin + "pentago-predict --memory 64G " + common, 120);
  ASSERT_EQ(p.code, 0) << p.output;
  const size_t at = p.output.find("engine plan: ");
  ASSERT_NE(at, std::string::npos) << p.output;
  const size_t open = p.output.find('(', at);
  const uint64_t needed = std::stoull(p.output.substr(open + 1));
  ASSERT_GT(needed, uint64_t(64) << 20);
  p = shell(bin + "pentago-predict --memory " + std::to_string(needed - 1) + " " + common, 120);
  EXPECT_EQ(p.code, 1) << p.output;
  const std::string dir = fresh_dir("admission");
  const std::string args = "--threads 2 --stop-after 35 --save -1 --dir " + dir + " 44444554";
  auto r = shell(endgame(2, "--memory " + std::to_string(needed - 1) + " " + args), 120);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("memory plan needs"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir + "/log"));
  fs::remove_all(dir);
  r = shell(endgame(2, "--memory " + std::to_string(needed) + " " + args), 300);
  ASSERT_EQ(r.code, 0) << r.output;
  expect_published_counts(dir, 35, 35);
}

TEST(endgame, trace_file_is_written) {
  const std::string dir = fresh_dir("trace");
  fs::remove(dir + ".json");  // an existing trace file is never overwritten
  const auto r = shell(endgame(
      2, "--threads 2 --meaningless 4 --trace " + dir + ".json --dir " + dir + " 00000000"));
  ASSERT_EQ(r.code, 0) << r.output;
  const auto text = bytes(dir + ".json");
  const std::string s(text.begin(), text.end());
  EXPECT_EQ(s.rfind("{\"traceEvents\":[", 0), 0u);
  EXPECT_NE(s.find("\"name\":\"compute\""), std::string::npos);
  EXPECT_NE(s.find("\"pid\":1"), std::string::npos);
}

// The first-touch probe runs once per node: every rank's log (--log-all) gives the node's one
// measurement (ranks probing for themselves measure different times, and each other's faults).
TEST(endgame, page_probe_is_shared_by_a_node) {
  const std::string dir = fresh_dir("page-probe");
  const auto r = shell(endgame(3, "--threads 2 --log-all --save -1 --dir " + dir + " 44444554"));
  ASSERT_EQ(r.code, 0) << r.output;
  std::vector<std::string> probes;
  for (const std::string log : {"log", "log-1", "log-2"}) {
    std::ifstream in(dir + "/" + log);
    std::string line, probe;
    while (std::getline(in, line))
      if (const auto at = line.find(", pages "); at != std::string::npos) probe = line.substr(at);
    ASSERT_NE(probe.find("(auto: first touch"), std::string::npos) << log << ": " << probe;
    probes.push_back(probe);
  }
  EXPECT_EQ(probes[1], probes[0]);
  EXPECT_EQ(probes[2], probes[0]);
}

// The run record of an MPI run: the same objects as the local driver's, with the load balance
// and traffic only ranks have, and the same counts.
TEST(endgame, run_record_describes_the_run) {
  const std::string dir = fresh_dir("run-record");
  const auto r =
      shell(endgame(2, "--threads 2 --meaningless 4 --save 2 --dir " + dir + " 00000000"));
  ASSERT_EQ(r.code, 0) << r.output;
  const auto records = pentago::testing::expect_run_record(dir, "pentago-endgame");
  ASSERT_EQ(records.size(), 7u);
  EXPECT_EQ(records[0].at("ranks"), 2);
  EXPECT_FALSE(records[2].at("load_balance").is_null());
  EXPECT_FALSE(records[2].at("traffic_bytes_in").is_null());
  for (int n = 0; n <= 2; n++)
    EXPECT_TRUE(fs::exists(dir + "/slice-" + std::to_string(n) + ".pentago.index")) << n;
  expect_same_files(dir, local_reference("00000000", 4), 0, 4);
}

// With --line-limit 64 at the plan's own memory, a rank that merges slowly must hold the
// senders back (other ranks' output blocks must not be received without bound): lines in flight
// plus waiting outputs stay within the plan's line memory, the resident set within --memory, and
// the record says so for every slice.
TEST(endgame, line_limit_64_stays_within_memory) {
  const std::string common = "--ranks 2 --threads 2 --line-limit 64 --save -1 --stop-after 35";
  auto p = shell(bin + "pentago-predict --memory 64G " + common + " 44444554", 120);
  ASSERT_EQ(p.code, 0) << p.output;
  const size_t at = p.output.find("engine plan: ");
  ASSERT_NE(at, std::string::npos) << p.output;
  const uint64_t needed = std::stoull(p.output.substr(p.output.find('(', at) + 1));
  const std::string dir = fresh_dir("line-limit-64");
  const auto r = shell(endgame(2,
                               "--threads 2 --line-limit 64 --save -1 --stop-after 35 "
                               "--test-slow-merge 1:2 --memory " +
                                   std::to_string(needed) + " --dir " + dir + " 44444554"));
  ASSERT_EQ(r.code, 0) << r.output;
  const auto records = pentago::testing::expect_run_record(dir, "pentago-endgame");
  ASSERT_EQ(records.size(), 3u);
  const auto& memory = records[1].at("memory");
  ASSERT_FALSE(memory.at("line_bytes").is_null());
  EXPECT_LE(memory.at("line_bytes").get<uint64_t>(), memory.at("line_plan_bytes").get<uint64_t>());
  EXPECT_GT(memory.at("line_bytes").get<uint64_t>(), 0u);
  EXPECT_LE(memory.at("resident_high_water").get<uint64_t>(), needed) << records[1].dump();
  EXPECT_FALSE(memory.at("over_limit").get<bool>());
}

// Complete blocks kept uncompressed must leave the slice below its room: at 0.58G the plan of
// 25263480 has only a few MiB for them beyond its stores, yet its first stored slice (34) finds
// an empty arena. Kept uncompressed beyond that room, slice 34's blocks left slice 33 and 32 too
// little beside them, and the store ran full on every run.
TEST(endgame, uncompressed_blocks_leave_the_slice_below_its_room) {
  const std::string dir = fresh_dir("25263480-0.58G");
  const auto r =
      shell(endgame(2, "--threads 3 --save -1 --memory 0.58G --dir " + dir + " 25263480"), 300);
  ASSERT_EQ(r.code, 0) << r.output;
  expect_published_counts(dir, 30, 35);
  const auto records = pentago::testing::expect_run_record(dir, "pentago-endgame");
  int slices = 0;
  for (const auto& record : records)
    if (record.contains("memory") && record.at("memory").is_object()) {
      EXPECT_FALSE(record.at("memory").at("over_limit").get<bool>()) << record.dump();
      slices++;
    }
  EXPECT_EQ(slices, 6);
}

// Writing a saved slice is inside the memory plan (each block's xz output sized to its data,
// the rank's part written without a whole copy, the encoders counted). Both drivers, saving
// their only computed slice at exactly the plan's need, stay within it; the file is the one a run
// with memory to spare writes.
TEST(endgame, saving_stays_within_memory) {
  const std::string args = "--save 35 --stop-after 35 --level 0";
  auto p =
      shell(bin + "pentago-predict --memory 64G --ranks 2 --threads 3 " + args + " 44444554", 120);
  ASSERT_EQ(p.code, 0) << p.output;
  const size_t at = p.output.find("engine plan: ");
  ASSERT_NE(at, std::string::npos) << p.output;
  const uint64_t mpi_needed = std::stoull(p.output.substr(p.output.find('(', at) + 1));
  // pentago-endgame-local's plan, as its driver makes it.
  engine_options_t local;
  local.program = engine_program_t::local;
  local.root = section_t::parse("44444554");
  local.threads = 2, local.save = 35, local.stop_after = 35, local.level = 0;
  const run_plan_t local_plan = make_run_plan(make_run_request(local, 1, uint64_t(64) << 30, -1),
                                              descendant_sections(local.root, 35));
  ASSERT_GT(local_plan.write_bytes, 0u);
  const uint64_t local_needed = local_plan.needed;

  const std::string mpi_dir = fresh_dir("save-at-plan-mpi"), local_dir = fresh_dir("save-at-plan");
  const auto m =
      shell(endgame(2, "--threads 3 " + args + " --memory " + std::to_string(mpi_needed) +
                           " --dir " + mpi_dir + " 44444554"));
  ASSERT_EQ(m.code, 0) << m.output;
  const auto l = shell(bin + "pentago-endgame-local --threads 2 " + args + " --memory " +
                       std::to_string(local_needed) + " --dir " + local_dir + " 44444554");
  ASSERT_EQ(l.code, 0) << l.output;
  for (const auto& [dir, program, needed] :
       {std::tuple{mpi_dir, "pentago-endgame", mpi_needed},
        std::tuple{local_dir, "pentago-endgame-local", local_needed}}) {
    const auto records = pentago::testing::expect_run_record(dir, program);
    ASSERT_EQ(records.size(), 3u) << program;
    const auto& memory = records[1].at("memory");
    EXPECT_EQ(memory.at("limit").get<uint64_t>(), needed) << program;
    EXPECT_LE(memory.at("resident_high_water").get<uint64_t>(), needed)
        << program << ": " << records[1].dump();
    EXPECT_FALSE(memory.at("over_limit").get<bool>()) << program;
  }
  // The MPI file places blocks rank by rank, the local one in order: every block's xz stream,
  // read through each file's index, is the same.
  const supertensor_reader_t a(mpi_dir + "/slice-35.pentago"), b(local_dir + "/slice-35.pentago");
  ASSERT_EQ(a.sections(), b.sections());
  uint64_t compared = 0;
  for (int s = 0; s < int(a.sections().size()); s++)
    for (uint64_t k = 0; k < section_block_count(a.sections()[s]); k++) {
      const block_t block = block_from_index(a.sections()[s], k);
      ASSERT_EQ(a.read_compressed_block(s, block), b.read_compressed_block(s, block)) << s;
      compared++;
    }
  EXPECT_EQ(compared, 5000u);
}

// A run the memory plan refuses is a usage error, exit 2, from both drivers, with one line and
// nothing created.
TEST(endgame, memory_refusal_exits_2_from_both_drivers) {
  const std::string dir = fresh_dir("refused");
  for (const std::string& command :
       {endgame(2, "--threads 2 --memory 1M --dir " + dir + " 44444554"),
        bin + "pentago-endgame-local --threads 2 --memory 1M --dir " + dir + " 44444554"}) {
    const auto r = shell(command, 60);
    EXPECT_EQ(r.code, 2) << command << "\n" << r.output;
    EXPECT_NE(r.output.find("memory plan needs"), std::string::npos) << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
    EXPECT_FALSE(fs::exists(dir)) << command;
  }
}
