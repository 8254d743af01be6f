// Tests of the run-directory check: good directories pass (a meaningless run and a small real
// root solved in process, with slice files written from forward search and a run record
// written for them, and the published slices 0-2), --integrity holds on them, and corrupted
// directories fail with a reason. The run record's own checks are in check_record_test.cpp.
#include "pentago/db/check.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "db/check_fixtures.h"
#include "pentago/data/npy.h"
#include "pentago/data/supertensor.h"
#include "pentago/db/lookup.h"
#include "pentago/end/local_driver.h"
#include "pentago/end/meaningless.h"
#include "pentago/layout/line_mapping.h"
#include "pentago/search/super_search.h"
#include "pentago/util/error.h"

using namespace pentago;
namespace fs = std::filesystem;

namespace {

using namespace pentago::test_runs;

uint64_t slice_nodes(const std::string& root, int n, int top = 35) {
  const auto slices = descendant_sections(section_t::parse(root), top);
  uint64_t nodes = 0;
  for (const auto& s : slices[n]) nodes += s.size();
  return nodes;
}

void flip_bit(const std::string& path, uint64_t offset) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(std::streamoff(offset));
  char c;
  f.get(c);
  c ^= 0x10;
  f.seekp(std::streamoff(offset));
  f.put(c);
}

}  // namespace

TEST(check, meaningless_run_passes) {
  const auto r = check(meaningless_run());
  EXPECT_TRUE(r.passed()) << all_failures(r);
  EXPECT_EQ(r.slice_files, 3u);
  // Slices 0-4 of the empty board: counts rows, samples (256 per section) all searched.
  uint64_t sections = 0;
  for (int n = 0; n <= 4; n++) sections += slice_sections(n).size();
  EXPECT_EQ(r.count_rows, sections);
  EXPECT_EQ(r.samples, 256 * sections);
  EXPECT_EQ(r.samples_searched, 256 * (sections - slice_sections(4).size()));
  EXPECT_EQ(r.nodes, slice_nodes("00000000", 2, 4) + slice_nodes("00000000", 3, 4) +
                         slice_nodes("00000000", 4, 4));
}

TEST(check, meaningless_integrity) {
  for (int n : {2, 3}) {
    check_options_t o;
    o.integrity = {n};
    const auto r = check(meaningless_run(), o);
    EXPECT_TRUE(r.passed()) << all_failures(r);
    EXPECT_EQ(r.integrity_boards, slice_nodes("00000000", n, 4)) << n;
  }
  // A fraction of the boards.
  check_options_t o;
  o.integrity = {3};
  o.fraction = 0.25;
  const auto r = check(meaningless_run(), o);
  EXPECT_TRUE(r.passed()) << all_failures(r);
  EXPECT_GT(r.integrity_boards, 0u);
  EXPECT_LT(r.integrity_boards, slice_nodes("00000000", 3, 4) / 2);
}

TEST(check, integrity_against_the_meaningless_marker) {
  // Without slice-4.pentago, slice 3's children come from the meaningless values.
  const auto dir = copy_dir(meaningless_run(), "no-slice-4");
  fs::remove(dir + "/slice-4.pentago");
  write_run_record(dir, "00000000", -1, 4);  // a run that did not save slice 4
  check_options_t o;
  o.integrity = {3};
  const auto r = check(dir, o);
  EXPECT_TRUE(r.passed()) << all_failures(r);
  EXPECT_EQ(r.integrity_boards, slice_nodes("00000000", 3, 4));
}

TEST(check, real_root_passes_with_integrity) {
  for (int n : {32, 34, 35}) {
    check_options_t o;
    o.integrity = {n};
    const auto r = check(real_run(), o);
    EXPECT_TRUE(r.passed()) << all_failures(r);
    EXPECT_EQ(r.slice_files, 4u);
    EXPECT_EQ(r.integrity_boards, slice_nodes(real_root, n)) << n;
    EXPECT_GT(r.samples_searched, 256u);
  }
}

TEST(check, published_slices_pass_with_integrity) {
  for (int n : {0, 1}) {
    check_options_t o = files_only();
    o.integrity = {n};
    const auto r = check(published_run(), o);
    EXPECT_TRUE(r.passed()) << all_failures(r);
    EXPECT_EQ(r.slice_files, 3u);
    EXPECT_EQ(r.count_rows, 1u + 1u + 3u);
    EXPECT_EQ(r.integrity_boards, slice_nodes("00000000", n));
  }
  check_options_t o = files_only();
  o.integrity = {0, 1};  // repeated --integrity
  const auto r = check(published_run(), o);
  EXPECT_TRUE(r.passed()) << all_failures(r);
  EXPECT_EQ(r.integrity_boards, slice_nodes("00000000", 0) + slice_nodes("00000000", 1));
}

