// Block geometry of sections and the canonical order of the block lines of a slice.
#include "pentago/layout/blocks.h"

#include <algorithm>

#include "pentago/util/error.h"

namespace pentago {

section_geometry_t::section_geometry_t(const section_t& s) : shape(s.shape()), blocks(shape) {
  for (auto& x : blocks) x = (x + block_size - 1) / block_size;
}

std::array<int, 4> section_geometry_t::block_shape(const block_t& b) const {
  std::array<int, 4> r;
  for (int i = 0; i < 4; i++)
    r[i] = std::min(shape[i], block_size * (b[i] + 1)) - block_size * b[i];
  return r;
}

int section_geometry_t::block_nodes(const block_t& b) const {
  const auto r = block_shape(b);
  return r[0] * r[1] * r[2] * r[3];
}

uint64_t section_geometry_t::block_index(const block_t& b) const {
  return ((uint64_t(b[0]) * blocks[1] + b[1]) * blocks[2] + b[2]) * blocks[3] + b[3];
}

std::array<int, 4> section_blocks(const section_t& s) { return section_geometry_t(s).blocks; }

uint64_t section_block_count(const section_t& s) {
  uint64_t n = 1;
  for (int x : section_blocks(s)) n *= uint64_t(x);
  return n;
}

std::array<int, 4> block_shape(const section_t& s, const block_t& b) {
  return section_geometry_t(s).block_shape(b);
}

int block_nodes(const section_t& s, const block_t& b) {
  return section_geometry_t(s).block_nodes(b);
}

int largest_block_nodes(std::span<const section_t> sections) {
  int largest = 0;
  for (const auto& s : sections) largest = std::max(largest, block_nodes(s, {}));
  return largest;
}

uint64_t block_index(const section_t& s, const block_t& b) {
  return section_geometry_t(s).block_index(b);
}

block_t block_from_index(const section_t& s, uint64_t index) {
  const auto blocks = section_blocks(s);
  block_t b;
  for (int i = 3; i >= 0; i--) b[i] = uint8_t(index % blocks[i]), index /= blocks[i];
  return b;
}

int line_t::length() const { return section_blocks(section)[dimension]; }

block_t line_t::block(int k) const {
  block_t b;
  for (int i = 0, j = 0; i < 4; i++) b[i] = i == dimension ? uint8_t(k) : base[j++];
  return b;
}

uint64_t line_t::nodes() const {
  const auto shape = block_shape(section, block(0));
  uint64_t n = uint64_t(section.shape()[dimension]);
  for (int i = 0; i < 4; i++)
    if (i != dimension) n *= uint64_t(shape[i]);
  return n;
}

slice_lines_t::slice_lines_t(std::span<const section_t> sections)
    : sections_(sections.begin(), sections.end()) {
  sheaf_of_.resize(sections_.size());
  for (int s = 0; s < int(sections_.size()); s++) {
    const auto blocks = section_blocks(sections_[s]);
    for (int d = 0; d < 4; d++) {
      sheaf_of_[s][d] = -1;
      if (sections_[s].quadrant_full(d)) continue;
      sheaf_t sheaf{s, d, {}, total_};
      for (int i = 0, j = 0; i < 4; i++)
        if (i != d) sheaf.shape[j++] = blocks[i];
      sheaf_of_[s][d] = int(sheaves_.size());
      sheaves_.push_back(sheaf);
      total_ += uint64_t(sheaf.shape[0]) * sheaf.shape[1] * sheaf.shape[2];
    }
  }
}

line_t slice_lines_t::line(uint64_t index) const {
  PENTAGO_CHECK(index < total_, "line index out of range");
  auto it = std::upper_bound(sheaves_.begin(), sheaves_.end(), index,
                             [](uint64_t i, const sheaf_t& s) { return i < s.offset; });
  const sheaf_t& sheaf = *(it - 1);
  uint64_t r = index - sheaf.offset;
  line_t line;
  line.section = sections_[sheaf.section_index];
  line.dimension = sheaf.dimension;
  for (int j = 2; j >= 0; j--) line.base[j] = uint8_t(r % sheaf.shape[j]), r /= sheaf.shape[j];
  return line;
}

int slice_lines_t::section_index(const section_t& s) const {
  auto it = std::lower_bound(sections_.begin(), sections_.end(), s);
  return it != sections_.end() && *it == s ? int(it - sections_.begin()) : -1;
}

int64_t slice_lines_t::index(const section_t& s, int dimension, const block_t& block) const {
  const int si = section_index(s);
  if (si < 0 || sheaf_of_[si][dimension] < 0) return -1;
  const sheaf_t& sheaf = sheaves_[sheaf_of_[si][dimension]];
  uint64_t r = 0;
  for (int i = 0, j = 0; i < 4; i++)
    if (i != dimension) r = r * sheaf.shape[j++] + block[i];
  return int64_t(sheaf.offset + r);
}

}  // namespace pentago
