// Decoded blocks of slice files, shared by threads: an LRU cache bounded in bytes that decodes
// each missing block once even when several threads ask for it at the same time.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "pentago/base/super.h"
#include "pentago/data/supertensor.h"
#include "pentago/util/lru_cache.h"

namespace pentago {

// A block of some source of slice data (a reader object, identified by its address while it
// lives), in disk format and C order.
struct block_cache_key_t {
  const void* source = nullptr;
  int section = 0;
  uint64_t block = 0;  // block_index within the section
  bool operator==(const block_cache_key_t&) const = default;
};
struct block_key_hash_t {
  size_t operator()(const block_cache_key_t& k) const;
};

class block_cache_t {
 public:
  using block_data_t = std::vector<superinfo_t>;
  using block_ptr_t = std::shared_ptr<const block_data_t>;

  // Holds at most `memory_limit` bytes of decoded nodes (the block just read is always kept).
  explicit block_cache_t(uint64_t memory_limit);

  // The block of `key`, read with `read()` if it is not cached. Concurrent requests for the
  // same key share one read; a failed read reaches every requester and is not cached. The
  // source of a key must outlive its entries (the cache lives beside its readers).
  block_ptr_t get(const block_cache_key_t& key, const std::function<block_data_t()>& read);
  // A block of a slice file through its validating reader.
  block_ptr_t get(const supertensor_reader_t& reader, int section_index, const block_t& block);

  struct stats_t {
    uint64_t hits = 0, misses = 0, waits = 0, evictions = 0;
    uint64_t bytes = 0, peak_bytes = 0;  // decoded bytes held now / at most
  };
  stats_t stats() const;
  uint64_t memory_limit() const { return cache_.capacity(); }

 private:
  lru_cache_t<block_cache_key_t, block_data_t, block_key_hash_t> cache_;
};

}  // namespace pentago