TEST(check, slices_saved_by_the_solver_pass) {
  // Every solver run writes its record, which the check reads.
  const auto record = [](const std::string& dir, const std::string&, int, int) {
    EXPECT_TRUE(fs::exists(dir + "/run.jsonl")) << dir;
  };
  const std::string real = fresh_dir("solver-real");
  solve(real_root, real, 0, 35);
  record(real, real_root, 35, 0);
  for (int n : {31, 34}) {
    check_options_t o;
    o.integrity = {n};
    const auto r = check(real, o);
    EXPECT_TRUE(r.passed()) << all_failures(r);
    EXPECT_EQ(r.slice_files, 5u);
    EXPECT_EQ(r.integrity_boards, slice_nodes(real_root, n));
  }
  // A meaningless run with slices 0-4 saved (the meaningless slice 4 too); the marker tells the
  // check that slice 4 holds meaningless values.
  const std::string meaningless = fresh_dir("solver-meaningless");
  solve("00000000", meaningless, 4, 4);
  std::ofstream(meaningless + "/meaningless-4");
  record(meaningless, "00000000", 4, 4);
  check_options_t o;
  o.integrity = {3};
  const auto r = check(meaningless, o);
  EXPECT_TRUE(r.passed()) << all_failures(r);
  EXPECT_EQ(r.slice_files, 5u);
  EXPECT_EQ(r.integrity_boards, slice_nodes("00000000", 3, 4));
}

TEST(check, flipped_bit_in_a_block_fails) {
  const auto dir = copy_dir(meaningless_run(), "flipped");
  const std::string path = dir + "/slice-3.pentago";
  uint64_t offset;
  {
    const supertensor_reader_t reader(path);
    const auto blob = reader.block_blob(0, block_t{0, 0, 0, 0});
    offset = blob.offset + blob.compressed_size / 2;
  }
  flip_bit(path, offset);
  const auto r = check(dir);
  EXPECT_FALSE(r.passed());
  EXPECT_TRUE(mentions(r, "slice-3.pentago")) << all_failures(r);
}

TEST(check, truncated_slice_file_fails) {
  const auto dir = copy_dir(meaningless_run(), "truncated");
  const std::string path = dir + "/slice-4.pentago";
  fs::resize_file(path, fs::file_size(path) * 2 / 3);
  const auto r = check(dir);
  EXPECT_FALSE(r.passed());
  EXPECT_TRUE(mentions(r, "slice-4.pentago")) << all_failures(r);
}

TEST(check, wrong_count_fails) {
  const auto dir = copy_dir(meaningless_run(), "wrong-count");
  const std::string path = dir + "/counts-3.npy";
  auto counts = read_npy(path);
  counts.data[4 * 2 + 1] += 1;  // black wins of the third section
  fs::remove(path);
  write_npy(path, counts.rows, counts.cols, counts.data);
  const auto r = check(dir);
  EXPECT_FALSE(r.passed());
  EXPECT_TRUE(mentions(r, "counts row 2")) << all_failures(r);
}

TEST(check, wrong_sample_fails) {
  const auto dir = copy_dir(real_run(), "wrong-sample");
  const std::string path = dir + "/sparse-34.npy";
  auto sparse = read_npy(path);
  sparse.data[9 * 5 + 1] ^= 1;             // a black-wins bit of row 5
  sparse.data[9 * 5 + 5] &= ~uint64_t(1);  // keep the pair consistent
  fs::remove(path);
  write_npy(path, sparse.rows, sparse.cols, sparse.data);
  const auto r = check(dir);
  EXPECT_FALSE(r.passed());
  EXPECT_TRUE(mentions(r, "sparse row 5")) << all_failures(r);
  EXPECT_TRUE(mentions(r, "forward search")) << all_failures(r);
  EXPECT_TRUE(mentions(r, "slice file")) << all_failures(r);
}

TEST(check, wrong_stored_value_fails_integrity) {
  // Slice 3 rewritten with one node changed: its counts no longer agree, and --integrity 3
  // finds the board whose value is not the best over its children.
  const auto dir = copy_dir(meaningless_run(), "wrong-value");
  const auto sections = descendant_sections(section_t(), 4)[3];
  const board_t victim = section_board(sections[1], {0, 0, 0, 0});
  slice_database_t db;
  db.add_file(meaningless_run() + "/slice-3.pentago");
  fs::remove(dir + "/slice-3.pentago");
  write_slice(dir, 3, sections, [&](board_t b) {
    superinfo_t v = db.black_white(b);
    if (b == victim) std::swap(v.win, v.notlose);
    return v;
  });
  check_options_t o;
  o.integrity = {3};
  const auto r = check(dir, o);
  EXPECT_FALSE(r.passed());
  EXPECT_TRUE(mentions(r, "integrity 3: board " + std::to_string(victim))) << all_failures(r);
  EXPECT_TRUE(mentions(r, "counts row 1")) << all_failures(r);
}

