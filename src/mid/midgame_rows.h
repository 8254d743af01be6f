// Internal to mid: the row kernel of the midgame solver, written once and compiled per SIMD level
// (midgame_rows_{portable,sse,avx2}.cpp) inside the namespace pentago::simd::PENTAGO_ISA. With
// SSSE3, rmax is two nibble-table lookups (axes a' and b, inside each byte) and four byte
// shuffles (axes c and d): half the instructions of the SSE2 shifts and masks.
#pragma once
#ifndef PENTAGO_ISA
#pentago_error_t \
    "compile with -DPENTAGO_ISA=portable|sse|avx2 (cmake: pentago_layer sets it per file)"
#endif
#include <emmintrin.h>

#include <array>
#include <utility>
#ifdef __SSSE3__
#include <tmmintrin.h>
#endif

#include "midgame_layer.h"
#include "pentago/mid/subsets.h"

namespace pentago::simd::PENTAGO_ISA {
using detail::midgame_layer_t;
using detail::midgame_max_spots;
using detail::midgame_row_job_t;

#ifdef __SSSE3__
// Within a byte, bit a' + 2b: rmax ORs both a' entries into each and the b +- 1 neighbours. As
// that is an OR of bit moves, the byte's image is the OR of its two nibbles' images.
constexpr uint8_t rmax_byte_image(int bits) {
  int out = 0;
  for (int i = 0; i < 8; i++)
    if (bits >> i & 1) {
      const int a = i & 1, b = i >> 1;
      out |= 3 << 2 * b | 1 << (a + 2 * ((b + 1) & 3)) | 1 << (a + 2 * ((b + 3) & 3));
    }
  return uint8_t(out);
}

template <int shift, int... n>
inline __m128i rmax_nibble_table(std::integer_sequence<int, n...>) {
  return _mm_setr_epi8(char(rmax_byte_image(n << shift))...);
}

inline halfsuper_t midgame_rmax(halfsuper_t h) {
  const __m128i x = __m128i(h.v);
  const auto nibbles = std::make_integer_sequence<int, 16>();
  const __m128i low = _mm_set1_epi8(0x0f);
  const __m128i inner = _mm_or_si128(
      _mm_shuffle_epi8(rmax_nibble_table<0>(nibbles), _mm_and_si128(x, low)),
      _mm_shuffle_epi8(rmax_nibble_table<4>(nibbles), _mm_and_si128(_mm_srli_epi16(x, 4), low)));
  // Axis c: the bytes of every 32-bit lane, c + 1 and c - 1; axis d: the lanes.
  const __m128i c_up = _mm_setr_epi8(1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12);
  const __m128i c_down = _mm_setr_epi8(3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14);
  const __m128i c = _mm_or_si128(_mm_shuffle_epi8(x, c_up), _mm_shuffle_epi8(x, c_down));
  const __m128i d = _mm_or_si128(_mm_shuffle_epi32(x, 0x39), _mm_shuffle_epi32(x, 0x93));
  return {halfsuper_t::vec_t(_mm_or_si128(_mm_or_si128(inner, c), d))};
}
#else
inline halfsuper_t midgame_rmax(halfsuper_t h) { return halfsuper_rmax(h); }
#endif

// C(n, k) for n < midgame_max_spots, k <= midgame_max_spots / 2 + 1: the colex terms of a row.
struct small_binomials_t {
  uint32_t c[midgame_max_spots][midgame_max_spots / 2 + 2];
};
constexpr small_binomials_t small_binomials = [] {
  small_binomials_t t{};
  for (int n = 0; n < midgame_max_spots; n++) {
    t.c[n][0] = 1;
    for (int k = 1; k < midgame_max_spots / 2 + 2; k++)
      t.c[n][k] = n == 0 ? 0 : t.c[n - 1][k - 1] + t.c[n - 1][k];
  }
  return t;
}();

// The child `offset` bytes into a row of the next layer.
inline halfsuper_t child_at(const halfsuper_t* row, uint32_t offset) {
  return *reinterpret_cast<const halfsuper_t*>(reinterpret_cast<const char*>(row) + offset);
}

// One row of the job's layer. `by_mover`: the layer's rows are the mover's sets; `leaf`: no
// next layer; both fixed at compile time, with `stream`.
template <bool stream, bool by_mover, bool leaf>
void solve_row(const midgame_row_job_t& job, uint64_t row, bool prefetch_next_row) {
  const midgame_layer_t& L = *job.layer;
  const uint32_t row_set = L.row_sets[row];
  // Spots free of the row set, and per column element a and relative spot y the colex term
  // C(free[y], a + 1): the column set's absolute rank is the sum over its elements.
  int free_spot[midgame_max_spots];
  for (int y = 0, s = 0; y < L.col_space; s++)
    if (!(row_set >> s & 1)) free_spot[y++] = s;
  uint32_t term[midgame_max_spots / 2 + 1][midgame_max_spots];
  for (int a = 0; a < L.col_size; a++)
    for (int y = 0; y < L.col_space; y++) term[a][y] = small_binomials.c[free_spot[y]][a + 1];
  // Child rows per relative free slot j.
  const halfsuper_t* child_row[midgame_max_spots];
  if (!leaf) {
    for (int j = 0; j < L.col_space; j++) {
      const uint64_t r = L.rows_by_mover ? subset_rank(row_set | uint32_t(1) << free_spot[j]) : row;
      child_row[j] = job.next_data + r * job.next->cols;
    }
  }
  // Rows by the placer read their children from one row of the next layer (the same row
  // index), in L3 and in scattered lines: the one of the next row (when this thread solves it
  // next) is prefetched into L2 a line or two per column (20 stones: 6% faster). Rows by the
  // mover read theirs from col_space rows that neighbouring rows share: prefetching those the
  // same way made them slower.
  const char* ahead = nullptr;
  uint64_t ahead_lines = 0, ahead_line = 0, ahead_per_col = 0;
  if (!leaf && !by_mover && prefetch_next_row) {
    ahead = reinterpret_cast<const char*>(job.next_data + (row + 1) * job.next->cols);
    ahead_lines = job.next->cols * sizeof(halfsuper_t) / 64 + 1;
    ahead_per_col = (ahead_lines + L.cols - 1) / L.cols;
  }
  // A leaf (the full board, or the last layer of a pass cut short): nobody wins from here on.
  // (A free count fixed per layer, not tested per row, keeps the child loop as fast as it was.)
  const bool win_bit = job.win_bit;
  const halfsuper_t init = leaf && !win_bit ? halfsuper_t::ones() : halfsuper_t::zero();
  const halfsuper_t* row_mover = by_mover ? &L.mover_wins[row] : nullptr;
  const halfsuper_t* row_placer = by_mover ? nullptr : &L.placer_wins[2 * row];
  const int fc = leaf ? 0 : L.free_count, cs = L.col_size;
  const bool keep_results = L.n <= 1;
  halfsuper_t* const out = job.out + row * L.cols;
  for (uint64_t col = 0; col < L.cols; col++) {
    // The wins first: their tables are larger than the caches hold, so their loads should
    // overlap the children's.
    const uint8_t* el = &L.col_elements[col * cs];
    uint32_t abs_rank = 0;
    for (int a = 0; a < cs; a++) abs_rank += term[a][el[a]];
    const halfsuper_t w0 = by_mover ? *row_mover : L.mover_wins[abs_rank];
    const halfsuper_t* placer = by_mover ? &L.placer_wins[2 * abs_rank] : row_placer;
    const halfsuper_t w1 = placer[0], w1_before = placer[1];
    for (uint64_t p = 0; p < ahead_per_col && ahead_line < ahead_lines; p++, ahead_line++)
      _mm_prefetch(ahead + 64 * ahead_line, _MM_HINT_T1);
    halfsuper_t u = init;
    const uint8_t* fi = &L.free_index[col * fc];
    const uint32_t* offset = &L.child_offset[col * fc];
    if (by_mover) {
      for (int f = 0; f < fc; f++) u = u | child_at(child_row[fi[f]], offset[f]);
    } else {
      // Rows by the player who placed: every child lies in this row of the next layer.
      for (int f = 0; f < fc; f++) u = u | child_at(child_row[0], offset[f]);
    }
    // Fives on the board end the game: both is a tie, only the mover's a win, else a loss.
    const halfsuper_t mover_ok = win_bit ? ~w1 : halfsuper_t::ones();
    u = andnot(w0 | w1, u) | (w0 & mover_ok);
    if (keep_results) {
      // Layer 0: the root; layer 1: J is one spot, the row set or the column element.
      const int spot = L.n == 0 ? -1 : by_mover ? free_spot[el[0]] : __builtin_ctz(row_set);
      job.results[1 + spot] = u;
    }
    // The placer's value before rotating: the best rotation, or a five made by placing.
    const halfsuper_t value = midgame_rmax(~u) | w1_before;
    if constexpr (stream)
      _mm_stream_si128(reinterpret_cast<__m128i*>(&out[col]), __m128i(value.v));
    else
      out[col] = value;
  }
}

// Rows [begin, end), the compile-time flags chosen from the job. Streamed rows end with one
// fence for all of them: a fence per row (and the atomic claim of the next row after it) waits
// for the row's last stores to reach memory, 7% of the time with rows of a few KiB.
template <bool stream, bool by_mover, bool leaf>
void solve_rows(const midgame_row_job_t& job, uint64_t begin, uint64_t end) {
  for (uint64_t row = begin; row < end; row++)
    solve_row<stream, by_mover, leaf>(job, row, row + 1 < end);
  if constexpr (stream) _mm_sfence();
}

// The 8 instantiations, indexed by stream * 4 + by_mover * 2 + leaf.
template <int... flags>
constexpr auto row_solvers(std::integer_sequence<int, flags...>) {
  return std::array{&solve_rows<(flags >> 2 & 1) != 0, (flags >> 1 & 1) != 0, (flags & 1) != 0>...};
}

inline void midgame_solve_rows(const midgame_row_job_t& job, uint64_t begin, uint64_t end) {
  static constexpr auto solvers = row_solvers(std::make_integer_sequence<int, 8>());
  const int flags = (job.stream ? 4 : 0) + (job.layer->rows_by_mover ? 2 : 0) + (job.next ? 0 : 1);
  solvers[flags](job, begin, end);
}

}  // namespace pentago::simd::PENTAGO_ISA
