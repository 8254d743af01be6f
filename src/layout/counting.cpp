// Board counts up to symmetry by Burnside's lemma, and per-slice layout sizes of sections.
#include "pentago/layout/counting.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "pentago/layout/blocks.h"
#include "pentago/util/combinatorics.h"
#include "pentago/util/error.h"

namespace pentago {
namespace {

using uint128_t = unsigned __int128;

// Cycle lengths of a cell permutation, sorted.
std::vector<int> cycle_type(const cell_permutation_t& perm) {
  std::vector<int> lengths;
  std::array<bool, board_cells> seen{};
  for (int c = 0; c < board_cells; c++) {
    if (seen[c]) continue;
    int length = 0;
    for (int d = c; !seen[d]; d = perm[d]) seen[d] = true, length++;
    lengths.push_back(length);
  }
  std::sort(lengths.begin(), lengths.end());
  return lengths;
}

// Colourings with `black` and `white` stones fixed by any permutation of the given cycle type:
// the coefficient of x^black y^white in prod over cycles (1 + x^len + y^len).
uint64_t fixed_by_cycles(const std::vector<int>& cycles, int black, int white) {
  if (black < 0 || white < 0) return 0;
  const int stride = white + 1;
  std::vector<uint64_t> ways((black + 1) * stride, 0), next;
  ways[0] = 1;
  for (const int len : cycles) {
    next = ways;  // the cycle stays empty
    for (int b = 0; b <= black; b++)
      for (int w = 0; w <= white; w++) {
        const uint64_t x = ways[b * stride + w];
        if (!x) continue;
        if (b + len <= black) next[(b + len) * stride + w] += x;
        if (w + len <= white) next[b * stride + w + len] += x;
      }
    ways.swap(next);
  }
  return ways[black * stride + white];
}

// Burnside counts of all slices for one group, computed once per distinct cycle type.
std::array<uint64_t, board_cells + 1> burnside_table(int symmetries) {
  std::map<std::vector<int>, int> types;  // cycle type -> group elements with it
  for (int k = 0; k < symmetries; k++) {
    // Group of 8: the global elements with no local turn; group of 2048: every element.
    const symmetry_t s = symmetries == 8 ? symmetry_t(k, 0) : symmetry_t::from_index(k);
    types[cycle_type(cell_permutation(s))]++;
  }
  std::array<uint64_t, board_cells + 1> table{};
  for (int n = 0; n <= board_cells; n++) {
    uint128_t sum = 0;
    for (const auto& [cycles, elements] : types)
      sum += uint128_t(fixed_by_cycles(cycles, (n + 1) / 2, n / 2)) * uint128_t(elements);
    PENTAGO_CHECK(sum % uint128_t(symmetries) == 0, "Burnside sum not divisible by group order");
    table[n] = uint64_t(sum / uint128_t(symmetries));
  }
  return table;
}

}  // namespace

cell_permutation_t cell_permutation(symmetry_t s) {
  cell_permutation_t perm;
  for (int c = 0; c < board_cells; c++) {
    const side_t moved = transform_side(s, side_t(1) << bit_of_cell(c));
    PENTAGO_CHECK(popcount(moved) == 1, "symmetry must move one cell to one cell");
    perm[c] = uint8_t(cell_of_bit(__builtin_ctzll(moved)));
  }
  return perm;
}

uint64_t fixed_boards(const cell_permutation_t& perm, int black, int white) {
  return fixed_by_cycles(cycle_type(perm), black, white);
}

uint64_t count_boards(int n, int symmetries) {
  if (n < 0 || n > board_cells)
    throw usage_error_t("count_boards: slice " + std::to_string(n) + " is not in 0..36");
  switch (symmetries) {
    case 1:
      return all_boards(n);
    case 8: {
      static const auto table = burnside_table(8);
      return table[n];
    }
    case 2048: {
      static const auto table = burnside_table(2048);
      return table[n];
    }
    default:
      throw usage_error_t("count_boards: group size " + std::to_string(symmetries) +
                          " is not 1, 8 or 2048");
  }
}

uint64_t all_boards(int n) {
  if (n < 0 || n > board_cells)
    throw usage_error_t("all_boards: slice " + std::to_string(n) + " is not in 0..36");
  return binomial(board_cells, n) * binomial(n, n / 2);
}

int section_multiplicity(const section_t& s) {
  std::set<uint64_t> sigs;
  for (int g = 0; g < 8; g++) sigs.insert(s.transform(g).sig());
  return int(sigs.size());
}

slice_sizes_t& slice_sizes_t::operator+=(const slice_sizes_t& o) {
  sections += o.sections;
  nodes += o.nodes;
  blocks += o.blocks;
  lines += o.lines;
  lines_computed += o.lines_computed;
  return *this;
}

slice_sizes_t slice_sizes(int slice, const std::vector<section_t>& sections) {
  slice_sizes_t sizes;
  sizes.slice = slice;
  sizes.sections = sections.size();
  for (const section_t& s : sections) {
    PENTAGO_CHECK(s.sum() == slice,
                  "section " + s.name() + " is not in slice " + std::to_string(slice));
    const auto blocks = section_blocks(s);
    const uint64_t count = section_block_count(s);
    sizes.nodes += s.size();
    sizes.blocks += count;
    for (int d = 0; d < 4; d++) {
      const uint64_t lines = count / uint64_t(blocks[d]);  // one line per base of the others
      sizes.lines += lines;
      if (!s.quadrant_full(d)) sizes.lines_computed += lines;
    }
  }
  return sizes;
}

std::vector<slice_sizes_t> descendant_sizes(const section_t& root) {
  auto slices = descendant_sections(root, 35);
  if (root.sum() <= 35) {
    // Slice 36 is not expanded by descendant_sections: standardize the children of slice 35.
    std::set<section_t> last;
    for (const section_t& s : slices[35])
      for (int q = 0; q < 4; q++)
        if (!s.quadrant_full(q)) last.insert(s.child(q).standardize());
    slices[36].assign(last.begin(), last.end());
  }
  std::vector<slice_sizes_t> result;
  for (int n = root.sum(); n <= board_cells; n++) result.push_back(slice_sizes(n, slices[n]));
  return result;
}

double overcount_t::rotation() const { return 256.0 * double(boards2048) / double(boards8); }
double overcount_t::sections() const { return double(nodes) / double(boards2048); }
double overcount_t::total() const { return rotation() * sections(); }

overcount_t overcount() {
  overcount_t o;
  for (int n = 0; n <= board_cells; n++) {
    o.boards8 += count_boards(n, 8);
    o.boards2048 += count_boards(n, 2048);
  }
  for (const auto& sizes : descendant_sizes(section_t())) o.nodes += sizes.nodes;
  return o;
}

double branching_factor() {
  uint128_t moves = 0, positions = 0;
  for (int n = 0; n <= board_cells; n++) {
    moves += uint128_t(board_cells - n) * count_boards(n, 8);
    positions += count_boards(n, 8);
  }
  return double(moves) / double(positions);
}

}  // namespace pentago
