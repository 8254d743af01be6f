// Private tables shared by the three SIMD instantiations of the super kernels.
#pragma once
#include <cstdint>

#include "pentago/base/super.h"

namespace pentago::detail {

struct super_tables_t {
  // win_nibbles[q][mask][h]: nibble j of word h is the set of CCW turns r of quadrant q under
  // which rotated `mask` covers the quadrant-q cells of win line 16h + j (all 4 if untouched).
  uint64_t win_nibbles[4][512][2];
  // Expansions of a 4-bit set of turns along one axis into the 256-bit layout.
  uint64_t axis0[16], axis1[16], axis2[16];
  super_t axis3[16];
  // Global symmetry g as a list of delta swaps (mask of lower elements, index distance).
  struct swap_op {
    super_t mask;
    int distance;
  };
  swap_op ops[8][12];
  int op_count[8];
};

extern const super_tables_t super_tables;

}  // namespace pentago::detail
