// Internal to mid: the batched midgame solver's two kernels (a layer's win tables, a layer's
// positions) as functions of one thread's index, over plain 64-bit halfsuper words. nvcc
// compiles them for the GPU (cuda/midgame_cuda.cu: one thread per index); the C++ compiler
// compiles the same code for the CPU reference device (midgame_gpu.cpp), which the test suite
// checks against the CPU solver on machines without a GPU. A batch holds roots with the same
// spot count; every array of per-root values is interleaved by root (entry * batch + root), so
// that neighbouring threads, the roots of one entry, read neighbouring 16-byte words.
#pragma once
#include <cstdint>

#ifdef __CUDACC__
#define PENTAGO_GPU_CODE __host__ __device__ __forceinline__
#else
#define PENTAGO_GPU_CODE inline
#endif

namespace pentago::gpu {

// Most spots (empty cells) of a root the batched solver takes: 12 stones (a 266 GiB workspace).
constexpr int max_spots = 24;

// A halfsuper (docs/formats.md, "Supers") as two 64-bit words: bit j of the 128 is bit j % 64
// of word j / 64, as in halfsuper_t.
struct alignas(16) half_t {
  uint64_t lo, hi;
};
PENTAGO_GPU_CODE half_t operator|(half_t a, half_t b) { return {a.lo | b.lo, a.hi | b.hi}; }
PENTAGO_GPU_CODE half_t operator&(half_t a, half_t b) { return {a.lo & b.lo, a.hi & b.hi}; }
PENTAGO_GPU_CODE half_t operator~(half_t a) { return {~a.lo, ~a.hi}; }
PENTAGO_GPU_CODE half_t half_zero() { return {0, 0}; }
PENTAGO_GPU_CODE half_t half_ones() { return {~uint64_t(0), ~uint64_t(0)}; }

// halfsuper_rmax on 64-bit words. The 128 bits are four 32-bit lanes (axis d), each four bytes
// (axis c), each four bit pairs (axis b) of two bits (axis a'); per lane as halfsuper_rmax:
// a' ORs both entries of a pair, b, c and d OR the two cyclic neighbours. The a' and b masks
// keep every bit inside its byte, so the shifts may cross lanes; c rotates inside each lane.
PENTAGO_GPU_CODE uint64_t rmax_word_inner(uint64_t x) {
  const uint64_t a = x | ((x >> 1) & 0x5555555555555555ull) | ((x << 1) & 0xaaaaaaaaaaaaaaaaull);
  const uint64_t yb = x | ((x << 4) & 0xf0f0f0f0f0f0f0f0ull) | ((x >> 4) & 0x0f0f0f0f0f0f0f0full);
  const uint64_t b = ((yb >> 2) & 0x3f3f3f3f3f3f3f3full) | ((yb << 6) & 0xc0c0c0c0c0c0c0c0ull);
  // Axis c: x(c + 2) is the lane's other 16-bit half; then the lane turned by one byte down.
  const uint64_t yc = x | ((x << 16) & 0xffff0000ffff0000ull) | ((x >> 16) & 0x0000ffff0000ffffull);
  const uint64_t c = ((yc >> 8) & 0x00ffffff00ffffffull) | ((yc << 24) & 0xff000000ff000000ull);
  return a | b | c;
}
PENTAGO_GPU_CODE half_t rmax(half_t h) {
  // Axis d: lane i takes lanes i + 1 and i + 3, that is y(i + 1) with y(i) = x(i) | x(i + 2):
  // y has the same two lanes in both words, and lane i + 1 of it is y turned by 32 bits.
  const uint64_t y = h.lo | h.hi;
  const uint64_t d = y >> 32 | y << 32;
  return {rmax_word_inner(h.lo) | d, rmax_word_inner(h.hi) | d};
}

// The tables behind halfsuper_wins_both (halfsuper.cpp) and the small binomials: read-only,
// one copy on the device for every batch.
struct tables_t {
  // covered[q][mask][line]: bit r set iff quadrant q's `mask` turned CCW r times holds every
  // cell of win line `line` inside quadrant q (all four r for lines missing q).
  uint8_t covered[4][512][32];
  // The halfsuper bits whose rotation of quadrant q lies in a 4-bit set of turns; quadrant 0
  // by parity.
  half_t axis0[2][16], axis1[16], axis2[16], axis3[16];
  // C(n, k) for n, k <= max_spots.
  uint32_t binomial[max_spots + 1][max_spots + 1];
};

// halfsuper_wins_both: {parity 0, parity 1} halves of the rotations in which `side` has five.
struct half_pair_t {
  half_t parity[2];
};
PENTAGO_GPU_CODE half_pair_t wins_both(const tables_t& t, uint64_t side) {
  const uint8_t* c0 = t.covered[0][side & 0x1ff];
  const uint8_t* c1 = t.covered[1][side >> 16 & 0x1ff];
  const uint8_t* c2 = t.covered[2][side >> 32 & 0x1ff];
  const uint8_t* c3 = t.covered[3][side >> 48 & 0x1ff];
  half_pair_t h = {{half_zero(), half_zero()}};
  for (int line = 0; line < 32; line++) {
    if (!c0[line] || !c1[line] || !c2[line] || !c3[line]) continue;
    const half_t rest = t.axis1[c1[line]] & t.axis2[c2[line]] & t.axis3[c3[line]];
    h.parity[0] = h.parity[0] | (rest & t.axis0[0][c0[line]]);
    h.parity[1] = h.parity[1] | (rest & t.axis0[1][c0[line]]);
  }
  return h;
}

// A root of a batch: its spots' bit positions, the colour placing at layer 0 and the other,
// and the halfsuper class of layer 0 (1 for a root to rotate).
struct root_t {
  uint64_t first, second;
  uint8_t spot_bit[max_spots];
  uint32_t parity0;
};

// q = t / d and t - q * d, in 32 bits where both fit (a 64-bit division is a long subroutine
// on a GPU).
struct quotient_t {
  uint64_t q, r;
};
PENTAGO_GPU_CODE quotient_t divide(uint64_t t, uint64_t d) {
  const uint64_t q = (t | d) >> 32 ? t / d : uint64_t(uint32_t(t) / uint32_t(d));
  return {q, t - q * d};
}

// The index of the lowest set bit of a non-zero mask.
PENTAGO_GPU_CODE int lowest_bit(uint32_t m) {
#ifdef __CUDA_ARCH__
  return __ffs(int(m)) - 1;
#else
  return __builtin_ctz(m);
#endif
}

// The board cells of a set of spots.
PENTAGO_GPU_CODE uint64_t side_of(const root_t& root, uint32_t spots) {
  uint64_t side = 0;
  for (int s = 0; spots; s++, spots >>= 1)
    if (spots & 1) side |= uint64_t(1) << root.spot_bit[s];
  return side;
}

// The win tables of layer n for every root: the mover's per k0-set (this layer's class) and
// the placer's per k1-set (this class, then the other: before the rotation). Thread index t:
// the mover's sets first, then the placer's, each set with all the batch's roots.
struct wins_job_t {
  const tables_t* tables;
  const root_t* roots;
  uint32_t batch, n;
  const uint32_t* mover_sets;  // the k0-subsets of the spots, colex order
  const uint32_t* placer_sets;
  uint64_t mover_count, placer_count;
  half_t* mover_wins;   // [rank * batch + root]
  half_t* placer_wins;  // [(2 * rank + before) * batch + root]

