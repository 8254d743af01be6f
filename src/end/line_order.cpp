// Completion order of a slice's lines, and the incomplete-block peak it leads to.
#include "pentago/end/line_order.h"

#include <algorithm>
#include <tuple>

namespace pentago {
namespace {

auto completion_key(const line_t& line, const slice_lines& order) {
  const int cube = std::max({line.base[0], line.base[1], line.base[2]});
  return std::make_tuple(order.section_index(line.section), cube, line.dimension, line.base);
}

}  // namespace

void sort_lines_for_completion(std::vector<line_t>& lines, const slice_lines& order) {
  std::vector<std::pair<decltype(completion_key(line_t{}, order)), size_t>> keyed;
  keyed.reserve(lines.size());
  for (size_t i = 0; i < lines.size(); i++) keyed.push_back({completion_key(lines[i], order), i});
  std::sort(keyed.begin(), keyed.end());
  std::vector<line_t> sorted;
  sorted.reserve(lines.size());
  for (const auto& k : keyed) sorted.push_back(lines[k.second]);
  lines.swap(sorted);
}

std::vector<line_t> lines_in_completion_order(const slice_lines& order) {
  std::vector<line_t> lines;
  lines.reserve(order.total_lines());
  for (uint64_t i = 0; i < order.total_lines(); i++) lines.push_back(order.line(i));
  sort_lines_for_completion(lines, order);
  return lines;
}

uint64_t incomplete_peak_nodes(const slice_lines& order) {
  // Sections run one after another, so each is simulated on its own.
  uint64_t peak = 0;
  const auto sections = order.sections();
  for (const auto& s : sections) {
    const slice_lines one(std::span<const section_t>(&s, 1));
    const auto lines = lines_in_completion_order(one);
    int open = 0;
    for (int d = 0; d < 4; d++) open += !s.quadrant_full(d);
    std::vector<uint8_t> seen(section_block_count(s), 0);
    uint64_t held = 0;
    for (const auto& line : lines)
      for (int k = 0; k < line.length(); k++) {
        const block_t b = line.block(k);
        const uint64_t index = block_index(s, b);
        const uint64_t nodes = uint64_t(block_nodes(s, b));
        if (++seen[index] == 1 && open > 1) held += nodes;
        if (seen[index] == open && open > 1) held -= nodes;
        peak = std::max(peak, held);
      }
  }
  return peak;
}

}  // namespace pentago
