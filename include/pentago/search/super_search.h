// Rotation-abstracted ("super") forward search: the value of a board under all 256 local
// rotations at once, by the per-board recurrence of docs/formats.md, "Supers", with a lockless
// transposition table keyed by superstandardized boards (2048-element group), optional leaf values
// at a fixed stone count, and a younger-brothers-wait split over a thread pool.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>

#include "pentago/base/super.h"
#include "pentago/search/board_search.h"

namespace pentago {

// Counters of one or more searches.
struct search_stats_t {
  uint64_t nodes = 0;         // positions expanded (table hits and leaves excluded)
  uint64_t leaves = 0;        // leaf callback calls
  uint64_t table_probes = 0;  // transposition table look-ups
  uint64_t table_hits = 0;    // look-ups that found the position
  uint64_t table_stores = 0;  // results written to the table
  double hit_rate() const { return table_probes ? double(table_hits) / double(table_probes) : 0; }
  search_stats_t& operator+=(const search_stats_t& o);
};

// Value of a board with `leaf_stones` stones, in computation convention: (win, notlose) for
// the player to move of that board, bit g for g.board. It replaces the whole game below that
// board, rule 1 included. Results are well defined only if the function is equivariant,
// f(s(b)) = s.f(b) for all 2048 symmetries s, because the search evaluates whichever member
// of a symmetry class it meets first. Wrap a function of standardized boards with
// equivariant_leaf to get one. It may be called from several threads at once.
using leaf_function_t = std::function<superinfo_t(board_t)>;

// f(b) = transform_super(s^-1, g(S)) with S = superstandardize(b, &s). f is equivariant when
// g(S) is invariant under the symmetries that fix S (automatic when only the identity fixes
// S, and true of S's real value).
leaf_function_t equivariant_leaf(std::function<superinfo_t(board_t)> of_standard_board);

struct super_search_options_t {
  int threads = 1;      // 1 = serial; N > 1 adds N-1 worker threads
  int table_bits = 16;  // 2^bits buckets x 2 entries x 128 bytes (16: 16 MiB)
  // Boards with exactly this many stones (the root included) are valued by `leaf` instead of
  // searched; a root with more stones is searched exactly. -1: no leaves, exact search.
  int leaf_stones = -1;
  leaf_function_t leaf;
  int table_min_empties = 3;  // positions with fewer empty cells skip the table
  int split_min_empties = 5;  // parallel split only at positions with this many empty cells
  int split_depth = 4;        // ... and at most this many moves below the root
};

// A search engine: owns the transposition table and thread pool, reused across searches.
// One search at a time per engine (solve is not reentrant across threads). Results are
// [[nodiscard]]: GCC 12 may pass a misaligned return slot for a discarded superinfo_t
// (alignas 64), which the AVX2 kernels' aligned stores then fault on.
class super_searcher_t {
 public:
  // Throws usage_error for bad options (thread count, table bits, leaf without function).
  explicit super_searcher_t(const super_search_options_t& options = {});
  ~super_searcher_t();
  super_searcher_t(const super_searcher_t&) = delete;
  super_searcher_t& operator=(const super_searcher_t&) = delete;

  // (win, notlose) for the player to move of board, bit g for g.board (docs/formats.md,
  // "Supers").
  [[nodiscard]] superinfo_t solve(board_t board);
  // Value of the board itself (rotation bit 0) for the player to move.
  [[nodiscard]] game_value_t value(board_t board);
  // File convention (black wins, white wins) of every rotation of board.
  [[nodiscard]] superinfo_t black_white(board_t board);

  search_stats_t stats() const;  // totals since construction or reset_stats
  void reset_stats();
  void clear_table();  // needed when leaf values change between searches
  const super_search_options_t& options() const;

 private:
  struct impl_t;
  std::unique_ptr<impl_t> impl_;
};

// Value of rotation g of a super pair (computation convention): win + notlose - 1.
inline game_value_t rotation_value(const superinfo_t& v, int g = 0) {
  return game_value_t(int(v.win(g)) + int(v.notlose(g)) - 1);
}
// Computation convention (mover's view, mover = turn) to file convention (docs/formats.md,
// "Supers").
[[nodiscard]] superinfo_t to_black_white(const superinfo_t& mover_value, int turn);

// One-shot exact searches on a per-thread engine (table kept between calls).
[[nodiscard]] superinfo_t super_solve(board_t board);
[[nodiscard]] game_value_t super_value(board_t board);       // bit 0: the board itself
[[nodiscard]] superinfo_t super_black_white(board_t board);  // (black wins, white wins)

}  // namespace pentago
