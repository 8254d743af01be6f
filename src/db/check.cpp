// pentago-check's verification of run directories: slice files, counts, samples, integrity.
#include "pentago/db/check.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "pentago/data/npy.h"
#include "pentago/data/supertensor.h"
#include "pentago/db/lookup.h"
#include "pentago/db/run_directory.h"
#include "pentago/end/block_store.h"
#include "pentago/end/meaningless.h"
#include "pentago/end/run_options.h"
#include "pentago/layout/line_mapping.h"
#include "pentago/layout/quadrant_states.h"
#include "pentago/search/super_search.h"
#include "pentago/util/combinatorics.h"
#include "pentago/util/error.h"
#include "pentago/util/parallel_for.h"
#include "pentago/util/random.h"

namespace pentago {
namespace {

namespace fs = std::filesystem;

std::string slice_name(int n) { return "slice " + std::to_string(n); }

std::string plural(uint64_t n, const std::string& word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

std::string block_text(const section_t& s, const block_t& b) {
  return s.name() + " block " + std::to_string(b[0]) + "," + std::to_string(b[1]) + "," +
         std::to_string(b[2]) + "," + std::to_string(b[3]);
}

// The first rotation where two supers differ, as "rotation r".
std::string first_difference(const superinfo_t& a, const superinfo_t& b) {
  for (int r = 0; r < 256; r++)
    if (a.win(r) != b.win(r) || a.notlose(r) != b.notlose(r))
      return "rotation " + std::to_string(r) + ": (" + std::to_string(a.win(r)) + "," +
             std::to_string(a.notlose(r)) + ") vs (" + std::to_string(b.win(r)) + "," +
             std::to_string(b.notlose(r)) + ")";
  return "no difference";
}

// Boards with exactly the section's per-quadrant counts (the counts "total" column).
uint64_t section_boards(const section_t& s) {
  uint64_t total = 1;
  for (int q = 0; q < 4; q++)
    total *= binomial(9, s.counts[q][0]) * binomial(9 - s.counts[q][0], s.counts[q][1]);
  return total;
}

// Collects failures and notes, listing at most max_reports of each kind.
class reporter {
 public:
  reporter(std::string dir, int max_reports, check_result& result)
      : dir_(std::move(dir)), max_(max_reports), result_(result) {}

  void fail(const std::string& kind, const std::string& message) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (++counts_[kind] <= max_) result_.failures.push_back(dir_ + ": " + message);
  }
  void note(const std::string& message) {
    std::lock_guard<std::mutex> lock(mutex_);
    result_.notes.push_back(dir_ + ": " + message);
  }
  // How many failures of one kind were seen.
  int count(const std::string& kind) {
    std::lock_guard<std::mutex> lock(mutex_);
    return counts_[kind];
  }
  void finish() {
    for (const auto& [kind, count] : counts_)
      if (count > max_)
        result_.failures.push_back(dir_ + ": " + kind + ": " + std::to_string(count - max_) +
                                   " more failures of this kind not listed");
  }

 private:
  std::string dir_;
  int max_;
  check_result& result_;
  std::mutex mutex_;
  std::map<std::string, int> counts_;
};

// The files of one slice in a run directory.
// One sparse row.
struct sample_row {
  uint64_t row;
  board_t board;
  superinfo_t value;  // disk format
  int section;        // index in the slice's section list
  board_location location;
};

// Shared state of one directory's check.
struct checker {
  std::string dir;
  const check_options& options;
  reporter& report;
  check_result& result;
  const std::function<void(const std::string&)>& print;
  int threads;
  std::optional<int> meaningless = std::nullopt;  // the meaningless slice of a test run
  int expected_samples = 256;                     // per section
  bool samples_from_run = false;                  // expected_samples came from the log or --samples

  void say(const std::string& line) const {
    if (print) print(line);
  }

  // Search depth from slice n to known values: the meaningless slice or the end of the game.
  bool searchable(int n) const {
    const int top = meaningless.value_or(36);
    return n < top && top - n <= 36 - options.search_min;
  }

  leaf_function meaningless_leaf = cached_leaf(meaningless_value);

  super_search_options search_options() const {
    super_search_options o;
    o.table_bits = 18;
    if (meaningless) {
      o.leaf_stones = *meaningless;
      o.leaf = meaningless_leaf;
    }
    return o;
  }

