// Completion order of a slice's lines, and the incomplete-block peak it leads to.
#include "pentago/end/line_order.h"

#include <algorithm>
#include <array>
#include <mutex>
#include <queue>
#include <tuple>
#include <unordered_map>

#include "pentago/layout/line_mapping.h"
#include "pentago/util/error.h"

namespace pentago {
namespace {

// The geometry of each section, computed once for the simulations' millions of blocks.
std::vector<section_geometry_t> geometries(std::span<const section_t> sections) {
  std::vector<section_geometry_t> g;
  g.reserve(sections.size());
  for (const auto& s : sections) g.emplace_back(s);
  return g;
}

// The section that the lines of section s along quadrant d read (the sheaf's child).
section_t sheaf_child(const section_t& s, int d) {
  line_t line;
  line.section = s;
  line.dimension = d;
  return line_dependency_of(line).child;
}

// Each section's place in a walk of the sections (the walk's inverse).
std::vector<int> places_in(const std::vector<int>& walk) {
  std::vector<int> place(walk.size());
  for (size_t i = 0; i < walk.size(); i++) place[walk[i]] = int(i);
  return place;
}

}  // namespace

std::vector<int> section_completion_order(const slice_lines_t& order) {
  const auto sections = order.sections();
  const int count = int(sections.size());
  // The distinct children of each section (the sections of the slice above its lines read),
  // and the sections that read each child.
  std::vector<std::vector<uint64_t>> children(count);
  std::unordered_map<uint64_t, std::vector<int>> readers;
  for (int si = 0; si < count; si++)
    for (int d = 0; d < 4; d++) {
      if (sections[si].quadrant_full(d)) continue;
      const uint64_t child = sheaf_child(sections[si], d).sig();
      auto& mine = children[si];
      if (std::find(mine.begin(), mine.end(), child) != mine.end()) continue;
      mine.push_back(child);
      readers[child].push_back(si);
    }
  // A greedy walk: next comes the section that shares children with the latest section that
  // shares any with one still to come, the most of them (then the lowest index); with none
  // left, the lowest index not yet taken. Candidates wait in a heap of (step, shared, -index),
  // where stale entries (taken, or updated at a later step) are skipped.
  std::vector<int> walk;
  walk.reserve(size_t(count));
  std::vector<char> taken(size_t(count), 0);
  std::vector<int> step_of(size_t(count), -1), shared(size_t(count), 0);
  std::priority_queue<std::tuple<int, int, int>> candidates;
  int lowest = 0;
  for (int step = 0; step < count; step++) {
    int si = -1;
    while (!candidates.empty()) {
      const auto [at, with, negative] = candidates.top();
      candidates.pop();
      if (!taken[-negative] && step_of[-negative] == at && shared[-negative] == with) {
        si = -negative;
        break;
      }
    }
    if (si < 0) {
      while (taken[lowest]) lowest++;
      si = lowest;
    }
    taken[si] = 1;
    walk.push_back(si);
    for (const uint64_t child : children[si])
      for (const int p : readers[child]) {
        if (taken[p]) continue;
        if (step_of[p] != step) step_of[p] = step, shared[p] = 0;
        candidates.push({step, ++shared[p], -p});
      }
  }
  return walk;
}

std::vector<int> section_completion_ranks(const slice_lines_t& order) {
  return places_in(section_completion_order(order));
}

uint64_t completion_time(int section_rank, const std::array<int, 4>& blocks, uint8_t open,
                         int dimension, const std::array<uint8_t, 3>& base) {
  PENTAGO_CHECK(section_rank >= 0 && section_rank < (1 << 22),
                "completion_time: section rank out of range");
  PENTAGO_CHECK(open >> dimension & 1, "completion_time: line along a full quadrant");
  // Lines along open quadrants never cross a full quadrant's axis, so each slab (the blocks
  // with the same coordinates along the full quadrants) completes on its own: slabs run one
  // after another. Within a slab a box grows in proportion to the open axes: a line's place
  // is the largest of its base coordinates along open axes, each as the fraction of its axis
  // below it (in 1/4096ths; an axis of one block never holds the box back). Mixed radix, most
  // significant first: slab, box, dimension, the open base coordinates (in a radix of every
  // open axis). Sections have at most 53 blocks per axis and 7,890,481 blocks, so this stays
  // below 2^23 * 2^14 = 2^37, under the section rank's 22 bits.
  uint64_t slab = 0, box = 0, offset = 0, open_span = 1;
  for (int a = 0, j = 0; a < 4; a++) {
    const uint64_t n = uint64_t(blocks[a]);
    if (a == dimension) {
      open_span *= n;
      continue;
    }
    const uint64_t b = base[j++];
    PENTAGO_CHECK(b < n, "completion_time: base outside the section");
    if (open >> a & 1) {
      box = std::max(box, b * 4096 / n);
      offset = offset * n + b;
      open_span *= n;
    } else {
      slab = slab * n + b;
    }
  }
  const uint64_t within = ((slab * 4096 + box) * 4 + uint64_t(dimension)) * open_span + offset;
  PENTAGO_CHECK(within < uint64_t(1) << 42, "completion_time: section too large");
  return uint64_t(section_rank) << 42 | within;
}

void sort_lines_for_completion(std::vector<line_t>& lines, const slice_lines_t& order) {
  const auto geometry = geometries(order.sections());
  const auto rank = section_completion_ranks(order);
  std::vector<std::pair<uint64_t, size_t>> keyed;
  keyed.reserve(lines.size());
  for (size_t i = 0; i < lines.size(); i++) {
    const int si = order.section_index(lines[i].section);
    PENTAGO_CHECK(si >= 0, "sort_lines_for_completion: line of a section not in the slice");
    keyed.push_back(
        {completion_time(rank[si], geometry[si].blocks, order.sections()[si].open_quadrants(),
                         lines[i].dimension, lines[i].base),
         i});
  }
  std::sort(keyed.begin(), keyed.end());
  std::vector<line_t> sorted;
  sorted.reserve(lines.size());
  for (const auto& k : keyed) sorted.push_back(lines[k.second]);
  lines.swap(sorted);
}

std::vector<line_t> lines_in_completion_order(const slice_lines_t& order) {
  std::vector<line_t> lines;
  lines.reserve(order.total_lines());
  for (uint64_t i = 0; i < order.total_lines(); i++) lines.push_back(order.line(i));
  sort_lines_for_completion(lines, order);
  return lines;
}

uint64_t incomplete_peak_nodes(const section_t& s, std::span<const line_t> ordered) {
  const int open = s.open_quadrant_count();
  if (open < 2) return 0;  // each block is complete with its one line
  std::vector<uint8_t> seen(section_block_count(s), 0);
  const section_geometry_t geometry(s);
  // Per axis: the nodes along it of each block coordinate, and its step in block_index.
  std::array<std::vector<uint64_t>, 4> extent;
  std::array<uint64_t, 4> stride{};
  for (int a = 0; a < 4; a++) {
    block_t b{};
    b[a] = 1;
    stride[a] = geometry.block_index(b);
    for (int k = 0; k < geometry.blocks[a]; k++) {
      b[a] = uint8_t(k);
      extent[a].push_back(uint64_t(geometry.block_shape(b)[a]));
    }
  }
  uint64_t held = 0, peak = 0;
  for (const auto& line : ordered) {
    PENTAGO_CHECK(line.section == s, "incomplete_peak_nodes: line of another section");
    const int d = line.dimension;
    // The line's blocks differ only along d: their index steps by d's stride, their nodes are
    // the cross-section of the other axes times d's extent.
    const block_t first = line.block(0);
    uint64_t index = geometry.block_index(first), cross = 1;
    for (int a = 0; a < 4; a++)
      if (a != d) cross *= extent[a][first[a]];
    for (int k = 0; k < geometry.blocks[d]; k++, index += stride[d]) {
      uint8_t& count = seen[index];
      const uint64_t nodes = cross * extent[d][k];
      if (++count == 1) held += nodes;
      if (count == open) held -= nodes;
      peak = std::max(peak, held);
    }
  }
  return peak;
}

uint64_t incomplete_peak_bound(const section_t& s) {
  if (s.open_quadrant_count() < 2) return 0;
  const section_geometry_t geometry(s);
  const std::array<int, 4> largest_block = geometry.block_shape({});
  uint64_t nodes = 1;
  for (int a = 0; a < 4; a++)
    nodes *= uint64_t(s.quadrant_full(a) ? largest_block[a] : geometry.shape[a]);
  return nodes;
}

namespace {

// Each section's peak, once per process: plans ask for the same slices again and again (every
// codec tried, every pass, every stage of a chain).
uint64_t section_incomplete_peak(const section_t& s) {
  static std::mutex mutex;
  static std::unordered_map<uint64_t, uint64_t> known;
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (const auto it = known.find(s.sig()); it != known.end()) return it->second;
  }
  const slice_lines_t one(std::span<const section_t>(&s, 1));
  const uint64_t peak = incomplete_peak_nodes(s, lines_in_completion_order(one));
  const std::lock_guard<std::mutex> lock(mutex);
  known.emplace(s.sig(), peak);
  return peak;
}

}  // namespace

