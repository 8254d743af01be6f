// Output line -> input line dependencies and board -> stored value locations.
#include "pentago/layout/line_mapping.h"

#include "pentago/layout/quadrant_states.h"
#include "pentago/util/error.h"

namespace pentago {

line_dependency_t line_dependency_of(const line_t& output) {
  line_dependency_t dep;
  dep.output = output;
  const section_t c = output.section.child(output.dimension);
  dep.child = c.standardize(&dep.child_global);
  dep.perm = quadrant_permutation(dep.child_global);
  for (int i = 0; i < 4; i++)
    if (dep.perm[i] == output.dimension) dep.child_dimension = i;
  const block_t out_block = output.block(0);
  block_t in_block{};
  for (int i = 0; i < 4; i++) in_block[i] = i == dep.child_dimension ? 0 : out_block[dep.perm[i]];
  dep.input.section = dep.child;
  dep.input.dimension = dep.child_dimension;
  for (int i = 0, j = 0; i < 4; i++)
    if (i != dep.child_dimension) dep.input.base[j++] = in_block[i];
  const int tau = dep.child_global;
  dep.unmove = symmetry_t((4 - (tau & 3)) & 3, 0x55 * (tau & 3)) * symmetry_t(tau & 4, 0);
  return dep;
}

child_location_t locate_child(const line_dependency_t& dep, const std::array<int, 4>& k, int j,
                              int rho) {
  child_location_t loc;
  int fix = 0;
  for (int i = 0; i < 4; i++) {
    const int src = i == dep.child_dimension ? j : k[dep.perm[i]];
    const auto& counts = dep.child.counts[i];
    if (dep.reflects()) {
      const auto bucket = rmin_bucket(counts[0], counts[1]);
      fix |= (rmin_inverse(reflect_quadrant(bucket[src])) & 3) << 2 * i;
      loc.index[i] = src < rmin_moved(counts[0], counts[1]) ? src ^ 1 : src;
    } else {
      loc.index[i] = src;
    }
  }
  loc.symmetry = symmetry_t(0, rho << 2 * dep.output.dimension) * dep.unmove * symmetry_t(0, fix);
  return loc;
}

board_t section_board(const section_t& s, const std::array<int, 4>& k) {
  board_t b = 0;
  for (int q = 0; q < 4; q++)
    b |= board_t(rmin_bucket(s.counts[q][0], s.counts[q][1])[k[q]]) << 16 * q;
  return b;
}

section_t board_section(board_t board) {
  section_t s;
  for (int q = 0; q < 4; q++)
    s.counts[q] = {uint8_t(quadrant_count(quadrant(board, q), 0)),
                   uint8_t(quadrant_count(quadrant(board, q), 1))};
  return s;
}

board_location_t locate_board(board_t board) {
  board_location_t loc;
  int g;
  loc.section = board_section(board).standardize(&g);
  const board_t b1 = transform_board(symmetry_t(g, 0), board);
  int local = 0;
  for (int q = 0; q < 4; q++) {
    const uint16_t inv = rmin_inverse(quadrant(b1, q));
    loc.index[q] = inv >> 2;
    local |= (inv & 3) << 2 * q;
  }
  loc.symmetry = inverse(symmetry_t(g, 0)) * symmetry_t(0, local);
  return loc;
}

}  // namespace pentago
