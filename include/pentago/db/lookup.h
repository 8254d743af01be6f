// Values of boards from saved slice files (paper §VIII): the set of slice-N.pentago files of a
// run directory (blocks cached by data/block_cache.h), for pentago-check. Queries of positions
// and their moves go through the query layer (pentago/query/query.h).
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

// A leaf function computing `value` once per superstandardized board (up to `max_entries`
// remembered; then the memory starts over). `value` must be equivariant, like meaningless_value
// or a slice look-up; the result is thread safe if `value` is.
leaf_function cached_leaf(std::function<superinfo_t(board_t)> value, size_t max_entries = size_t(1)
                                                                                          << 20);

// "a1".."f6": row letter (a = top, y = 5) and column digit (1 = left, x = 0), as str_board.
std::string cell_name(int x, int y);

}  // namespace pentago