TEST(check, strange_files_and_sample_counts) {
  const auto dir = copy_dir(published_run(), "strange");
  std::ofstream(dir + "/junk.txt") << "?";
  auto r = check(dir, files_only());
  EXPECT_FALSE(r.passed());
  EXPECT_TRUE(mentions(r, "unexpected file junk.txt")) << all_failures(r);

  // Job output and logs are fine; a stated sample count must match.
  fs::remove(dir + "/junk.txt");
  std::ofstream(dir + "/slurm-1234.out") << "job output";
  EXPECT_TRUE(check(dir, files_only()).passed());
  // So are scripts/plot-run's pictures in plots/; any other folder is not.
  fs::create_directory(dir + "/plots");
  std::ofstream(dir + "/plots/memory.png") << "png";
  EXPECT_TRUE(check(dir, files_only()).passed());
  fs::create_directory(dir + "/pictures");
  r = check(dir, files_only());
  EXPECT_FALSE(r.passed());
  EXPECT_TRUE(mentions(r, "unexpected non-file pictures")) << all_failures(r);
  fs::remove(dir + "/pictures");
  check_options_t o;
  o.samples = 100;
  r = check(meaningless_run(), o);
  EXPECT_FALSE(r.passed());
  EXPECT_TRUE(mentions(r, "256 samples per section, expected 100")) << all_failures(r);
}

TEST(check, sections_must_be_parents_and_children) {
  // Drop the last section of slice 35 (with its samples): the children of slice 34 are then
  // more than slice 35's sections.
  const auto dir = copy_dir(real_run(), "structure");
  for (const char* name : {"sparse-35.npy", "slice-35.pentago"}) fs::remove(dir + "/" + name);
  auto counts = read_npy(dir + "/counts-35.npy");
  ASSERT_GT(counts.rows, 1u);
  counts.data.resize(4 * (counts.rows - 1));
  fs::remove(dir + "/counts-35.npy");
  write_npy(dir + "/counts-35.npy", counts.rows - 1, 4, counts.data);
  const auto r = check(dir);
  EXPECT_FALSE(r.passed());
  EXPECT_TRUE(mentions(r, "slice 35: its sections are not the children of slice 34"))
      << all_failures(r);
  // The run record lists sparse-35.npy and slice-35.pentago, so their removal is reported
  // too, and that counts-35.npy no longer has the recorded number of sections.
  EXPECT_TRUE(mentions(r, "slice 35: sparse-35.npy is missing")) << all_failures(r);
  EXPECT_TRUE(mentions(r, "slice 35: slice-35.pentago is missing")) << all_failures(r);
  EXPECT_TRUE(mentions(r, "but run.jsonl says")) << all_failures(r);
  EXPECT_TRUE(mentions(r, "not those of the root in run.jsonl")) << all_failures(r);
  EXPECT_EQ(r.failures.size(), 5u) << all_failures(r);
}

TEST(check, missing_directory_and_options) {
  const auto r = check(fresh_dir("missing"));
  EXPECT_FALSE(r.passed());
  check_options_t o;
  o.fraction = 0;
  EXPECT_THROW(check_run_directory(published_run(), o), usage_error_t);
  // A directory without run.jsonl fails with one line saying how to check it anyway.
  const auto unrecorded = check(published_run());
  ASSERT_EQ(unrecorded.failures.size(), 1u) << all_failures(unrecorded);
  EXPECT_TRUE(mentions(unrecorded, "no run.jsonl")) << all_failures(unrecorded);
  EXPECT_TRUE(mentions(unrecorded, "--no-record")) << all_failures(unrecorded);
  const char* argv[] = {"pentago-check", "--fraction", "0.5", "dir"};
  EXPECT_THROW(parse_check_command(4, const_cast<char**>(argv)), usage_error_t);
  const char* argv2[] = {"pentago-check", "--integrity", "3", "--fraction", "0.5", "a", "b"};
  const auto c = parse_check_command(7, const_cast<char**>(argv2));
  EXPECT_EQ(c.options.integrity, std::vector<int>{3});
  EXPECT_EQ(c.dirs.size(), 2u);
  // "--opt=value" as well as "--opt value".
  const char* argv3[] = {"pentago-check", "--threads=2", "--integrity=3", "--no-record", "d"};
  const auto c3 = parse_check_command(5, const_cast<char**>(argv3));
  EXPECT_EQ(c3.options.threads, 2);
  EXPECT_EQ(c3.options.integrity, std::vector<int>{3});
  EXPECT_FALSE(c3.options.require_record);
  EXPECT_EQ(c3.dirs, std::vector<std::string>{"d"});
  const char* argv4[] = {"pentago-check", "--no-record=1", "d"};
  EXPECT_THROW(parse_check_command(3, const_cast<char**>(argv4)), usage_error_t);
  const char* argv5[] = {"pentago-check", "--data", "/no/such/folder", "d"};
  EXPECT_THROW(parse_check_command(4, const_cast<char**>(argv5)), usage_error_t);
}
