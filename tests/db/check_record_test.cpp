// Damages that pentago-check must catch, applied one at a time to copies of a small finished
// run (root 80090680: slices 31-35 computed, slice files 32-35): the run record deleted,
// emptied, cut, its done, slice or file entries removed, its root or --save changed, a run
// killed mid-slice, junk appended to a slice file; and counts of a slice without a slice file
// changed, which only the published counts (--data) catch. The undamaged run passes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "db/check_fixtures.h"
#include "pentago/data/npy.h"
#include "pentago/db/run_record.h"
#include "pentago/util/error.h"

using namespace pentago;
using namespace pentago::test_runs;
namespace fs = std::filesystem;

namespace {

// Forward search of the samples is left out (check_test covers it): these damages are not
// in the samples.
check_options_t quick() {
  check_options_t o;
  o.search_min = 36;
  return o;
}

check_options_t with_published_counts() {
  check_options_t o = quick();
  o.data = PENTAGO_SHARED_DATA;
  return o;
}

std::vector<std::string> record_lines(const std::string& dir) {
  std::ifstream in(dir + "/run.jsonl");
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

void write_lines(const std::string& dir, const std::vector<std::string>& lines) {
  std::ofstream out(dir + "/run.jsonl", std::ios::trunc);
  for (const auto& line : lines) out << line << "\n";
}

// A copy of the run with its record's lines passed through edit.
std::string with_record(const std::string& name,
                        const std::function<void(std::vector<std::string>&)>& edit) {
  const auto dir = copy_dir(real_run(), name);
  auto lines = record_lines(dir);
  edit(lines);
  write_lines(dir, lines);
  return dir;
}

// Index of the record line holding `text`.
size_t line_with(const std::vector<std::string>& lines, const std::string& text) {
  for (size_t i = 0; i < lines.size(); i++)
    if (lines[i].find(text) != std::string::npos) return i;
  ADD_FAILURE() << "no record line holds " << text;
  return 0;
}

void replace(std::string& line, const std::string& from, const std::string& to) {
  const size_t at = line.find(from);
  ASSERT_NE(at, std::string::npos) << from << " not in " << line;
  line.replace(at, from.size(), to);
}

// counts-31.npy (slice 31 has no slice file) with one row changed by edit.
std::string with_counts_31(const std::string& name,
                           const std::function<void(npy_array_t&, uint64_t row)>& edit) {
  const auto dir = copy_dir(real_run(), name);
  const std::string path = dir + "/counts-31.npy";
  auto counts = read_npy(path);
  uint64_t row = 0;  // a row where black and white win different numbers of boards
  while (row + 1 < counts.rows && counts(row, 1) == counts(row, 2)) row++;
  EXPECT_NE(counts(row, 1), counts(row, 2));
  edit(counts, row);
  fs::remove(path);
  write_npy(path, counts.rows, counts.cols, counts.data);
  return dir;
}

void expect_caught(const std::string& damage, const std::string& dir, const std::string& reason,
                   const check_options_t& o = quick()) {
  const auto r = check(dir, o);
  EXPECT_FALSE(r.passed()) << damage << " passed";
  EXPECT_TRUE(mentions(r, reason)) << damage << ": " << all_failures(r);
}

}  // namespace

TEST(check_record, undamaged_run_passes_and_equals_the_published_counts) {
  auto o = with_published_counts();
  o.search_min = 30;
  const auto r = check(real_run(), o);
  EXPECT_TRUE(r.passed()) << all_failures(r);
  EXPECT_GT(r.samples_searched, 0u);
  EXPECT_EQ(r.published_rows, r.count_rows);
  EXPECT_GT(r.count_rows, 0u);
  EXPECT_EQ(r.record_files, 5u + 5u + 4u);  // counts, sparse, slice files
}

TEST(check_record, changed_counts_of_a_slice_without_its_file) {
  const auto add_one = with_counts_31("counts-plus-one", [](npy_array_t& c, uint64_t r) {
    c.data[4 * r + 1] += 1;  // black wins + 1
  });
  const auto flipped = with_counts_31("counts-flipped", [](npy_array_t& c, uint64_t r) {
    c.data[4 * r + 2] ^= 4;  // a bit of white wins
  });
  const auto swapped = with_counts_31("counts-swapped", [](npy_array_t& c, uint64_t r) {
    std::swap(c.data[4 * r + 1], c.data[4 * r + 2]);  // black and white
  });
  for (const auto& dir : {add_one, flipped, swapped}) {
    // Nothing in the run itself contradicts such counts: the blind spot --data closes.
    EXPECT_TRUE(check(dir, quick()).passed()) << dir;
    expect_caught(dir, dir, "slice 31: published counts: counts-31.npy row",
                  with_published_counts());
  }
}

TEST(check_record, damaged_records_fail) {
  {
    const auto dir = copy_dir(real_run(), "record-deleted");
    fs::remove(dir + "/run.jsonl");
    expect_caught("record deleted", dir, "no run.jsonl");
    check_options_t o = quick();
    o.require_record = false;
    EXPECT_TRUE(check(dir, o).passed()) << "--no-record";
  }
  expect_caught("record emptied", with_record("record-empty", [](auto& l) { l.clear(); }),
                "run.jsonl has no header record");
  {
    const auto dir = copy_dir(real_run(), "record-cut");
    fs::resize_file(dir + "/run.jsonl", fs::file_size(dir + "/run.jsonl") / 2);
    expect_caught("record cut in half", dir, "the run did not finish");
    expect_caught("record cut in half", dir, "run.jsonl line ");
  }
  expect_caught("done removed", with_record("no-done", [](auto& l) { l.pop_back(); }),
                "run.jsonl has no done record after its last header (line 1): the run did "
                "not finish");
  expect_caught(
      "slice record removed",
      with_record("no-slice-33",
                  [](auto& l) { l.erase(l.begin() + long(line_with(l, "\"slice\":33,"))); }),
      "slice 33: counts-33.npy is not in run.jsonl");
  expect_caught("slice file entry removed",
                with_record("no-entry",
                            [](auto& l) {
                              auto& line = l[line_with(l, "\"slice\":34,")];
                              const size_t at = line.find(",{\"name\":\"slice-34.pentago\"");
                              ASSERT_NE(at, std::string::npos);
                              line.erase(at, line.find('}', at) + 1 - at);
                            }),
                "slice 34: slice-34.pentago is not in run.jsonl");
  expect_caught(
      "root changed",
      with_record("root",
                  [](auto& l) { replace(l[0], "\"root\":\"80090680\"", "\"root\":\"71180680\""); }),
      "sections are not those of the root in run.jsonl");
  expect_caught("save changed",
                with_record("save", [](auto& l) { replace(l[0], "\"save\":-1", "\"save\":31"); }),
                "slice 31 is at or below --save 31 but its record lists no slice-31.pentago");
  expect_caught("done lists other slices",
                with_record("done-slices", [](auto& l) { replace(l.back(), "35,34,", "35,"); }),
                "done record lists slices 35 33 32 31");
  expect_caught(
      "malformed line",
      with_record("malformed", [](auto& l) { l.insert(l.begin() + 2, "{\"record\":\"slice\","); }),
      "run.jsonl line 3: ");
  expect_caught(
      "other version",
      with_record("version", [](auto& l) { replace(l[1], "\"version\":1", "\"version\":2"); }),
      "run.jsonl line 2: version 2");
}

TEST(check_record, a_restart_appended_to_the_record_passes) {
  // Stopped at a checkpoint after slice 34, then restarted from slice-34.pentago into the same
  // directory: the record holds two runs, each ending in its own done record.
  const auto dir = with_record("restarted", [](auto& l) {
    const size_t s33 = line_with(l, "\"slice\":33,");
    std::string restart = l[0];
    replace(restart, "\"restart\":null",
            "\"restart\":{\"slice\":34,\"path\":\"slice-34.pentago\"}");
    l.pop_back();  // the done record
    l.insert(l.begin() + long(s33),
             {"{\"record\":\"checkpoint\",\"version\":1,\"slice\":34,\"restart_command\":\"x\"}",
              "{\"record\":\"done\",\"version\":1,\"status\":\"checkpoint\",\"seconds\":1,"
              "\"slices\":[35,34]}",
              restart});
    l.push_back(
        "{\"record\":\"done\",\"version\":1,\"status\":\"complete\",\"seconds\":1,"
        "\"slices\":[33,32,31]}");
  });
  const auto r = check(dir, quick());
  EXPECT_TRUE(r.passed()) << all_failures(r);
  // The first run's done record does not end the record.
  auto lines = record_lines(dir);
  lines.pop_back();
  write_lines(dir, lines);
  expect_caught("restart killed", dir, "the run did not finish");
}

TEST(check_record, killed_mid_slice_fails) {
  // The run was killed while computing slice 32: slices 35-33 are recorded, slice 32's files
  // are half written, and no done record follows.
  const auto dir = with_record(
      "killed", [](auto& l) { l.erase(l.begin() + long(line_with(l, "\"slice\":32,")), l.end()); });
  for (const char* name : {"counts-31.npy", "sparse-31.npy", "sparse-32.npy"})
    fs::remove(dir + "/" + name);
  expect_caught("killed mid-slice", dir, "the run did not finish");
}

TEST(check_record, junk_appended_to_a_slice_file_fails) {
  const auto dir = copy_dir(real_run(), "junk");
  std::ofstream(dir + "/slice-33.pentago", std::ios::app | std::ios::binary)
      << std::string(40, 'x');
  expect_caught("40 junk bytes", dir, "slice 33: slice-33.pentago (run.jsonl line ");
  expect_caught("40 junk bytes", dir, "bytes, but the run wrote");
}

TEST(check_record, reader_keeps_the_fields_and_refuses_non_files) {
  const auto run = read_run_record(real_run() + "/run.jsonl");
  EXPECT_TRUE(run.problems.empty());
  ASSERT_EQ(run.headers.size(), 1u);
  EXPECT_EQ(run.headers[0].root, real_root);
  ASSERT_EQ(run.slices.size(), 5u);
  EXPECT_EQ(run.slices[0].slice, 35);
  ASSERT_TRUE(run.done);
  EXPECT_EQ(run.done->slices, (std::vector<int>{35, 34, 33, 32, 31}));
  EXPECT_THROW(read_run_record(real_run()), pentago_error_t);               // a directory
  EXPECT_THROW(read_run_record(real_run() + "/no-such"), pentago_error_t);  // missing
}
