// pentago-check's sample checks: the rows of sparse-N.npy (valid boards of N stones, stored
// as is, in the slice's sections, the same number per section) and their values against
// forward search or, in meaningless mode, the meaningless values.
#include <algorithm>
#include <atomic>
#include <exception>
#include <filesystem>
#include <memory>

#include "pentago/db/check_context.h"
#include "pentago/util/error.h"
#include "pentago/util/parallel_for.h"
#include "pentago/util/random.h"

namespace pentago::check_detail {
namespace {
namespace fs = std::filesystem;
}  // namespace

super_search_options_t checker_t::search_options() const {
  super_search_options_t o;
  o.table_bits = 18;
  if (meaningless) {
    o.leaf_stones = *meaningless;
    o.leaf = meaningless_leaf;
  }
  return o;
}

std::vector<sample_row_t> checker_t::check_sparse(int n, const std::string& path,
                                                  const std::vector<section_t>* known_sections) {
  const std::string where = slice_name(n) + ": " + fs::path(path).filename().string();
  static const std::vector<section_t> none;
  const std::vector<section_t>& sections = known_sections ? *known_sections : none;
  npy_array_t sparse;
  if (!read_table(where, path, 9, sparse)) return {};
  bool ok = true;
  std::vector<sample_row_t> samples;
  samples.reserve(sparse.rows);
  std::vector<uint64_t> per_section(sections.size(), 0);
  for (uint64_t r = 0; r < sparse.rows; r++) {
    sample_row_t row;
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

void checker_t::search_samples(int n, const std::vector<sample_row_t>& samples,
                               std::string& summary) {
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
  std::vector<std::unique_ptr<super_searcher_t>> searchers(static_cast<size_t>(threads));
  std::atomic<uint64_t> good{0};
  parallel_for(threads, order.size(), [&](int worker, uint64_t i) {
    auto& searcher = searchers[size_t(worker)];
    if (!searcher) searcher = std::make_unique<super_searcher_t>(search_options());
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

}  // namespace pentago::check_detail
