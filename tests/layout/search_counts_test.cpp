// Published counts as ground truth for the super search: every board of several sections of
// slices 33, 34 and 35 is solved, and the section's black-win / white-win / total counts
// (stabilizer counting, docs/formats.md, "Counting") must equal the published counts-N.npy row
// exactly.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "pentago/layout/quadrant_states.h"
#include "pentago/layout/section.h"
#include "pentago/search/super_search.h"
#include "pentago/util/error.h"

using namespace pentago;

namespace {

struct counts_row_t {
  uint64_t sig = 0, black = 0, white = 0, total = 0;
  bool operator==(const counts_row_t&) const = default;
};

std::ostream& operator<<(std::ostream& out, const counts_row_t& r) {
  return out << "[sig " << std::hex << r.sig << std::dec << ", black " << r.black << ", white "
             << r.white << ", total " << r.total << "]";
}

// A tiny reader for counts-N.npy: numpy v1 header, then rows of 4 little-endian uint64.
std::vector<counts_row_t> published_counts(int n) {
  const std::string path =
      std::string(PENTAGO_SHARED_DATA) + "/counts-" + std::to_string(n) + ".npy";
  std::ifstream in(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), {});
  if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0)
    throw pentago_error_t("not a numpy file: " + path);
  const size_t header = 10 + (uint8_t(bytes[8]) | uint8_t(bytes[9]) << 8);
  const std::string text(bytes.begin() + 10, bytes.begin() + header);
  if (text.find("'<u8'") == std::string::npos || text.find(",4)") == std::string::npos)
    throw pentago_error_t("unexpected numpy header in " + path + ": " + text);
  if ((bytes.size() - header) % 32) throw pentago_error_t("truncated " + path);
  std::vector<counts_row_t> rows((bytes.size() - header) / 32);
  std::memcpy(rows.data(), bytes.data() + header, rows.size() * 32);
  return rows;
}

// Solves every board of a section (the 4-D array of rotation-minimal quadrant states) and
// counts each distinct board once: popcounts shifted by the quadrants' symmetry exponents.
counts_row_t count_section(super_searcher_t& engine, const section_t& section) {
  std::array<std::span<const quadrant_t>, 4> buckets;
  for (int q = 0; q < 4; q++) buckets[q] = rmin_bucket(section.counts[q][0], section.counts[q][1]);
  const int turn = section.turn();
  counts_row_t row;
  row.sig = section.sig();
  for (const quadrant_t q0 : buckets[0])
    for (const quadrant_t q1 : buckets[1])
      for (const quadrant_t q2 : buckets[2])
        for (const quadrant_t q3 : buckets[3]) {
          const board_t board = quadrants(q0, q1, q2, q3);
          const int shift = quadrant_symmetry_exponent(q0) + quadrant_symmetry_exponent(q1) +
                            quadrant_symmetry_exponent(q2) + quadrant_symmetry_exponent(q3);
          const superinfo_t files = to_black_white(engine.solve(board), turn);
          row.black += uint64_t(popcount(files.win)) >> shift;
          row.white += uint64_t(popcount(files.notlose)) >> shift;
          row.total += uint64_t(256) >> shift;
        }
  return row;
}

// Rows to check: the smallest sections, plus sections spread over the sig order with at most
// `spread_size` boards each.
std::vector<counts_row_t> chosen_rows(const std::vector<counts_row_t>& rows, int smallest,
                                      int spread, uint64_t spread_size) {
  std::vector<size_t> order(rows.size());
  for (size_t i = 0; i < rows.size(); i++) order[i] = i;
  const auto size = [&](size_t i) { return section_t::from_sig(rows[i].sig).size(); };
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return size(a) < size(b); });
  std::vector<size_t> picked(order.begin(), order.begin() + smallest);
  std::vector<size_t> moderate;
  for (size_t i = 0; i < rows.size(); i++)
    if (size(i) <= spread_size && std::find(picked.begin(), picked.end(), i) == picked.end())
      moderate.push_back(i);
  for (int k = 0; k < spread && !moderate.empty(); k++)
    picked.push_back(moderate[moderate.size() * k / spread]);
  std::vector<counts_row_t> result;
  for (const size_t i : picked) result.push_back(rows[i]);
  return result;
}

void check_slice(int n, int smallest, int spread, uint64_t spread_size) {
  const auto rows = published_counts(n);
  ASSERT_FALSE(rows.empty());
  super_search_options_t options;
  options.table_bits = 10;
  super_searcher_t engine(options);
  uint64_t boards = 0;
  for (const counts_row_t& expected : chosen_rows(rows, smallest, spread, spread_size)) {
    const section_t section = section_t::from_sig(expected.sig);
    ASSERT_EQ(section.sum(), n);
    boards += section.size();
    EXPECT_EQ(count_section(engine, section), expected) << "section " << section.name();
  }
  std::printf("slice %d: %llu boards solved\n", n, (unsigned long long)boards);
  EXPECT_GT(boards, 10000u);
}

}  // namespace

TEST(search_counts, slice_35_sections) { check_slice(35, 10, 30, 1000000); }

TEST(search_counts, slice_34_sections) { check_slice(34, 10, 30, 1000000); }

// Three empty cells: positions go through the transposition table.
TEST(search_counts, slice_33_sections) { check_slice(33, 6, 10, 100000); }

// A wrong value must show up in the counts: the same section with some boards' values
// tampered with no longer matches (the check is sensitive, not vacuous).
TEST(search_counts, counting_is_sensitive) {
  const auto rows = published_counts(35);
  // The first section with a few thousand boards and both colours winning somewhere.
  const auto row = std::find_if(rows.begin(), rows.end(), [](const counts_row_t& r) {
    const uint64_t size = section_t::from_sig(r.sig).size();
    return size >= 1000 && size <= 40000 && r.black && r.white;
  });
  ASSERT_NE(row, rows.end());
  const counts_row_t expected = *row;
  super_search_options_t options;
  options.leaf_stones = 35;
  options.leaf = [](board_t b) {
    superinfo_t v = super_solve(b);
    if (b % 5 == 0) v.win = v.notlose = super_t::ones();
    return v;
  };
  super_searcher_t tampered(options);
  const section_t section = section_t::from_sig(expected.sig);
  EXPECT_GT(section.size(), 1000u);
  const counts_row_t wrong = count_section(tampered, section);
  EXPECT_NE(wrong, expected);
  EXPECT_EQ(wrong.total, expected.total);
}