  std::vector<section_t> check_counts(int n, const std::string& path, npy_array& counts, bool& ok);
  // sections: the slice's sections, or nullptr when neither counts nor slice file give them
  // (then samples are checked without their section).
  std::vector<sample_row> check_sparse(int n, const std::string& path,
                                       const std::vector<section_t>* sections);
  void check_slice_file(int n, const slice_files& paths, const std::vector<section_t>& sections,
                        const npy_array* counts, std::vector<sample_row>& samples,
                        std::string& summary);
  void search_samples(int n, const std::vector<sample_row>& samples, std::string& summary);
  void check_integrity(int n);
};

std::vector<section_t> checker::check_counts(int n, const std::string& path, npy_array& counts,
                                             bool& ok) {
  const std::string where = slice_name(n) + ": " + fs::path(path).filename().string();
  ok = false;
  try {
    counts = read_npy(path);
  } catch (const std::exception& e) {
    report.fail(where, where + ": " + e.what());
    return {};
  }
  if (counts.cols != 4) {
    report.fail(where, where + ": expected 4 columns, found " + std::to_string(counts.cols));
    return {};
  }
  std::vector<section_t> sections;
  ok = true;
  for (uint64_t r = 0; r < counts.rows; r++) {
    const uint64_t sig = counts(r, 0);
    const section_t s = section_t::from_sig(sig);
    std::string problem;
    if (s.sig() != sig || !s.valid())
      problem = "invalid section id " + std::to_string(sig);
    else if (s.sum() != n)
      problem = "section " + s.name() + " does not have " + std::to_string(n) + " stones";
    else if (s.standardize() != s)
      problem = "section " + s.name() + " is not standardized";
    else if (!sections.empty() && sig <= sections.back().sig())
      problem = "section " + s.name() + " is out of order";
    else if (counts(r, 3) != section_boards(s))
      problem = "section " + s.name() + " total " + std::to_string(counts(r, 3)) + ", expected " +
                std::to_string(section_boards(s));
    else if (counts(r, 1) + counts(r, 2) > counts(r, 3))
      problem = "section " + s.name() + " has more wins than boards";
    if (!problem.empty()) {
      report.fail(where, where + ": row " + std::to_string(r) + ": " + problem);
      ok = false;
      continue;
    }
    sections.push_back(s);
  }
  result.count_rows += counts.rows;
  return sections;
}

std::vector<sample_row> checker::check_sparse(int n, const std::string& path,
                                              const std::vector<section_t>* known_sections) {
  const std::string where = slice_name(n) + ": " + fs::path(path).filename().string();
  static const std::vector<section_t> none;
  const std::vector<section_t>& sections = known_sections ? *known_sections : none;
  npy_array sparse;
  try {
    sparse = read_npy(path);
  } catch (const std::exception& e) {
    report.fail(where, where + ": " + e.what());
    return {};
  }
  if (sparse.cols != 9) {
    report.fail(where, where + ": expected 9 columns, found " + std::to_string(sparse.cols));
    return {};
  }
  bool ok = true;
  std::vector<sample_row> samples;
  samples.reserve(sparse.rows);
  std::vector<uint64_t> per_section(sections.size(), 0);
  for (uint64_t r = 0; r < sparse.rows; r++) {
    sample_row row;
    row.row = r;
    row.board = sparse(r, 0);
    for (int w = 0; w < 4; w++) {
      row.value.win.w[w] = sparse(r, 1 + w);
      row.value.notlose.w[w] = sparse(r, 5 + w);
    }
    std::string problem;
    try {
      check_board(row.board);
    } catch (const std::exception& e) {
      problem = e.what();
    }
    if (problem.empty() && count_stones(row.board) != n)
      problem = "board has " + std::to_string(count_stones(row.board)) + " stones";
    if (problem.empty() && !known_sections) {
      row.location = locate_board(row.board);
      row.section = -1;
    } else if (problem.empty()) {
      row.location = locate_board(row.board);
      const auto it = std::lower_bound(sections.begin(), sections.end(), row.location.section);
      row.section =
          it != sections.end() && *it == row.location.section ? int(it - sections.begin()) : -1;
      if (row.section < 0)
        problem = "section " + row.location.section.name() + " is not in the slice";
      else if (row.location.symmetry != symmetry_t() ||
               section_board(row.location.section, row.location.index) != row.board)
        problem =
            "board is not stored as is (quadrants not rotation minimal or section not "
            "standard)";
    }
    if (problem.empty() && row.value.win & row.value.notlose)
      problem = "black and white both win " + first_difference(row.value, {});
    if (!problem.empty()) {
      report.fail(where, where + ": row " + std::to_string(r) + " (board " +
                             std::to_string(row.board) + "): " + problem);
      ok = false;
      continue;
    }
    if (row.section >= 0) per_section[row.section]++;
    samples.push_back(row);
  }
  result.samples += sparse.rows;
  // Samples per section: every section gets the same number.
  if (!sections.empty() && ok) {
    const uint64_t k = sparse.rows / sections.size();
    if (sparse.rows % sections.size()) {
      report.fail(where, where + ": " + std::to_string(sparse.rows) +
                             " rows are not a multiple of " + std::to_string(sections.size()) +
                             " sections");
    } else {
      for (size_t s = 0; s < sections.size(); s++)
        if (per_section[s] != k) {
          report.fail(where, where + ": section " + sections[s].name() + " has " +
                                 std::to_string(per_section[s]) + " samples, expected " +
                                 std::to_string(k));
        }
      if (k != uint64_t(expected_samples)) {
        const std::string text =
            where + ": " + std::to_string(k) + " samples per section, expected " +
            std::to_string(expected_samples) + (samples_from_run ? "" : " (the default)");
        if (samples_from_run)
          report.fail(where, text);
        else
          report.note(text);
      }
    }
  }
  return samples;
}

void checker::check_slice_file(int n, const slice_files& paths,
                               const std::vector<section_t>& sections, const npy_array* counts,
                               std::vector<sample_row>& samples, std::string& summary) {
  const std::string where = slice_name(n) + ": " + fs::path(paths.slice).filename().string();
  std::unique_ptr<supertensor_reader> reader;
  try {
    reader = std::make_unique<supertensor_reader>(paths.slice);
    reader->load_indexes();
  } catch (const std::exception& e) {
    report.fail(where, where + ": " + e.what());
    return;
  }
  result.slice_files++;
  if (reader->slice() != n) {
    report.fail(where, where + ": holds slice " + std::to_string(reader->slice()));
    return;
  }
  const auto& file_sections = reader->sections();
  if (counts && file_sections != sections) {
    std::string diff = std::to_string(file_sections.size()) + " sections, counts have " +
                       std::to_string(sections.size());
    for (size_t i = 0; i < std::min(file_sections.size(), sections.size()); i++)
      if (file_sections[i] != sections[i]) {
        diff += "; first difference at " + std::to_string(i) + ": " + file_sections[i].name() +
                " vs " + sections[i].name();
        break;
      }
    report.fail(where, where + ": sections differ from the counts file: " + diff);
    return;
  }

  // Layout: block and index blobs lie after the headers and do not overlap.
  {
    std::vector<std::pair<uint64_t, uint64_t>> ranges;  // offset, size
    for (int s = 0; s < int(file_sections.size()); s++) {
      const auto& index = reader->headers()[s].index;
      ranges.push_back({index.offset, index.compressed_size});
      for (const auto& blob : reader->block_index(s))
        ranges.push_back({blob.offset, blob.compressed_size});
    }
    std::sort(ranges.begin(), ranges.end());
    for (size_t i = 0; i < ranges.size(); i++) {
      if (ranges[i].first < reader->data_start() ||
          (i + 1 < ranges.size() && ranges[i].first + ranges[i].second > ranges[i + 1].first)) {
        report.fail(where, where + ": compressed data at offset " +
                               std::to_string(ranges[i].first) +
                               " overlaps the headers or another block");
        break;
      }
    }
  }

  // Samples by block.
  std::map<std::pair<int, uint64_t>, std::vector<size_t>> samples_of_block;
  for (size_t i = 0; i < samples.size(); i++) {
    const auto& row = samples[i];
    if (row.section < 0 || row.section >= int(sections.size())) continue;
    block_t block;
    for (int q = 0; q < 4; q++) block[q] = uint8_t(row.location.index[q] / block_size);
    samples_of_block[{row.section, block_index(sections[row.section], block)}].push_back(i);
  }

  // Every block: decode (xz checksum), no node where both players win, counts, samples.
  std::vector<std::pair<int, block_t>> blocks;
  for (int s = 0; s < int(file_sections.size()); s++)
    for (uint64_t b = 0; b < section_block_count(file_sections[s]); b++)
      blocks.push_back({s, block_from_index(file_sections[s], b)});
  std::vector<std::vector<section_counts_t>> worker_counts(
      size_t(threads), std::vector<section_counts_t>(file_sections.size(), {0, 0, 0}));
  std::vector<std::atomic<bool>> section_unreadable(file_sections.size());
  std::atomic<uint64_t> nodes{0}, matched{0};
  const std::string block_kind = where + ": blocks";
  const std::string sample_kind = slice_name(n) + ": samples vs slice file";
  parallel_for(threads, blocks.size(), [&](int worker, uint64_t i) {
    const auto& [s, block] = blocks[i];
    const section_t& section = file_sections[s];
    std::vector<superinfo_t> data;
    try {
      data = reader->read_block(s, block);
    } catch (const std::exception& e) {
      report.fail(block_kind, where + ": " + block_text(section, block) + ": " + e.what());
      section_unreadable[s] = true;
      return;
    }
    nodes += data.size();
    for (size_t k = 0; k < data.size(); k++)
      if (data[k].win & data[k].notlose) {
        report.fail(block_kind, where + ": " + block_text(section, block) + " node " +
                                    std::to_string(k) + ": black and white both win (" +
                                    first_difference(data[k], {}) + ")");
        break;
      }
    const section_counts_t c = count_block(section, block, data);
    for (int j = 0; j < 3; j++) worker_counts[worker][s][j] += c[j];
    const auto it = samples_of_block.find({s, block_index(section, block)});
    if (it == samples_of_block.end()) return;
    const auto shape = block_shape(section, block);
    for (const size_t si : it->second) {
      const auto& row = samples[si];
      int offset = 0;
      for (int q = 0; q < 4; q++) offset = offset * shape[q] + row.location.index[q] % block_size;
      const superinfo_t stored = transform_pair(row.location.symmetry, data[size_t(offset)]);
      if (stored == row.value) {
        matched++;
      } else {
        report.fail(sample_kind, slice_name(n) + ": sparse row " + std::to_string(row.row) +
                                     " (board " + std::to_string(row.board) +
                                     ") differs from the slice file at " +
                                     first_difference(row.value, stored));
      }
    }
  });
  result.blocks += blocks.size();
  result.nodes += nodes;
  summary += "; " + fs::path(paths.slice).filename().string() + ": " +
             std::to_string(blocks.size()) + " blocks, " + std::to_string(nodes.load()) +
             " nodes read";

  // Counts recomputed from the blocks: (popcount(black) >> s, popcount(white) >> s, 256 >> s).
  if (counts) {
    int wrong = 0, skipped = 0;
    for (size_t s = 0; s < file_sections.size(); s++) {
      if (section_unreadable[s]) {
        skipped++;
        continue;
      }
      section_counts_t c{0, 0, 0};
      for (const auto& w : worker_counts)
        for (int j = 0; j < 3; j++) c[j] += w[s][j];
      if (c[0] != (*counts)(s, 1) || c[1] != (*counts)(s, 2) || c[2] != (*counts)(s, 3)) {
        wrong++;
        report.fail(slice_name(n) + ": counts vs slice file",
                    slice_name(n) + ": counts row " + std::to_string(s) + " (section " +
                        file_sections[s].name() + ") is (" + std::to_string((*counts)(s, 1)) +
                        ", " + std::to_string((*counts)(s, 2)) + ", " +
                        std::to_string((*counts)(s, 3)) + ") but the slice file gives (" +
                        std::to_string(c[0]) + ", " + std::to_string(c[1]) + ", " +
                        std::to_string(c[2]) + ")");
      }
    }
    if (!wrong && !skipped) summary += ", counts agree";
    if (skipped)
      summary +=
          ", counts of " + plural(skipped, "section") + " with unreadable blocks not compared";
  }
  if (!samples.empty()) summary += ", " + std::to_string(matched.load()) + " samples agree";

  // The .index sidecar, if any, is what this file gives.
  if (!paths.index.empty()) {
    const std::string iwhere = slice_name(n) + ": " + fs::path(paths.index).filename().string();
    try {
      if (read_file(paths.index) != slice_index_bytes(*reader))
        report.fail(iwhere,
                    iwhere + ": does not match " + fs::path(paths.slice).filename().string());
      else
        summary += ", index sidecar agrees";
    } catch (const std::exception& e) {
      report.fail(iwhere, iwhere + ": " + e.what());
    }
  }
}

void checker::search_samples(int n, const std::vector<sample_row>& samples, std::string& summary) {
  if (samples.empty()) return;
  const std::string kind = slice_name(n) + ": samples vs search";
  if (n == meaningless) {
    uint64_t good = 0;
    for (const auto& row : samples) {
      const superinfo_t expected = to_black_white(meaningless_value(row.board), n & 1);
      if (expected == row.value)
        good++;
      else
        report.fail(kind, slice_name(n) + ": sparse row " + std::to_string(row.row) + " (board " +
                              std::to_string(row.board) +
                              ") differs from its meaningless value at " +
                              first_difference(row.value, expected));
    }
    summary += ", " + std::to_string(good) + " samples agree with meaningless values";
    return;
  }
  if (!searchable(n)) return;
  // A random subset if --search-max limits the work.
  std::vector<size_t> order(samples.size());
  for (size_t i = 0; i < order.size(); i++) order[i] = i;
  if (options.search_max >= 0 && uint64_t(options.search_max) < order.size()) {
    random_t random(make_uint128(options.seed, uint64_t(n)));
    for (size_t i = 0; i + 1 < order.size(); i++)
      std::swap(order[i], order[i + size_t(random.bits<uint64_t>() % (order.size() - i))]);
    order.resize(size_t(options.search_max));
  }
  std::vector<std::unique_ptr<super_searcher>> searchers(static_cast<size_t>(threads));
  std::atomic<uint64_t> good{0};
  parallel_for(threads, order.size(), [&](int worker, uint64_t i) {
    auto& searcher = searchers[size_t(worker)];
    if (!searcher) searcher = std::make_unique<super_searcher>(search_options());
    const auto& row = samples[order[i]];
    const superinfo_t expected = searcher->black_white(row.board);
    if (expected == row.value)
      good++;
    else
      report.fail(kind, slice_name(n) + ": sparse row " + std::to_string(row.row) + " (board " +
                            std::to_string(row.board) + ") differs from forward search at " +
                            first_difference(row.value, expected));
  });
  result.samples_searched += order.size();
  summary += ", " + std::to_string(good.load()) + " of " + std::to_string(order.size()) +
             " searched samples agree";
}

// The value of slice n+1's board from its slice file or the meaningless slice (store format).
struct child_values {
  const slice_database* db = nullptr;
  std::optional<int> meaningless;
  const leaf_function* meaningless_leaf = nullptr;
  superinfo_t operator()(board_t child, int n) const {
    if (n == meaningless && !db->has_slice(n)) return (*meaningless_leaf)(child);
    return disk_to_store(db->black_white(child), n & 1);
  }
};

// The recurrence of core §3.6: the value of board b (n stones) for its mover from its
// children's values (n = 35: from the rules after the last stone).
superinfo_t recurrence(board_t board, int n, const child_values& children) {
  const int turn = n & 1;
  const side_t me = unpack(board, turn), op = unpack(board, 1 - turn);
  const super_t mine = super_wins(me), theirs = super_wins(op), over = mine | theirs;
  super_t win, notlose;
  for (side_t rest = empty_cells(board); rest; rest &= rest - 1) {
    const side_t cell = rest & -rest;
    const super_t placed = super_wins(me | cell);
    win |= placed;  // five on placement wins at once
    if (n == 35) {
      win |= rmax(placed & ~theirs);
      notlose |= rmax(placed | ~theirs);
    } else {
      const int index = __builtin_ctzll(cell);
      const superinfo_t child = children(place_stone(board, turn, index / 16, index % 16), n + 1);
      win |= rmax(~child.notlose);
      notlose |= rmax(~child.win);
    }
  }
  return {(win & ~over) | (mine & ~theirs), ((notlose | win) & ~over) | mine};
}

void checker::check_integrity(int n) {
  const std::string kind = "integrity " + std::to_string(n);
  const std::string path = dir + "/" + slice_file_name(n);
  const std::string child_path = dir + "/" + slice_file_name(n + 1);
  slice_database db(options.cache_bytes);
  std::shared_ptr<const supertensor_reader> reader;
  try {
    reader = std::make_shared<const supertensor_reader>(path);
    if (n < 35 && meaningless != n + 1) db.add_file(child_path);
    if (n < 35 && n + 1 == meaningless && fs::exists(child_path)) db.add_file(child_path);
  } catch (const std::exception& e) {
    report.fail(kind, kind + ": needs slice-" + std::to_string(n) + ".pentago and slice-" +
                          std::to_string(n + 1) + ".pentago: " + e.what());
    return;
  }
  const child_values children{&db, meaningless, &meaningless_leaf};
  const auto& sections = reader->sections();
  std::vector<std::pair<int, block_t>> blocks;
  for (int s = 0; s < int(sections.size()); s++)
    for (uint64_t b = 0; b < section_block_count(sections[s]); b++)
      blocks.push_back({s, block_from_index(sections[s], b)});
  const uint64_t threshold =
      options.fraction >= 1 ? UINT64_MAX : uint64_t(options.fraction * 0x1p64);
  std::atomic<uint64_t> checked{0}, good{0};
  parallel_for(threads, blocks.size(), [&](int, uint64_t i) {
    const auto& [s, block] = blocks[i];
    const section_t& section = sections[s];
    std::vector<superinfo_t> data;
    try {
      data = reader->read_block(s, block);
    } catch (const std::exception& e) {
      report.fail(kind, kind + ": " + block_text(section, block) + ": " + e.what());
      return;
    }
    const uint64_t block_id = block_index(section, block);
    for_each_node(section, block, [&](int k, const std::array<int, 4>& index) {
      if (threshold != UINT64_MAX &&
          mix64(options.seed ^ mix64(section.sig() ^ mix64(block_id << 12 | uint64_t(k)))) >=
              threshold)
        return;
      const board_t board = section_board(section, index);
      superinfo_t expected;
      try {
        expected = recurrence(board, n, children);
      } catch (const std::exception& e) {
        report.fail(kind, kind + ": board " + std::to_string(board) + ": " + e.what());
        checked++;
        return;
      }
      const superinfo_t stored = disk_to_store(data[size_t(k)], n & 1);
      checked++;
      if (stored == expected)
        good++;
      else
        report.fail(kind, kind + ": board " + std::to_string(board) + " (" + section.name() +
                              "): stored value differs from the best over its children at " +
                              first_difference(stored, expected));
    });
  });
  result.integrity_boards += checked;
  say("  integrity " + std::to_string(n) + " -> " +
      (n == 35 ? std::string("rules") : std::to_string(n + 1)) + ": " +
      std::to_string(good.load()) + " of " + std::to_string(checked.load()) +
      " boards equal the best over their children");
}

// The expected samples per section stated in the log ("samples 256", "--samples 256").
int samples_from_log(const std::string& path) {
  std::ifstream in(path);
  if (!in) return -1;
  static const std::regex pattern(R"((^|[^a-z_])samples(\s*(=|:)\s*|\s+)(\d+))");
  std::string line;
  for (int i = 0; i < 200 && std::getline(in, line); i++) {
    std::smatch m;
    if (std::regex_search(line, m, pattern)) return std::stoi(m[4].str());
  }
  return -1;
}

// What the log says the run wrote: counts and sparse files of every slice it computed (or
// synthesized), and the slice files it saved. Both drivers' logs are understood.
struct logged_files {
  std::set<int> computed, saved;
};
logged_files files_from_log(const std::string& path) {
  logged_files files;
  std::ifstream in(path);
  // "slice 34: 1 sections, ... nodes in" (a computed slice; plan lines are indented),
  // "meaningless slice 35 synthesized", "  wrote slice-34.pentago: 1.2 MiB",
  // "wrote DIR/slice-34.pentago in 1.0 s".
  static const std::regex computed(R"(^slice +(\d+): \d+ sections, .* nodes in .*)"),
      synthesized(R"(^meaningless slice (\d+) synthesized.*)"),
      saved(R"(^ *wrote (.*/)?slice-(\d+)\.pentago(:| in ).*)");
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (line.size() > 1000) continue;
    if (std::regex_match(line, m, computed) || std::regex_match(line, m, synthesized))
      files.computed.insert(std::stoi(m[1].str()));
    else if (std::regex_match(line, m, saved))
      files.saved.insert(std::stoi(m[2].str()));
  }
  return files;
}

}  // namespace

