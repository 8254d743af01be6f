// The output-line -> input-line mapping checked on random boards against the one-board
// definition: place a stone in the rotated frame, standardize, find it in the child section.
#include "pentago/layout/line_mapping.h"

#include <gtest/gtest.h>

#include <random>

#include "pentago/layout/quadrant_states.h"

using namespace pentago;

TEST(line_mapping, child_boards) {
  std::mt19937 rng(7);
  int checked = 0, reflected = 0;
  for (int n = 0; n < 35; n++) {
    const auto sections = slice_sections(n);
    for (int trial = 0; trial < 400; trial++) {
      const section_t s = sections[rng() % sections.size()];
      int d = int(rng() % 4);
      if (s.quadrant_full(d)) continue;
      const auto shape = s.shape();
      std::array<int, 4> k;
      for (int q = 0; q < 4; q++) k[q] = int(rng() % shape[q]);
      block_t block;
      for (int q = 0; q < 4; q++) block[q] = uint8_t(k[q] / block_size);
      line_t line{s, d, {}};
      for (int q = 0, j = 0; q < 4; q++)
        if (q != d) line.base[j++] = block[q];
      const line_dependency_t dep = line_dependency_of(line);
      ASSERT_EQ(dep.input.section, s.child(d).standardize());
      const board_t b = section_board(s, k);
      const side_t empty = empty_cells(b) >> 16 * d & 0x1ff;
      for (int e = 0; e < 9; e++) {
        if (!(empty >> e & 1)) continue;
        const board_t child = place_stone(b, s.turn(), d, e);
        const uint16_t inv = rmin_inverse(quadrant(child, d));
        const child_location_t loc = locate_child(dep, k, inv >> 2, inv & 3);
        // The located entry lies on the input line.
        for (int i = 0, j = 0; i < 4; i++) {
          if (i != dep.child_dimension) {
            ASSERT_EQ(loc.index[i] / block_size, dep.input.base[j++]);
          }
        }
        const board_t stored = section_board(dep.child, loc.index);
        ASSERT_EQ(transform_board(loc.symmetry, stored), child);
        checked++;
        reflected += dep.reflects();
      }
      // locate_board agrees: the stored board maps back to b.
      const board_location_t where = locate_board(b);
      ASSERT_EQ(where.section, s.standardize());
      ASSERT_EQ(transform_board(where.symmetry, section_board(where.section, where.index)), b);
    }
  }
  EXPECT_GT(checked, 10000);
  EXPECT_GT(reflected, 1000);
}