  PENTAGO_GPU_CODE uint64_t threads() const { return (mover_count + placer_count) * batch; }
};

PENTAGO_GPU_CODE void wins_entry(const wins_job_t& job, uint64_t t) {
  const quotient_t by_root = divide(t, job.batch);
  const uint64_t set = by_root.q;
  const uint32_t b = uint32_t(by_root.r);
  const root_t& root = job.roots[b];
  const uint32_t parity = (job.n + root.parity0) & 1;
  const bool mover_first = job.n % 2 == 0;
  if (set < job.mover_count) {
    const uint64_t side =
        (mover_first ? root.first : root.second) | side_of(root, job.mover_sets[set]);
    job.mover_wins[set * job.batch + b] = wins_both(*job.tables, side).parity[parity];
  } else {
    const uint64_t rank = set - job.mover_count;
    const uint64_t side =
        (mover_first ? root.second : root.first) | side_of(root, job.placer_sets[rank]);
    const half_pair_t both = wins_both(*job.tables, side);
    job.placer_wins[2 * rank * job.batch + b] = both.parity[parity];
    job.placer_wins[(2 * rank + 1) * job.batch + b] = both.parity[1 - parity];
  }
}

// One layer's positions for every root (midgame.cpp: rows are the mover's sets at even n, the
// placer's at odd n; columns the other player's set among the spots the row leaves free).
// Thread index t: entry t / batch (row-major) of root t % batch.
struct rows_job_t {
  const tables_t* tables;
  uint32_t batch;
  bool rows_by_mover, leaf, win_bit;
  uint64_t rows, cols, next_cols;
  uint32_t col_space, free_count;
  const uint32_t* col_sets;  // [cols]: masks relative to the spots free of the row
  const uint8_t* row_free;   // [rows * col_space]: the spots free of each row, in order
  // [cols * free_count], per empty spot of a column: its relative free slot j (top 8 bits) and
  // the child's column in the next layer (low 24 bits).
  const uint32_t* child;
  const uint32_t* child_row;  // [rows * col_space], rows by the mover: the child's row by j
  const half_t* next;         // the next layer (not read by a leaf)
  half_t* out;
  const half_t* mover_wins;  // wins_job_t's
  const half_t* placer_wins;
  // Layers 0 and 1 only: the positions' own values (before the placer's rotation) by index,
  // the root at 0, layer 1's position with one stone on spot s at 1 + s: [index * batch + root].
  half_t* results;

