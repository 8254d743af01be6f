// Test fixtures of the run-directory check (check_test.cpp, check_record_test.cpp): a
// meaningless run and a small real root solved in process, with slice files written from
// forward search and a run record written for their files, the published slices 0-2, and
// helpers to copy, damage and check them. Each test process builds its own, under
// build/test-runs, removed at exit unless PENTAGO_KEEP_TEST_RUNS is set.
#pragma once
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "db/run_record_fixture.h"
#include "pentago/data/supertensor.h"
#include "pentago/db/check.h"
#include "pentago/db/lookup.h"
#include "pentago/end/local_driver.h"
#include "pentago/end/meaningless.h"
#include "pentago/layout/line_mapping.h"
#include "pentago/search/super_search.h"

namespace pentago::test_runs {

namespace fs = std::filesystem;

// Directories of this process (ctest runs tests in parallel processes, each building its
// own fixtures), removed at exit unless PENTAGO_KEEP_TEST_RUNS is set.
struct test_dirs_t {
  std::vector<fs::path> paths;
  ~test_dirs_t() {
    if (std::getenv("PENTAGO_KEEP_TEST_RUNS")) return;
    std::error_code ec;
    for (const auto& p : paths) fs::remove_all(p, ec);
  }
};
inline test_dirs_t created_dirs;

inline std::string fresh_dir(const std::string& name) {
  const fs::path dir = fs::path(PENTAGO_BINARY_DIR) / "test-runs" /
                       ("check-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir.parent_path());
  created_dirs.paths.push_back(dir);
  return dir.string();
}

inline std::string copy_dir(const std::string& from, const std::string& name) {
  const std::string to = fresh_dir(name);
  fs::copy(from, to, fs::copy_options::recursive);
  return to;
}

// Writes DIR/slice-N.pentago with the disk-format value of every board of the sections.
inline void write_slice(const std::string& dir, int n, const std::vector<section_t>& sections,
                        const std::function<superinfo_t(board_t)>& value) {
  write_slice_file(
      dir + "/slice-" + std::to_string(n) + ".pentago", sections,
      [&](int, const section_t& s, const block_t& b, std::span<superinfo_t> nodes) {
        const auto shape = block_shape(s, b);
        size_t k = 0;
        for (int i0 = 0; i0 < shape[0]; i0++)
          for (int i1 = 0; i1 < shape[1]; i1++)
            for (int i2 = 0; i2 < shape[2]; i2++)
              for (int i3 = 0; i3 < shape[3]; i3++)
                nodes[k++] = value(
                    section_board(s, {8 * b[0] + i0, 8 * b[1] + i1, 8 * b[2] + i2, 8 * b[3] + i3}));
      },
      default_xz_preset, 2);
}

inline void solve(const std::string& root, const std::string& dir, int meaningless, int save = -1) {
  local_options_t o;
  o.save = save;
  o.root = section_t::parse(root);
  o.threads = 2;
  o.dir = dir;
  o.meaningless = meaningless;
  o.echo = false;
  o.memory = uint64_t(4) << 30;
  run_local(o);
}

// A meaningless run from the empty board: slice 4 is meaningless, slices 2-4 saved.
inline std::string meaningless_run() {
  static const std::string dir = [] {
    const std::string d = fresh_dir("meaningless-4");
    solve("00000000", d, 4);
    std::ofstream(d + "/meaningless-4");  // the marker (harmless if the solver wrote it)
    const auto slices = descendant_sections(section_t(), 4);
    write_slice(d, 4, slices[4], [](board_t b) { return to_black_white(meaningless_value(b), 0); });
    super_search_options_t o;
    o.leaf_stones = 4;
    o.leaf = cached_leaf(meaningless_value);
    super_searcher_t searcher(o);
    for (int n : {3, 2})
      write_slice(d, n, slices[n], [&](board_t b) { return searcher.black_white(b); });
    write_run_record(d, "00000000", -1, 4);
    return d;
  }();
  return dir;
}

// A small real root (31 stones) solved to the end, slices 32-35 saved from exact search.
inline const char real_root[] = "80090680";
inline std::string real_run() {
  static const std::string dir = [] {
    const std::string d = fresh_dir("real");
    solve(real_root, d, 0);
    const auto slices = descendant_sections(section_t::parse(real_root), 35);
    super_searcher_t searcher;
    for (int n = 32; n <= 35; n++)
      write_slice(d, n, slices[n], [&](board_t b) { return searcher.black_white(b); });
    write_run_record(d, real_root);
    return d;
  }();
  return dir;
}

// The published slices 0-2 with their counts and index sidecars.
inline std::string published_run() {
  static const std::string dir = [] {
    const std::string d = fresh_dir("published");
    fs::create_directories(d);
    for (int n = 0; n <= 2; n++)
      for (const std::string& name : {"slice-" + std::to_string(n) + ".pentago",
                                      "slice-" + std::to_string(n) + ".pentago.index",
                                      "counts-" + std::to_string(n) + ".npy"})
        fs::copy_file(fs::path(PENTAGO_SHARED_DATA) / name, fs::path(d) / name);
    return d;
  }();
  return dir;
}

// The published slices are no run: checked without a run record.
inline check_options_t files_only() {
  check_options_t o;
  o.require_record = false;
  return o;
}

inline check_result_t check(const std::string& dir, check_options_t o = {}) {
  o.threads = 2;
  return check_run_directory(dir, o);
}

inline std::string all_failures(const check_result_t& r) {
  std::string text;
  for (const auto& f : r.failures) text += f + "\n";
  return text;
}

inline bool mentions(const check_result_t& r, const std::string& word) {
  return all_failures(r).find(word) != std::string::npos;
}

}  // namespace pentago::test_runs
