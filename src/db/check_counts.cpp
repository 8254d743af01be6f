// pentago-check's counts checks: the rows of counts-N.npy (valid standardized sections of N
// stones in order, totals, wins), the same rows against the published counts of a data
// directory (--data), and the parent/child structure of consecutive slices' sections.
#include <algorithm>
#include <exception>
#include <filesystem>
#include <set>

#include "pentago/db/check_context.h"
#include "pentago/util/combinatorics.h"

namespace pentago::check_detail {
namespace {

namespace fs = std::filesystem;

// Boards with exactly the section's per-quadrant counts (the counts "total" column).
uint64_t section_boards(const section_t& s) {
  uint64_t total = 1;
  for (int q = 0; q < 4; q++)
    total *= binomial(9, s.counts[q][0]) * binomial(9 - s.counts[q][0], s.counts[q][1]);
  return total;
}

}  // namespace

std::vector<section_t> checker_t::check_counts(int n, const std::string& path, npy_array_t& counts,
                                               bool& ok) {
  const std::string where = slice_name(n) + ": " + fs::path(path).filename().string();
  ok = false;
  if (!read_table(where, path, 4, counts)) return {};
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

void checker_t::compare_with_published(int n, const npy_array_t& counts) {
  if (options.data.empty() || (meaningless && n <= *meaningless)) return;
  const std::string name = "counts-" + std::to_string(n) + ".npy";
  const std::string kind = slice_name(n) + ": published counts";
  const fs::path path = fs::path(options.data) / name;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    report.note(slice_name(n) + ": no published " + path.string() + " to compare with");
    return;
  }
  npy_array_t published;
  try {
    published = read_npy(path.string());
  } catch (const std::exception& e) {
    report.fail(kind, kind + ": " + e.what());
    return;
  }
  if (published.cols != 4) {
    report.fail(kind, kind + ": " + path.string() + " has " + std::to_string(published.cols) +
                          " columns, expected 4");
    return;
  }
  std::map<uint64_t, uint64_t> row_of;  // section id -> published row
  for (uint64_t r = 0; r < published.rows; r++) row_of[published(r, 0)] = r;
  uint64_t equal = 0;
  for (uint64_t r = 0; r < counts.rows; r++) {
    const uint64_t sig = counts(r, 0);
    const auto it = row_of.find(sig);
    if (it == row_of.end()) {
      report.fail(kind, kind + ": " + name + " row " + std::to_string(r) + " (section id " +
                            std::to_string(sig) + ") is not among the published sections");
      continue;
    }
    const uint64_t p = it->second;
    if (counts(r, 1) == published(p, 1) && counts(r, 2) == published(p, 2) &&
        counts(r, 3) == published(p, 3)) {
      equal++;
      continue;
    }
    report.fail(kind, kind + ": " + name + " row " + std::to_string(r) + " (section " +
                          section_t::from_sig(sig).name() + ") is (" +
                          std::to_string(counts(r, 1)) + ", " + std::to_string(counts(r, 2)) +
                          ", " + std::to_string(counts(r, 3)) + ") but the published row is (" +
                          std::to_string(published(p, 1)) + ", " + std::to_string(published(p, 2)) +
                          ", " + std::to_string(published(p, 3)) + ")");
  }
  result.published_rows += equal;
}

void checker_t::check_structure(const std::map<int, std::vector<section_t>>& section_lists) {
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
}

}  // namespace pentago::check_detail
