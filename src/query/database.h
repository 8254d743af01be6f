// The slices of the configured databases (local directories of slice-N.pentago files, or base
// URLs serving slice-N.pentago with its .index sidecar), read through one shared cache of
// decoded blocks.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "http.h"
#include "pentago/base/super.h"
#include "pentago/data/block_cache.h"

namespace pentago {

class slice_databases {
 public:
  // Opens every database in order (a directory, a single .pentago file, or an http(s):// base
  // URL) and validates the headers it reads; throws pentago::error naming the database. A
  // slice held by several databases is read from the first that holds the needed section.
  slice_databases(const std::vector<std::string>& databases, uint64_t cache_bytes,
                  const http_options& http = {});
  ~slice_databases();

  std::vector<int> slices() const;  // held by any database, ascending
  bool has_slice(int n) const { return slices_.count(n) > 0; }
  // Whether some database holds the section of `board` in the slice of its stone count.
  bool covers(board_t board) const;
  // Disk format (black wins, white wins) of every local rotation of `board` (bit 0 the board
  // itself), or nullopt if no database covers it. Throws for unreadable or corrupt data.
  std::optional<superinfo_t> find(board_t board) const;
  // Reads every block holding one of `boards` that is not cached yet, concurrently.
  void prefetch(const std::vector<board_t>& boards) const;

  block_cache::stats_t cache_stats() const { return cache_.stats(); }
  uint64_t http_requests() const { return http_ ? http_->requests() : 0; }
  // "the databases DIR, URL (slices 0-2)" for error messages.
  std::string describe() const;

 private:
  struct source;
  void add_directory(const std::string& dir);
  void add_url(const std::string& url);
  void add(std::unique_ptr<source> s);
  // The first source of the board's slice holding its section, and the section's index there.
  const source* locate(board_t board, int* section_index) const;

  http_options http_options_;
  std::unique_ptr<http_client> http_;  // before the sources: their remote files use it
  std::vector<std::string> names_;
  std::map<int, std::vector<std::unique_ptr<source>>> slices_;
  mutable block_cache cache_;
};

}  // namespace pentago
