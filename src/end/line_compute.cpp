// Line compute: prepares one output block of a block line (quadrant states, win nibbles, the
// children's input offsets and symmetries) and runs the SIMD node kernel (line_kernel.h) on
// it, which applies the recurrence with super_wins, the child transforms and rmax.
#include "pentago/end/line_compute.h"

#include <algorithm>
#include <array>
#include <bit>
#include <vector>

#include "pentago/end/line_kernel.h"
#include "pentago/layout/blocks.h"
#include "pentago/layout/quadrant_states.h"
#include "pentago/util/error.h"

namespace pentago {

namespace {

// Calls f(i, e, inv) for each empty square e of each quadrant state i of block bd along quadrant
// d of section s: the stone of the player to move placed there gives the state whose
// rmin_inverse is inv (the child's index along d* times 4, plus its turns).
template <class F>
void for_each_placement(const section_t& s, int d, int bd, F&& f) {
  static const int powers[9] = {1, 3, 9, 27, 81, 243, 729, 2187, 6561};
  const int turn = s.turn();
  const auto bucket = rmin_bucket(s.counts[d][0], s.counts[d][1]);
  const int states = int(std::min<size_t>(block_size, bucket.size() - size_t(block_size) * bd));
  for (int i = 0; i < states; i++) {
    const quadrant_t v = bucket[block_size * bd + i];
    const auto& u = unpack_table[v];
    for (int e = 0; e < 9; e++)
      if (!((u[0] | u[1]) >> e & 1)) f(i, e, rmin_inverse(quadrant_t(v + (turn + 1) * powers[e])));
  }
}

// The shape of block b of section s and, per quadrant, the win nibbles of the mover's and the
// opponent's stones in each quadrant state the block covers.
void set_block_stones(const section_t& s, const block_t& b, line_block_job_t& job) {
  using detail::super_tables;
  const int turn = s.turn();
  const auto shape = block_shape(s, b);
  for (int q = 0; q < 4; q++) {
    job.shape[q] = shape[q];
    const auto bucket = rmin_bucket(s.counts[q][0], s.counts[q][1]);
    for (int i = 0; i < shape[q]; i++) {
      const auto& u = unpack_table[bucket[block_size * b[q] + i]];
      job.mine[q][i] = super_tables.win_nibbles[q][u[turn]];
      job.theirs[q][i] = super_tables.win_nibbles[q][u[1 - turn]];
    }
  }
}

}  // namespace

uint64_t line_block_moves(const line_dependency_t& dep, int k) {
  const section_t& s = dep.output.section;
  const block_t b = dep.output.block(k);
  const int d = dep.output.dimension;
  const auto shape = block_shape(s, b);
  uint64_t cross = 1;
  for (int i = 0; i < 4; i++)
    if (i != d) cross *= uint64_t(shape[i]);
  return cross * uint64_t(shape[d]) * uint64_t(9 - s.quadrant_sum(d));
}

std::vector<int> line_block_inputs(const line_dependency_t& dep, int k) {
  std::vector<int> blocks;
  const section_t& s = dep.output.section;
  if (s.sum() == 35) return blocks;
  const int d = dep.output.dimension;
  for_each_placement(s, d, dep.output.block(k)[d],
                     [&](int, int, uint16_t inv) { blocks.push_back(dep.input_block(inv >> 2)); });
  std::sort(blocks.begin(), blocks.end());
  blocks.erase(std::unique(blocks.begin(), blocks.end()), blocks.end());
  return blocks;
}

void compute_line_block(const line_dependency_t& dep, std::span<const superinfo_t* const> inputs,
                        int k, superinfo_t* output) {
  compute_line_block(dep, inputs, k, line_output_t{output});
}

void compute_line_block(const line_dependency_t& dep, std::span<const superinfo_t* const> inputs,
                        int k, const line_output_t& output) {
  using detail::super_tables;
  const section_t& s = dep.output.section;
  const int d = dep.output.dimension, turn = s.turn();
  const block_t b = dep.output.block(k);
  const auto shape = block_shape(s, b);
  const bool last = s.sum() == 35;
  PENTAGO_CHECK(last || int(inputs.size()) == dep.input.length(), "wrong input count");

  line_block_job_t job{};
  job.d = d;
  job.last = last;
  PENTAGO_CHECK(
      !output.stream || reinterpret_cast<uintptr_t>(output.nodes) % alignof(superinfo_t) == 0,
      "streaming stores into an unaligned block");
  job.output = output.nodes;
  job.merge_with = output.merge_with;
  job.stream = output.stream;
  job.finish = output.finish;
  set_block_stones(s, b, job);
  int mine_mask[block_size] = {};  // the mover's stones in each quadrant state along d
  const auto bucket_d = rmin_bucket(s.counts[d][0], s.counts[d][1]);
  for (int i = 0; i < shape[d]; i++)
    mine_mask[i] = unpack_table[bucket_d[block_size * b[d] + i]][turn];
  // Placements along d: the union of their immediate wins, and their children.
  struct placement_t {
    int child;  // j: index of the child quadrant state along d*
    int rho;    // CCW turns from bucket[j] to the placed quadrant
  };
  placement_t placements[block_size][9];
  int placement_count[block_size] = {};
  detail::nibbles_t placed[block_size] = {};
  for_each_placement(s, d, b[d], [&](int i, int e, uint16_t inv) {
    const auto& n = super_tables.win_nibbles[d][mine_mask[i] | 1 << e];
    placed[i].h[0] |= n.h[0], placed[i].h[1] |= n.h[1];
    placements[i][placement_count[i]++] = {inv >> 2, inv & 3};
  });
  for (int i = 0; i < shape[d]; i++) {
    PENTAGO_CHECK(placement_count[i] > 0, "line along a full quadrant");
    job.placed[i] = placed[i];
  }
  if (last) {
    run_line_block(job);
    return;
  }

  // Child lookups. For C* axis i != d*, the source is output axis perm[i]; per local index
  // along it, the index within the input block and the reflection fix (CCW turns).
  const int dstar = dep.child_dimension;
  const bool reflects = dep.reflects();
  auto entry = [&](int i, int src, int& local, int& fix) {
    const auto& c = dep.child.counts[i];
    const int moved = rmin_moved(c[0], c[1]);
    const int stored = reflects && src < moved ? src ^ 1 : src;
    local = stored % block_size;
    fix = reflects ? rmin_inverse(reflect_quadrant(rmin_bucket(c[0], c[1])[src])) & 3 : 0;
  };
  // Input blocks differ in shape only along d* (the last may be short): at most two kinds of
  // strides.
  std::array<int, 4> strides[2];
  int kinds = 0;
  std::vector<int> kind_of(inputs.size());
  for (size_t ib = 0; ib < inputs.size(); ib++) {
    const auto in_shape = block_shape(dep.child, dep.input.block(int(ib)));
    const std::array<int, 4> st = {in_shape[1] * in_shape[2] * in_shape[3],
                                   in_shape[2] * in_shape[3], in_shape[3], 1};
    int kind = 0;
    while (kind < kinds && strides[kind] != st) kind++;
    if (kind == kinds) {
      PENTAGO_CHECK(kinds < 2, "input blocks of more than two shapes");
      strides[kinds++] = st;
    }
    kind_of[ib] = kind;
  }
  if (kinds == 1) strides[1] = strides[0];

  // sigma = (rho along d) * unmove * (fixes): its global part is unmove's. Its local part is
  // unmove's plus the fixes of the axes other than d*, which depend on the node, plus a turn
  // along d* that depends on the placement (rho and the child's fix).
  const symmetry_t unmove = dep.unmove;
  job.global = unmove.global;
  job.child_axis = dstar;
  const int dstar_bits = 3 << 2 * dstar;
  for (int i = 0; i < 4; i++) {
    if (i == dstar) continue;
    const int q = dep.perm[i];
    for (int l = 0; l < shape[q]; l++) {
      int local, fix;
      entry(i, block_size * b[q] + l, local, fix);
      job.node_shift[q][l] = uint8_t((((unmove.local >> 2 * i) + fix) & 3) << 2 * i);
      for (int kind = 0; kind < 2; kind++) job.node_offset[kind][q][l] = local * strides[kind][i];
    }
  }
  for (int i = 0; i < shape[d]; i++) {
    job.child_count[i] = placement_count[i];
    for (int p = 0; p < placement_count[i]; p++) {
      const auto [j, rho] = placements[i][p];
      int local, fix;
      entry(dstar, j, local, fix);
      const symmetry_t sigma =
          symmetry_t(0, rho << 2 * d) * unmove * symmetry_t(0, fix << 2 * dstar);
      PENTAGO_CHECK(sigma.global == unmove.global &&
                        (sigma.local & ~dstar_bits) == (unmove.local & ~dstar_bits),
                    "placement turn outside the child axis");
      const int ib = dep.input_block(j);
      PENTAGO_CHECK(inputs[ib], "input block read but not given");
      const int kind = kind_of[ib];
      job.children[i][p] = {inputs[ib] + local * strides[kind][dstar], kind,
                            sigma.local >> 2 * dstar & 3};
    }
  }
  run_line_block(job);
}

namespace {

// The block line of section s through block b along quadrant d.
line_t line_through(const section_t& s, const block_t& b, int d) {
  line_t line;
  line.section = s;
  line.dimension = d;
  for (int a = 0, j = 0; a < 4; a++)
    if (a != d) line.base[j++] = b[a];
  return line;
}

}  // namespace

void finish_block(const section_t& s, const block_t& b, std::span<superinfo_t> value) {
  PENTAGO_CHECK(value.size() == size_t(block_nodes(s, b)), "finish_block: wrong block size");
  line_block_job_t job{};
  job.finish = job.step_only = true;
  set_block_stones(s, b, job);
  job.output = value.data();
  run_line_block(job);
}

void compute_top_block(const section_t& s, const block_t& b, std::span<superinfo_t> value) {
  PENTAGO_CHECK(s.sum() == 35, "compute_top_block: section " + s.name() + " is not in slice 35");
  PENTAGO_CHECK(value.size() == size_t(block_nodes(s, b)), "compute_top_block: wrong block size");
  // 35 stones leave one empty square: one open quadrant, whose line is the block's value.
  for (int d = 0; d < 4; d++) {
    if (s.quadrant_full(d)) continue;
    compute_line_block(line_dependency_of(line_through(s, b, d)), {}, b[d],
                       line_output_t{value.data(), nullptr, false, true});
    return;
  }
}

void compute_top_block(const section_t& s, const block_t& b, std::vector<superinfo_t>& value) {
  value.resize(size_t(block_nodes(s, b)));
  compute_top_block(s, b, std::span<superinfo_t>(value));
}

namespace {

// A line of slice 35's blocks computed again, as a slice-34 block's line reads it; only the
// blocks that the reads so far needed are computed.
struct top_line_t {
  line_t line;
  std::vector<std::vector<superinfo_t>> blocks;  // each of its block's size or larger
  std::vector<const superinfo_t*> computed;      // per block along the line, or null
  bool valid = false;
};

// The blocks of slice-35 line `input`, of which at least those in `needed` are computed, from
// this thread's two lines read last where one is it: a slice-34 line's blocks are read one
// after another, and along the line's own axis all of them read the same slice-35 line.
const top_line_t& top_line(const line_t& input, std::span<const int> needed) {
  thread_local std::array<top_line_t, 2> recent;
  thread_local size_t next = 0;
  top_line_t* r = nullptr;
  for (top_line_t& line : recent)
    if (line.valid && line.line == input) r = &line;
  if (!r) {
    r = &recent[next];
    next ^= 1;
    r->line = input;
    r->valid = true;
    const size_t length = size_t(input.length());
    if (r->blocks.size() < length) r->blocks.resize(length);
    r->computed.assign(length, nullptr);
  }
  for (const int k : needed) {
    if (r->computed[size_t(k)]) continue;
    const block_t b = input.block(k);
    const auto value = scratch_span(r->blocks[size_t(k)], size_t(block_nodes(input.section, b)));
    compute_top_block(input.section, b, value);
    r->computed[size_t(k)] = value.data();
  }
  return *r;
}

}  // namespace

void compute_block_again(const section_t& s, const block_t& b, std::span<superinfo_t> value) {
  if (s.sum() == 35) return compute_top_block(s, b, value);
  PENTAGO_CHECK(s.sum() == 34, "compute_block_again: section " + s.name() + " is not in slice 34");
  PENTAGO_CHECK(value.size() == size_t(block_nodes(s, b)), "compute_block_again: wrong block size");
  bool first = true;
  const int last_open = std::bit_width(unsigned(s.open_quadrants())) - 1;
  for (int d = 0; d < 4; d++) {
    if (s.quadrant_full(d)) continue;
    const line_dependency_t dep = line_dependency_of(line_through(s, b, d));
    const top_line_t& top = top_line(dep.input, line_block_inputs(dep, b[d]));
    // Blocks no node of this one reads stay null; the kernel never looks at them.
    const std::span<const superinfo_t* const> pointers = top.computed;
    // The first open quadrant's line writes the block; the others' merge into it with max,
    // and the last one's takes the recurrence's last step.
    compute_line_block(
        dep, pointers, b[d],
        line_output_t{value.data(), first ? nullptr : value.data(), false, d == last_open});
    first = false;
  }
}

}  // namespace pentago
