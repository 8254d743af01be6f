// Sections: 4 per-quadrant (black, white) stone counts, their 64-bit id ("sig"), string
// forms, standardization under the 8 global symmetries, shapes, children, the sections of a
// slice and the descendants of a root (docs/layout.md, "Exact rules", a data contract).
#pragma once
#include <array>
#include <bit>
#include <compare>
#include <cstdint>
#include <string>
#include <vector>

namespace pentago {

struct section_t {
  // counts[q] = (black stones, white stones) in quadrant q.
  std::array<std::array<uint8_t, 2>, 4> counts{};

  constexpr section_t() = default;
  explicit section_t(const std::array<std::array<uint8_t, 2>, 4>& c) : counts(c) {}

  int sum() const;  // stones: the slice
  int quadrant_sum(int q) const { return counts[q][0] + counts[q][1]; }
  bool quadrant_full(int q) const { return quadrant_sum(q) == 9; }
  // The non-full quadrants as a bit mask: the dimensions whose lines contribute to its blocks.
  uint8_t open_quadrants() const {
    uint8_t mask = 0;
    for (int q = 0; q < 4; q++)
      if (!quadrant_full(q)) mask |= uint8_t(1 << q);
    return mask;
  }
  int open_quadrant_count() const { return std::popcount(open_quadrants()); }
  int turn() const { return sum() & 1; }  // 0 = black to move
  // Each quadrant at most 9 stones and black - white in {0, 1}.
  bool valid() const;

  uint64_t sig() const;  // byte 2q+c = counts[q][c]
  static section_t from_sig(uint64_t sig);
  uint32_t microsig() const;  // 4-bit nibbles, nibble 2q+c = counts[q][c]

  // Rotation-minimal states per quadrant: the section's 4-D array shape.
  std::array<int, 4> shape() const;
  uint64_t size() const;  // product of the shape (nodes)

  section_t transform(int global) const;
  // The standard form (least sig over the 8 transforms, least global on ties) and the
  // global symmetry that reaches it.
  section_t standardize(int* global = nullptr) const;
  // One stone of the mover's colour added to quadrant q (q must not be full).
  section_t child(int q) const;

  std::string str() const;   // "33333333" (b0 w0 b1 w1 b2 w2 b3 w3)
  std::string name() const;  // "<n>-33333333"
  // Parses "33333333" or "<n>-33333333"; throws usage_error with a one-line reason.
  static section_t parse(const std::string& text);

  // Sample-seed hash: boost-style hash_combine over the 8 count bytes (docs/formats.md,
  // "Samples").
  uint64_t hash() const;

  bool operator==(const section_t& o) const { return counts == o.counts; }
  auto operator<=>(const section_t& o) const { return sig() <=> o.sig(); }
};

// All standardized sections of slice n (0..36), in ascending sig order.
std::vector<section_t> slice_sections(int n);
// Standardized descendants of a root, slice by slice from the root's slice up to max_slice
// (result[n] is slice n, ascending sig; slices outside the range are empty).
std::vector<std::vector<section_t>> descendant_sections(section_t root, int max_slice = 35);

}  // namespace pentago