uint64_t incomplete_peak_nodes(const slice_lines_t& order) {
  // Sections run one after another in completion order, so each is simulated on its own, the
  // largest bound first: a section whose bound is at most the peak so far cannot raise it.
  std::vector<std::pair<uint64_t, section_t>> bounded;
  for (const auto& s : order.sections()) bounded.push_back({incomplete_peak_bound(s), s});
  std::sort(bounded.begin(), bounded.end(),
            [](const auto& x, const auto& y) { return x.first > y.first; });
  uint64_t peak = 0;
  for (const auto& [bound, s] : bounded) {
    if (bound <= peak) break;
    peak = std::max(peak, section_incomplete_peak(s));
  }
  return peak;
}

namespace {

// For each (section, open dimension) of the slice in order: the index of its child in `above`.
std::vector<std::pair<int, int>> child_of_sheaves(const slice_lines_t& order,
                                                  const slice_lines_t& above) {
  std::vector<std::pair<int, int>> result;  // (section index, child index)
  for (int si = 0; si < int(order.sections().size()); si++) {
    const section_t& s = order.sections()[si];
    for (int d = 0; d < 4; d++) {
      if (s.quadrant_full(d)) continue;
      const int child = above.section_index(sheaf_child(s, d));
      PENTAGO_CHECK(child >= 0, "input_readers: child section missing from the slice above");
      result.push_back({si, child});
    }
  }
  return result;
}

}  // namespace

