// The shared state of one pentago-check run over a directory, used by the check_*.cpp files
// (files, run record, counts, samples, slice files, integrity): the failure reporter, the
// sample rows, the per-directory checker, and the one-line text helpers of their messages.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "pentago/base/super.h"
#include "pentago/data/npy.h"
#include "pentago/db/check.h"
#include "pentago/db/lookup.h"
#include "pentago/db/run_directory.h"
#include "pentago/end/meaningless.h"
#include "pentago/layout/line_mapping.h"
#include "pentago/search/super_search.h"

namespace pentago::check_detail {

std::string slice_name(int n);                            // "slice 34"
std::string plural(uint64_t n, const std::string& word);  // "1 section", "3 sections"
std::string block_text(const section_t& s, const block_t& b);
// The first rotation where two supers differ, as "rotation r: (w,nl) vs (w,nl)".
std::string first_difference(const superinfo_t& a, const superinfo_t& b);
// Every block of the sections, as (section index, block), in file order.
std::vector<std::pair<int, block_t>> every_block(const std::vector<section_t>& sections);

// Collects failures and notes, listing at most max_reports failures of each kind.
class reporter_t {
 public:
  reporter_t(std::string dir, int max_reports, check_result_t& result)
      : dir_(std::move(dir)), max_(max_reports), result_(result) {}

  void fail(const std::string& kind, const std::string& message);
  void note(const std::string& message);
  int count(const std::string& kind);  // failures of one kind seen so far
  void finish();                       // adds a summary line per kind over the limit

 private:
  std::string dir_;
  int max_;
  check_result_t& result_;
  std::mutex mutex_;
  std::map<std::string, int> counts_;
};

// One row of a sparse-N.npy file.
struct sample_row_t {
  uint64_t row;
  board_t board;
  superinfo_t value;  // disk format
  int section;        // index in the slice's section list; -1 if sections are unknown
  board_location_t location;
};

// A run directory's files by kind (check_files.cpp).
struct directory_contents_t {
  std::map<int, slice_files_t> slices;
  std::vector<std::string> other_pentago;  // paths of *.pentago files that are not slice-N
  std::vector<int> markers;                // K of each meaningless-K
  bool has_record = false;                 // DIR/run.jsonl is a regular file
};

// What the run record says the run wrote (check_files.cpp).
struct record_expectations_t {
  std::set<int> computed;            // slices with a slice record (their counts, samples)
  std::map<int, uint64_t> sections;  // sections of each recorded slice
  std::set<std::string> files;       // names of the files the slice records list
  // Each recorded slice's sections by the header's root: the counts files must have these.
  std::map<int, std::vector<section_t>> root_sections;
};

// Shared state of one directory's check.
struct checker_t {
  std::string dir;
  const check_options_t& options;
  reporter_t& report;
  check_result_t& result;
  const std::function<void(const std::string&)>& print;
  int threads;
  std::optional<int> meaningless = std::nullopt;  // the meaningless slice of a test run
  int expected_samples = 256;                     // per section
  bool samples_from_run = false;  // expected_samples came from the run record or --samples

  void say(const std::string& line) const {
    if (print) print(line);
  }

  // Search depth from slice n to known values: the meaningless slice or the end of the game.
  bool searchable(int n) const {
    const int top = meaningless.value_or(36);
    return n < top && top - n <= 36 - options.search_min;
  }

  leaf_function_t meaningless_leaf = cached_leaf(meaningless_value);

  super_search_options_t search_options() const;
  // Reads an .npy table of `cols` columns into table; false (and one failure of kind `where`)
  // if it cannot be read or has another width.
  bool read_table(const std::string& where, const std::string& path, uint64_t cols,
                  npy_array_t& table);

  // check_files.cpp: lists the directory and reports unexpected files (false: no directory);
  // then, if there is a run record, reads it and checks it against the files (sets
  // meaningless and expected_samples from its header).
  bool list_files(directory_contents_t& contents);
  record_expectations_t check_record(const directory_contents_t& contents);
  // check_counts.cpp: the rows of counts-N.npy (sets ok), then, with --data, the published
  // counts of the same sections; and the parent/child structure of consecutive slices.
  std::vector<section_t> check_counts(int n, const std::string& path, npy_array_t& counts,
                                      bool& ok);
  void compare_with_published(int n, const npy_array_t& counts);
  void check_structure(const std::map<int, std::vector<section_t>>& section_lists);
  // check_samples.cpp. sections: the slice's sections, or nullptr when neither counts nor
  // slice file give them (then samples are checked without their section).
  std::vector<sample_row_t> check_sparse(int n, const std::string& path,
                                         const std::vector<section_t>* sections);
  void search_samples(int n, const std::vector<sample_row_t>& samples, std::string& summary);
  // check_slice_file.cpp
  void check_slice_file(int n, const slice_files_t& paths, const std::vector<section_t>& sections,
                        const npy_array_t* counts, std::vector<sample_row_t>& samples,
                        std::string& summary);
  void check_other_pentago_file(const std::string& path);
  // check_integrity.cpp
  void check_integrity(int n);
};

}  // namespace pentago::check_detail