check_result check_run_directory(const std::string& dir, const check_options& options,
                                 const std::function<void(const std::string&)>& print) {
  if (options.fraction <= 0 || options.fraction > 1)
    throw usage_error("--fraction must be in (0, 1]");
  check_result result;
  reporter report(dir, options.max_reports, result);
  const int threads = options.threads > 0 ? options.threads
                                          : int(std::max(1u, std::thread::hardware_concurrency()));
  checker c{dir, options, report, result, print, threads};

  // Classify the directory's files.
  std::map<int, slice_files> slices;
  std::vector<std::string> other_pentago;
  std::vector<int> markers;
  bool have_log = false;
  {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
      report.fail("directory", !fs::exists(fs::symlink_status(dir, ec)) ? "no such directory"
                               : ec ? "cannot read: " + ec.message()
                                    : "not a directory");
      report.finish();
      return result;
    }
    static const std::regex pentago_name(R"(.*\.pentago)"),
        allowed(
            R"(log|log-\d+|run\.jsonl|history.*|output-.*|.*\.pbs|.*\.sh|slurm-.*\.out|.*\.o\d+|.*\.e\d+|\d+\.(cobaltlog|error|output)|(restart|checkpoint).*)");
    run_directory_listing listing;
    try {
      listing = scan_run_directory(dir);
    } catch (const error& e) {
      report.fail("directory", e.what());
    }
    slices = listing.slices;
    markers = listing.meaningless_markers;
    for (const auto& entry : listing.others) {
      const std::string name = entry.path().filename().string(), path = entry.path().string();
      if (name == "plots" && entry.is_directory(ec)) {
        // scripts/plot-run's pictures of the run; not part of the solver's output.
      } else if (!entry.is_regular_file(ec)) {
        report.fail("strange files", "unexpected non-file " + name);
      } else if (std::regex_match(name, pentago_name)) {
        other_pentago.push_back(path);
      } else if (std::regex_match(name, allowed)) {
        if (name == "log") have_log = true;
      } else {
        report.fail("strange files", "unexpected file " + name);
      }
    }
  }
  if (markers.size() > 1) report.fail("meaningless", "more than one meaningless-N marker");
  if (markers.size() == 1) {
    c.meaningless = markers[0];
    c.say("  meaningless mode: slice " + std::to_string(*c.meaningless) +
          " holds meaningless values");
  }
  if (options.samples >= 0) {
    c.expected_samples = options.samples;
    c.samples_from_run = true;
  } else if (have_log) {
    const int k = samples_from_log(dir + "/log");
    if (k >= 0) c.expected_samples = k, c.samples_from_run = true;
  }
  // Every file the log says was written must still be there.
  std::set<int> logged_counts;
  if (have_log) {
    const logged_files logged = files_from_log(dir + "/log");
    const auto missing = [&](int n, const std::string& name, const std::string& what) {
      report.fail("missing files",
                  slice_name(n) + ": " + name + " is missing, but the log says " + what);
    };
    for (const int n : logged.computed) {
      if (n > 36) continue;
      const auto it = slices.find(n);
      logged_counts.insert(n);
      const std::string what = "slice " + std::to_string(n) + " was computed";
      if (it == slices.end() || it->second.counts.empty())
        missing(n, "counts-" + std::to_string(n) + ".npy", what);
      if (it == slices.end() || it->second.sparse.empty())
        missing(n, "sparse-" + std::to_string(n) + ".npy", what);
    }
    for (const int n : logged.saved) {
      const auto it = slices.find(n);
      if (n <= 36 && (it == slices.end() || it->second.slice.empty()))
        missing(n, slice_file_name(n), "it was written");
    }
  }
  if (slices.empty() && !report.count("missing files"))
    report.fail("empty", "no counts, sparse or slice files");

  // Slice by slice, from the top (the order the solver writes them).
  std::map<int, std::vector<section_t>> section_lists;
  for (auto it = slices.rbegin(); it != slices.rend(); ++it) {
    const int n = it->first;
    const slice_files& paths = it->second;
    std::string summary = "  " + slice_name(n) + ":";
    if (n == 36 || (c.meaningless && n > *c.meaningless)) {
      report.fail("slices", slice_name(n) + ": no such slice in this run");
      continue;
    }
    npy_array counts;
    bool counts_ok = false;
    std::vector<section_t> sections;
    if (!paths.counts.empty()) {
      sections = c.check_counts(n, paths.counts, counts, counts_ok);
      if (counts_ok) {
        section_lists[n] = sections;
        summary += " " + plural(sections.size(), "section");
      }
    } else if (!logged_counts.count(n)) {  // else already reported missing
      report.note(slice_name(n) + ": no counts file");
    }
    bool sections_known = counts_ok;
    if (!counts_ok && !paths.slice.empty()) {
      try {
        sections = supertensor_reader(paths.slice).sections();
        sections_known = true;
      } catch (const std::exception&) {
      }
    }
    std::vector<sample_row> samples;
    if (!paths.sparse.empty()) {
      samples = c.check_sparse(n, paths.sparse, sections_known ? &sections : nullptr);
      summary += ", " + std::to_string(samples.size()) + " samples";
    } else if (!paths.counts.empty() && !logged_counts.count(n)) {
      report.note(slice_name(n) + ": no sparse file");
    }
    if (!paths.slice.empty()) {
      c.check_slice_file(n, paths, sections, counts_ok ? &counts : nullptr, samples, summary);
    } else if (!paths.index.empty()) {
      report.fail("slices", slice_name(n) + ": index sidecar without its slice file");
    }
    c.search_samples(n, samples, summary);
    c.say(summary);
  }

  // Section lists of consecutive slices: the children of one are exactly the next.
  for (const auto& [n, sections] : section_lists) {
    const auto next = section_lists.find(n + 1);
    if (next == section_lists.end()) continue;
    std::set<uint64_t> children;
    for (const auto& s : sections)
      for (int q = 0; q < 4; q++)
        if (!s.quadrant_full(q)) children.insert(s.child(q).standardize().sig());
    std::set<uint64_t> present;
    for (const auto& s : next->second) present.insert(s.sig());
    if (children != present)
      report.fail("structure", slice_name(n + 1) + ": its sections are not the children of " +
                                   slice_name(n) + "'s (" + std::to_string(children.size()) +
                                   " children, " + std::to_string(present.size()) + " sections)");
  }

  // Other .pentago files (empty.pentago, restart copies): headers and every block.
  for (const auto& path : other_pentago) {
    const std::string name = fs::path(path).filename().string();
    try {
      const supertensor_reader reader(path);
      uint64_t blocks = 0;
      for (int s = 0; s < int(reader.sections().size()); s++)
        for (uint64_t b = 0; b < section_block_count(reader.sections()[s]); b++, blocks++)
          reader.read_block(s, block_from_index(reader.sections()[s], b));
      c.say("  " + name + ": " + std::to_string(reader.sections().size()) + " sections, " +
            std::to_string(blocks) + " blocks read");
      result.blocks += blocks;
    } catch (const std::exception& e) {
      report.fail(name, name + ": " + e.what());
    }
  }

  for (const int n : options.integrity) c.check_integrity(n);
  report.finish();
  return result;
}

