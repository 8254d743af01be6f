// Line compute: place the mover's stone at every empty cell of one quadrant, transform the
// child values into the parent's frame and apply the recurrence with super_wins and rmax.
#include "pentago/end/line_compute.h"

#include <vector>

#include "pentago/base/error.h"
#include "pentago/layout/quadrant_states.h"

namespace pentago {
namespace {

// One placement choice for a given output state along the line's quadrant.
struct placement_t {
  int cell;   // local cell index e
  int child;  // j: index of the child quadrant state along d*
  int rho;    // CCW turns from bucket[j] to the placed quadrant
};

}  // namespace

uint64_t line_block_moves(const line_dependency& dep, int k) {
  const section_t& s = dep.output.section;
  const block_t b = dep.output.block(k);
  const int d = dep.output.dimension;
  const auto shape = block_shape(s, b);
  uint64_t cross = 1;
  for (int i = 0; i < 4; i++)
    if (i != d) cross *= uint64_t(shape[i]);
  return cross * uint64_t(shape[d]) * uint64_t(9 - s.quadrant_sum(d));
}

void compute_line_block(const line_dependency& dep, std::span<const superinfo_t* const> inputs,
                        int k, superinfo_t* output) {
  const section_t& s = dep.output.section;
  const int d = dep.output.dimension, turn = s.turn(), n = s.sum();
  const block_t b = dep.output.block(k);
  const auto shape = block_shape(s, b);
  const bool last_slice = n == 35;
  PENTAGO_CHECK(last_slice || int(inputs.size()) == dep.input.length(), "wrong input count");

  // Per output axis: the quadrant states covered by this block, as (mine, theirs) side bits.
  side_t mine[4][block_size], theirs[4][block_size];
  for (int q = 0; q < 4; q++) {
    const auto bucket = rmin_bucket(s.counts[q][0], s.counts[q][1]);
    for (int i = 0; i < shape[q]; i++) {
      const quadrant_t v = bucket[block_size * b[q] + i];
      mine[q][i] = side_t(unpack_table[v][turn]) << 16 * q;
      theirs[q][i] = side_t(unpack_table[v][1 - turn]) << 16 * q;
    }
  }
  // Placements per index along d.
  std::vector<placement_t> placements[block_size];
  {
    const auto bucket = rmin_bucket(s.counts[d][0], s.counts[d][1]);
    static const int powers[9] = {1, 3, 9, 27, 81, 243, 729, 2187, 6561};
    for (int i = 0; i < shape[d]; i++) {
      const quadrant_t v = bucket[block_size * b[d] + i];
      const auto& u = unpack_table[v];
      for (int e = 0; e < 9; e++) {
        if ((u[0] | u[1]) >> e & 1) continue;
        const uint16_t inv = rmin_inverse(quadrant_t(v + (turn + 1) * powers[e]));
        placements[i].push_back({e, inv >> 2, inv & 3});
      }
    }
  }

  // Child lookup tables. For C* axis i != d*, the source is output axis perm[i]; per local
  // index along that output axis, the index within the input block and the reflection fix.
  const int dstar = dep.child_dimension;
  int in_local[4][block_size] = {};
  int fix[4][block_size] = {};
  std::vector<int> child_local, child_fix;
  if (!last_slice) {
    const bool reflects = dep.reflects();
    auto entry = [&](int i, int src, int& local, int& f) {
      const auto& c = dep.child.counts[i];
      const int moved = rmin_moved(c[0], c[1]);
      const int stored = reflects && src < moved ? src ^ 1 : src;
      local = stored % block_size;
      f = reflects ? (rmin_inverse(reflect_quadrant(rmin_bucket(c[0], c[1])[src])) & 3) << 2 * i
                   : 0;
    };
    for (int i = 0; i < 4; i++) {
      if (i == dstar) continue;
      const int q = dep.perm[i];
      for (int l = 0; l < shape[q]; l++) entry(i, block_size * b[q] + l, in_local[i][l], fix[i][l]);
    }
    const auto& c = dep.child.counts[dstar];
    const int child_size = int(rmin_bucket(c[0], c[1]).size());
    child_local.resize(child_size);
    child_fix.resize(child_size);
    for (int j = 0; j < child_size; j++) entry(dstar, j, child_local[j], child_fix[j]);
  }
  // Input block shapes differ only along d* (the last block may be short).
  std::vector<std::array<int, 4>> in_strides(inputs.size());
  for (size_t ib = 0; ib < inputs.size(); ib++) {
    const auto in_shape = block_shape(dep.child, dep.input.block(int(ib)));
    in_strides[ib] = {in_shape[1] * in_shape[2] * in_shape[3], in_shape[2] * in_shape[3],
                      in_shape[3], 1};
  }

  const symmetry_t unmove = dep.unmove;
  int idx[4];
  superinfo_t* out = output;
  for (idx[0] = 0; idx[0] < shape[0]; idx[0]++)
    for (idx[1] = 0; idx[1] < shape[1]; idx[1]++)
      for (idx[2] = 0; idx[2] < shape[2]; idx[2]++)
        for (idx[3] = 0; idx[3] < shape[3]; idx[3]++, out++) {
          side_t me = 0, op = 0;
          for (int q = 0; q < 4; q++) me |= mine[q][idx[q]], op |= theirs[q][idx[q]];
          const super_t w0 = super_wins(me), w1 = super_wins(op);
          super_t placed, acc_win, acc_notlose;
          // C* indices and fixes of the axes other than d*.
          int base_offset_local[4] = {0, 0, 0, 0};
          int fix_other = 0;
          if (!last_slice)
            for (int i = 0; i < 4; i++)
              if (i != dstar) {
                base_offset_local[i] = in_local[i][idx[dep.perm[i]]];
                fix_other |= fix[i][idx[dep.perm[i]]];
              }
          for (const placement_t& p : placements[idx[d]]) {
            const super_t pw = super_wins(me | side_t(1) << (16 * d + p.cell));
            placed |= pw;
            if (last_slice) {
              acc_win |= pw & ~w1;
              acc_notlose |= pw | ~w1;
              continue;
            }
            const int ib = p.child / block_size;
            const auto& st = in_strides[ib];
            int local[4] = {base_offset_local[0], base_offset_local[1], base_offset_local[2],
                            base_offset_local[3]};
            local[dstar] = child_local[p.child];
            const superinfo_t& c =
                inputs[ib][local[0] * st[0] + local[1] * st[1] + local[2] * st[2] + local[3]];
            const symmetry_t sigma = symmetry_t(0, p.rho << 2 * d) * unmove *
                                     symmetry_t(0, fix_other | child_fix[p.child]);
            acc_win |= ~transform_super(sigma, c.notlose);
            acc_notlose |= ~transform_super(sigma, c.win);
          }
          const super_t imm = w0 | w1;
          out->win = ((placed | rmax(acc_win)) & ~imm) | (w0 & ~w1);
          out->notlose = (rmax(acc_notlose) & ~imm) | w0;
        }
}

}  // namespace pentago
