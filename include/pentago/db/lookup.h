// Values of boards from saved slice files (paper §VIII): the one slice database of
// pentago-check and of the query path. Its slices come from run directories, single
// slice-N.pentago files or http(s) base URLs (slice-N.pentago read by range requests, found
// through its slice-N.pentago.index sidecar, which must agree with the file); decoded blocks
// are shared through one block cache (data/block_cache.h).
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pentago/base/super.h"
#include "pentago/data/block_cache.h"
#include "pentago/data/supertensor.h"
#include "pentago/db/http_client.h"
#include "pentago/layout/line_mapping.h"
#include "pentago/search/super_search.h"

namespace pentago {

// Applies a symmetry to both supers of a pair (either convention: both are properties that
// global symmetries preserve).
superinfo_t transform_pair(symmetry_t s, const superinfo_t& pair);

class slice_database_t {
 public:
  explicit slice_database_t(uint64_t cache_bytes = uint64_t(1) << 30,
                            const http_options_t& http = {});
  ~slice_database_t();
  slice_database_t(const slice_database_t&) = delete;
  slice_database_t& operator=(const slice_database_t&) = delete;

  // ---- pentago-check: at most one file per slice --------------------------------------------
  // Opens every DIR/slice-N.pentago (validating its headers) and notes a meaningless-K marker.
  // Returns the number of slice files added.
  int add_directory(const std::string& dir);
  // Opens one slice file; throws pentago::error if its slice is already present.
  void add_file(const std::string& path);
  void add_reader(std::shared_ptr<const supertensor_reader_t> reader);
  // Meaningless slice of the directories added (0 if none): its values are meaningless_value.
  int meaningless() const { return meaningless_; }

  // ---- the query path: databases in order of preference ---------------------------------------
  // Adds a database: a directory of slice files (one with a meaningless-K marker is refused),
  // a single .pentago file, or an http(s):// base URL serving slice-N.pentago with its
  // slice-N.pentago.index sidecar. Several databases may hold the same slice: a board is read
  // from the first that holds its section. Throws pentago::error naming the database.
  void add_database(const std::string& database);

  bool has_slice(int n) const { return slices_.count(n) > 0; }
  std::vector<int> slices() const;  // ascending
  // The file of slice n (the first added); throws unless has_slice(n).
  const supertensor_reader_t& reader(int n) const;
  // Whether some file holds the section of `board` in the slice of its stone count.
  bool covers(board_t board) const;

  // Disk-format (black wins, white wins) of every local rotation of `board` (bit 0: the board
  // itself), from the slice of its stone count; nullopt if that slice or the board's section
  // is not saved. Throws pentago::error for unreadable or corrupt data, and for a sidecar that
  // disagrees with its file.
  std::optional<superinfo_t> find(board_t board) const;
  // The same, throwing pentago::error with a one-line reason instead of returning nullopt.
  superinfo_t black_white(board_t board) const;
  // Reads every block holding one of `boards` that is not cached yet, concurrently.
  void prefetch(const std::vector<board_t>& boards) const;

  block_cache_t& cache() const { return *cache_; }
  uint64_t http_requests() const { return http_ ? http_->requests() : 0; }
  // "DIR, URL (slices 0-2)" for error messages.
  std::string describe() const;

 private:
  struct source_t;
  void add_source(std::unique_ptr<source_t> s, bool shared_slice);
  void add_files(const std::string& dir, bool query);
  void add_url(const std::string& url);
  // The first source of the board's slice holding its section, and the section's index there.
  const source_t* locate(board_t board, int* section_index) const;

  http_options_t http_options_;
  std::unique_ptr<http_client_t> http_;  // before the sources: their remote files use it
  std::vector<std::string> names_;
  std::map<int, std::vector<std::unique_ptr<source_t>>> slices_;
  std::unique_ptr<block_cache_t> cache_;
  int meaningless_ = 0;
};

// A leaf function computing `value` once per superstandardized board (up to `max_entries`
// remembered; then the memory starts over). `value` must be equivariant, like meaningless_value
// or a slice look-up; the result is thread safe if `value` is.
leaf_function_t cached_leaf(std::function<superinfo_t(board_t)> value,
                            size_t max_entries = size_t(1) << 20);

}  // namespace pentago
