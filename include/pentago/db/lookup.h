// Values of positions from saved slice files (paper §VIII): the set of slice-N.pentago files
// of a run directory (blocks cached by data/block_cache.h), and an evaluator that values a
// position and each of its moves, falling back to forward search where a slice is not saved.
#pragma once
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "pentago/base/super.h"
#include "pentago/data/block_cache.h"
#include "pentago/data/supertensor.h"
#include "pentago/layout/line_mapping.h"
#include "pentago/search/super_search.h"

namespace pentago {

// Applies a symmetry to both supers of a pair (either convention: both are properties that
// global symmetries preserve).
superinfo_t transform_pair(symmetry_t s, const superinfo_t& pair);

// The saved slices available for look-ups: slice-N.pentago files, at most one per slice.
class slice_database {
 public:
  explicit slice_database(uint64_t cache_bytes = uint64_t(1) << 30);
  ~slice_database();

  // Opens every DIR/slice-N.pentago (validating its headers) and notes a meaningless-K marker.
  // Returns the number of slice files added.
  int add_directory(const std::string& dir);
  // Opens one slice file; throws pentago::error if its slice is already present.
  void add_file(const std::string& path);
  void add_reader(std::shared_ptr<const supertensor_reader> reader);

  bool has_slice(int n) const { return readers_.count(n) > 0; }
  std::vector<int> slices() const;
  const supertensor_reader& reader(int n) const;  // throws unless has_slice(n)
  // Meaningless slice of the directories added (0 if none): its values are meaningless_value.
  int meaningless() const { return meaningless_; }

  // Disk-format (black wins, white wins) of every local rotation of `board` (bit 0: the board
  // itself), from the slice of its stone count; nullopt if that slice or the board's section
  // is not saved.
  std::optional<superinfo_t> find(board_t board) const;
  // The same, throwing pentago::error with a one-line reason instead of returning nullopt.
  superinfo_t black_white(board_t board) const;
  // The stored (untransformed) disk-format node at a location of slice n's file.
  superinfo_t stored(const supertensor_reader& reader, int section_index,
                     const std::array<int, 4>& index) const;

  block_cache& cache() const { return *cache_; }

 private:
  std::map<int, std::shared_ptr<const supertensor_reader>> readers_;
  std::unique_ptr<block_cache> cache_;
  int meaningless_ = 0;
};

// Where a value came from.
enum class value_source { saved_slice, full_board, meaningless, search };

struct evaluator_options {
  int threads = 1;            // forward search threads
  int table_bits = 20;        // forward search transposition table (2^bits buckets)
  int max_search_depth = 12;  // refuse forward searches spanning more stones than this
};

// One move: place a stone of the mover's colour at (x, y), then turn `quadrant` by `direction`
// (+1 CCW, -1 CW). A placement that makes five in a row wins at once with no rotation; such a
// move is listed once, with direction 0.
struct move_value_t {
  int x = 0, y = 0;
  int quadrant = 0, direction = 0;
  board_t child = 0;                   // the position after the move
  game_value value = game_value::tie;  // for the player making the move
  value_source source = value_source::saved_slice;
};

// Values positions from a slice database: saved slices first, the rules for a full board,
// meaningless values at the meaningless slice, and otherwise a forward search whose leaves are
// the nearest saved (or meaningless) slice above, if any. One evaluation at a time.
class position_evaluator {
 public:
  explicit position_evaluator(const slice_database& db, const evaluator_options& options = {});
  ~position_evaluator();

  // Disk-format (black wins, white wins) of every rotation of the board.
  superinfo_t black_white(board_t board, value_source* source = nullptr);
  // Value of the board itself for the player to move.
  game_value value(board_t board, value_source* source = nullptr);
  // Every move of a position whose game is not over (empty if it is).
  std::vector<move_value_t> moves(board_t board);
  uint64_t searches() const { return searches_; }

 private:
  super_searcher& searcher(int leaf_slice);

  const slice_database& db_;
  evaluator_options options_;
  std::map<int, std::unique_ptr<super_searcher>> searchers_;
  uint64_t searches_ = 0;
};

// A leaf function computing `value` once per superstandardized board (up to `max_entries`
// remembered; then the memory starts over). `value` must be equivariant, like meaningless_value
// or a slice look-up; the result is thread safe if `value` is.
leaf_function cached_leaf(std::function<superinfo_t(board_t)> value, size_t max_entries = size_t(1)
                                                                                          << 20);

const char* source_name(value_source source);
// "a1".."f6": row letter (a = top, y = 5) and column digit (1 = left, x = 0), as str_board.
std::string cell_name(int x, int y);
// "f1 q0 ccw" style description of a move (just the cell for an immediate win).
std::string move_name(const move_value_t& move);

}  // namespace pentago
