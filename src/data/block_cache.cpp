// The shared cache of decoded slice-file blocks.
#include "pentago/data/block_cache.h"

namespace pentago {

size_t block_key_hash_t::operator()(const block_cache_key_t& k) const {
  uint64_t h = uint64_t(reinterpret_cast<uintptr_t>(k.source));
  h = h * 0x9e3779b97f4a7c15ULL ^ uint64_t(k.section);
  h = h * 0x9e3779b97f4a7c15ULL ^ k.block;
  return size_t(h ^ h >> 29);
}

block_cache_t::block_cache_t(uint64_t memory_limit)
    : cache_(memory_limit,
             [](const block_data_t& b) { return uint64_t(b.size() * sizeof(b[0])); }) {}

block_cache_t::block_ptr_t block_cache_t::get(const block_cache_key_t& key,
                                              const std::function<block_data_t()>& read) {
  return cache_.get(key, read);
}

block_cache_t::block_ptr_t block_cache_t::get(const supertensor_reader_t& reader, int section_index,
                                              const block_t& block) {
  const section_t& section = reader.sections().at(size_t(section_index));
  const block_cache_key_t key{&reader, section_index, block_index(section, block)};
  return cache_.get(key, [&] { return reader.read_block(section_index, block); });
}

block_cache_t::stats_t block_cache_t::stats() const {
  const lru_cache_stats_t s = cache_.stats();
  return {s.hits, s.misses, s.waits, s.evictions, s.weight, s.peak_weight};
}

}  // namespace pentago