std::vector<int> input_readers(const slice_lines_t& order, const slice_lines_t& above) {
  std::vector<int> readers(above.sections().size(), 0);
  for (const auto& [si, child] : child_of_sheaves(order, above)) readers[child]++;
  return readers;
}

namespace {

// Flat block ids of a slice: section offsets, then the block's row-major index.
std::vector<uint64_t> block_offsets(std::span<const section_t> sections) {
  std::vector<uint64_t> offsets(sections.size() + 1, 0);
  for (size_t i = 0; i < sections.size(); i++)
    offsets[i + 1] = offsets[i] + section_block_count(sections[i]);
  return offsets;
}

// The paired peak line by line: every line of the slice in completion order, one at a time.
double paired_peak_by_lines(const slice_lines_t& order, const slice_lines_t& above,
                            double input_bytes, double output_bytes, bool dropped,
                            double pooled_nodes) {
  const auto out_offsets = block_offsets(order.sections());
  const auto in_offsets = block_offsets(above.sections());
  const auto out_geometry = geometries(order.sections());
  const auto in_geometry = geometries(above.sections());
  const auto readers = input_readers(order, above);
  std::vector<int> reads_left(in_offsets.back());
  double held_in = 0;
  for (size_t c = 0; c < above.sections().size(); c++) {
    for (uint64_t b = in_offsets[c]; b < in_offsets[c + 1]; b++) reads_left[b] = readers[c];
    held_in += input_bytes * double(above.sections()[c].size());
  }
  std::vector<uint8_t> contributions(out_offsets.back(), 0);
  // Outputs held: in the store, or (a dropped slice) incomplete nodes beyond the pooled ones.
  double held_out = 0, peak = held_in;
  auto stored = [&] {
    return dropped ? output_bytes * std::max(0.0, held_out - pooled_nodes)
                   : output_bytes * held_out;
  };
  for (const auto& line : lines_in_completion_order(order)) {
    const int si = order.section_index(line.section);
    const int open = line.section.open_quadrant_count();
    const line_dependency_t dep = line_dependency_of(line);
    const int ci = above.section_index(dep.child);
    const section_geometry_t& out = out_geometry[si];
    const section_geometry_t& in = in_geometry[ci];
    const int length = out.blocks[line.dimension];
    // While the line runs it holds its inputs and its outputs.
    for (int k = 0; k < length; k++) {
      const block_t b = line.block(k);
      if (++contributions[out_offsets[si] + out.block_index(b)] == 1)
        held_out += out.block_nodes(b);
    }
    peak = std::max(peak, held_in + stored());
    for (int k = 0; k < length; k++) {
      const block_t b = line.block(k);
      if (dropped && contributions[out_offsets[si] + out.block_index(b)] == open)
        held_out -= out.block_nodes(b);
    }
    for (int k = 0; k < in.blocks[dep.input.dimension]; k++) {
      const block_t b = dep.input.block(k);
      if (--reads_left[in_offsets[ci] + in.block_index(b)] == 0)
        held_in -= input_bytes * in.block_nodes(b);
    }
  }
  return peak;
}

}  // namespace