std::string check_usage() {
  return "usage: pentago-check [options] DIR...\n"
         "Verifies run directories of pentago-endgame: every block of every slice-N.pentago\n"
         "(headers, xz checksums), counts-N.npy against counts recomputed from the slice files,\n"
         "sparse-N.npy samples against the slice files and against forward search, that the\n"
         "sections of consecutive slices are parents and children, and that no unexpected file\n"
         "is present. Prints a summary and 'All checks passed', or one line per failure on\n"
         "stderr and exits 1.\n"
         "  --search-min N   forward-search the samples of slices with >= N stones (default 30);\n"
         "                   in meaningless mode, slices within 36-N of the meaningless slice\n"
         "  --search-max K   search at most K random samples per slice (default: all)\n"
         "  --integrity N    check that every board of slice-N.pentago has the best value over\n"
         "                   its children in slice-(N+1).pentago (N = 35: by the rules); may be\n"
         "                   repeated\n"
         "  --fraction F     check only a random fraction F of slice N's boards (default 1)\n"
         "  --seed S         seed of the random choices (default 8183131)\n"
         "  --samples K      expected samples per section (default: the log's, else 256)\n"
         "  --threads T      threads (default: all hardware threads)\n"
         "  --cache SIZE     decoded block cache of --integrity (default 1G)\n"
         "  --max-reports K  failures of one kind listed before a summary line (default 10)\n"
         "  --help           this text\n";
}