  PENTAGO_GPU_CODE uint64_t threads() const { return rows * cols * batch; }
};

PENTAGO_GPU_CODE void rows_entry(const rows_job_t& job, uint64_t t) {
  const quotient_t by_root = divide(t, job.batch);
  const uint64_t entry = by_root.q;
  const uint32_t b = uint32_t(by_root.r);
  const quotient_t by_row = divide(entry, job.cols);
  const uint64_t row = by_row.q, col = by_row.r;
  // The colex rank of the column's set among all spots: its elements are the free spots of
  // the row that the relative mask picks.
  const uint8_t* free_spots = job.row_free + row * job.col_space;
  uint32_t col_rank = 0, i = 0;
  for (uint32_t m = job.col_sets[col]; m; m &= m - 1)
    col_rank += job.tables->binomial[free_spots[lowest_bit(m)]][++i];
  const uint64_t mover_rank = job.rows_by_mover ? row : col_rank;
  const uint64_t placer_rank = job.rows_by_mover ? col_rank : row;
  const uint32_t B = job.batch;
  const half_t w0 = job.mover_wins[mover_rank * B + b];
  const half_t w1 = job.placer_wins[2 * placer_rank * B + b];
  const half_t w1_before = job.placer_wins[(2 * placer_rank + 1) * B + b];
  // A leaf: nobody wins from here on; else the OR of the children where the mover places.
  half_t u = job.leaf && !job.win_bit ? half_ones() : half_zero();
  if (!job.leaf) {
    const uint32_t* child = job.child + col * job.free_count;
    for (uint32_t f = 0; f < job.free_count; f++) {
      const uint32_t c = child[f];
      const uint64_t child_row =
          job.rows_by_mover ? job.child_row[row * job.col_space + (c >> 24)] : row;
      u = u | job.next[(child_row * job.next_cols + (c & 0xffffff)) * B + b];
    }
  }
  // Fives on the board end the game: both is a tie, only the mover's a win, else a loss.
  const half_t mover_ok = job.win_bit ? ~w1 : half_ones();
  u = (~(w0 | w1) & u) | (w0 & mover_ok);
  // Layer 1's rows are the placer's one-spot sets, and the colex rank of {s} is s.
  if (job.results) job.results[(job.rows_by_mover ? 0 : 1 + row) * B + b] = u;
  // The placer's value before rotating: the best rotation, or a five made by placing.
  job.out[entry * B + b] = rmax(~u) | w1_before;
}

}  // namespace pentago::gpu