double paired_store_peak(const slice_lines_t& order, const slice_lines_t& above, double input_bytes,
                         double output_bytes, double dropped_held_bytes, double pooled_nodes) {
  // Slices of up to a few million lines are simulated line by line; larger ones (which have
  // many sections) section by section, which holds each section's inputs and outputs whole.
  if (order.total_lines() <= max_simulated_lines)
    return paired_peak_by_lines(order, above, input_bytes, output_bytes, dropped_held_bytes >= 0,
                                pooled_nodes);
  const auto sheaves = child_of_sheaves(order, above);
  const auto& in = above.sections();
  const auto& out = order.sections();
  // The sections in completion order, and the last place in it that reads each input section.
  const auto walk = section_completion_order(order);
  const auto rank = places_in(walk);
  std::vector<int> last(in.size(), -1);
  for (const auto& [si, child] : sheaves) last[child] = std::max(last[child], rank[si]);
  double remaining = 0;  // inputs still to be read
  for (size_t c = 0; c < in.size(); c++) remaining += input_bytes * double(in[c].size());
  // Inputs never read are held to the end; the others leave after their last section.
  std::vector<double> leaving(out.size() + 1, 0);
  for (size_t c = 0; c < in.size(); c++)
    if (last[c] >= 0) leaving[last[c]] += input_bytes * double(in[c].size());
  double done = 0, peak = 0;
  for (size_t place = 0; place < out.size(); place++) {
    done += output_bytes * double(out[walk[place]].size());
    const double outputs = dropped_held_bytes >= 0 ? dropped_held_bytes : done;
    peak = std::max(peak, remaining + outputs);
    remaining -= leaving[place];
  }
  return std::max(peak, remaining + (dropped_held_bytes >= 0 ? dropped_held_bytes : done));
}

}  // namespace pentago