check_command parse_check_command(int argc, char** argv) {
  check_command c;
  for (int i = 1; i < argc; i++) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw usage_error(arg + " needs a value");
      return argv[++i];
    };
    auto& o = c.options;
    if (arg == "--search-min") {
      o.search_min = int(parse_int_option(arg, value(), 0, 37));
    } else if (arg == "--search-max") {
      o.search_max = parse_int_option(arg, value(), 0, INT64_MAX);
    } else if (arg == "--integrity") {
      o.integrity.push_back(int(parse_int_option(arg, value(), 0, 35)));
    } else if (arg == "--fraction") {
      const std::string v = value();
      char* end = nullptr;
      o.fraction = std::strtod(v.c_str(), &end);
      if (v.empty() || *end || !(o.fraction > 0 && o.fraction <= 1))
        throw usage_error("--fraction must be a number in (0, 1], got '" + v + "'");
    } else if (arg == "--seed") {
      o.seed = uint64_t(parse_int_option(arg, value(), 0, INT64_MAX));
    } else if (arg == "--samples") {
      o.samples = int(parse_int_option(arg, value(), 0, 1 << 24));
    } else if (arg == "--threads") {
      o.threads = int(parse_int_option(arg, value(), 1, 1024));
    } else if (arg == "--cache") {
      o.cache_bytes = parse_memory_option(arg, value());
    } else if (arg == "--max-reports") {
      o.max_reports = int(parse_int_option(arg, value(), 1, 1 << 20));
    } else if (arg.size() > 1 && arg[0] == '-') {
      throw usage_error("unknown option " + arg);
    } else {
      c.dirs.push_back(arg);
    }
  }
  if (c.dirs.empty()) throw usage_error("missing DIR");
  if (c.options.fraction < 1 && c.options.integrity.empty())
    throw usage_error("--fraction needs --integrity");
  return c;
}

}  // namespace pentago
