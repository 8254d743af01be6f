// Blocks and block lines of sections (docs/layout.md; line order: docs/formats.md, "Lines to
// ranks"): 8^4 blocks, edge shapes, lines along non-full quadrants and the canonical line order of
// a slice.
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "pentago/layout/section.h"

namespace pentago {

constexpr int block_size = 8;
using block_t = std::array<uint8_t, 4>;  // block coordinates within a section

// A section's shape and block counts, computed once: for loops over many of its blocks (the
// free functions below compute them again on every call).
struct section_geometry_t {
  std::array<int, 4> shape;   // quadrant states per axis
  std::array<int, 4> blocks;  // ceil(shape / 8) per axis
  explicit section_geometry_t(const section_t& s);
  std::array<int, 4> block_shape(const block_t& b) const;
  int block_nodes(const block_t& b) const;  // product of block_shape
  uint64_t block_index(const block_t& b) const;
};

std::array<int, 4> section_blocks(const section_t& s);  // ceil(shape / 8) per axis
uint64_t section_block_count(const section_t& s);
std::array<int, 4> block_shape(const section_t& s, const block_t& b);
int block_nodes(const section_t& s, const block_t& b);  // product of block_shape
// The largest block of any of the sections (their first blocks); 0 for none.
int largest_block_nodes(std::span<const section_t> sections);
// Calls fn(k, index) for every node of block b of s in C order: k = 0, 1, ... the position in
// the block's data, index the node's indices in the whole section.
template <class F>
void for_each_node(const section_t& s, const block_t& b, F&& fn) {
  const std::array<int, 4> shape = block_shape(s, b);
  std::array<int, 4> index;
  int k = 0;
  for (int i0 = 0; i0 < shape[0]; i0++)
    for (int i1 = 0; i1 < shape[1]; i1++)
      for (int i2 = 0; i2 < shape[2]; i2++)
        for (int i3 = 0; i3 < shape[3]; i3++, k++) {
          index = {8 * b[0] + i0, 8 * b[1] + i1, 8 * b[2] + i2, 8 * b[3] + i3};
          fn(k, index);
        }
}
// Row-major index of a block within its section (the .index / file order).
uint64_t block_index(const section_t& s, const block_t& b);
block_t block_from_index(const section_t& s, uint64_t index);

// A block line: all blocks of `section` along `dimension` with the other three block
// coordinates fixed (`base`, in increasing axis order).
struct line_t {
  section_t section;
  int dimension = 0;
  std::array<uint8_t, 3> base{};
  int length() const;          // blocks along the line
  block_t block(int k) const;  // k-th block along the line
  // Output nodes of the line: shape[d] times the cross-section of the other axes.
  uint64_t nodes() const;
  bool operator==(const line_t& o) const {
    return section == o.section && dimension == o.dimension && base == o.base;
  }
};

// The canonical line order of a slice: for each section in order and each non-full
// dimension, a "sheaf" of lines in C order of their 3-D base.
class slice_lines_t {
 public:
  explicit slice_lines_t(std::span<const section_t> sections);
  struct sheaf_t {
    int section_index;
    int dimension;
    std::array<int, 3> shape;  // section_blocks without axis `dimension`
    uint64_t offset;           // canonical index of the sheaf's first line
  };
  uint64_t total_lines() const { return total_; }
  const std::vector<sheaf_t>& sheaves() const { return sheaves_; }
  std::span<const section_t> sections() const { return sections_; }
  line_t line(uint64_t index) const;  // canonical index -> line
  // line -> canonical index; -1 if the line's section is not in this slice
  int64_t index(const section_t& s, int dimension, const block_t& block) const;
  int section_index(const section_t& s) const;  // -1 if absent

 private:
  std::vector<section_t> sections_;
  std::vector<sheaf_t> sheaves_;
  std::vector<std::array<int, 4>> sheaf_of_;  // per section, per dimension: sheaf id or -1
  uint64_t total_ = 0;
};

}  // namespace pentago
