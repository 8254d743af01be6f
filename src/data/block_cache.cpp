// The shared cache of decoded slice-file blocks.
#include "pentago/data/block_cache.h"

namespace pentago {

size_t block_key_hash::operator()(const block_key& k) const {
  uint64_t h = uint64_t(reinterpret_cast<uintptr_t>(k.source));
  h = h * 0x9e3779b97f4a7c15ULL ^ uint64_t(k.section);
  h = h * 0x9e3779b97f4a7c15ULL ^ k.block;
  return size_t(h ^ h >> 29);
}

block_cache::block_cache(uint64_t memory_limit)
    : cache_(memory_limit, [](const block_data& b) { return uint64_t(b.size() * sizeof(b[0])); }) {}

block_cache::block_ptr block_cache::get(const block_key& key,
                                        const std::function<block_data()>& read) {
  return cache_.get(key, read);
}

block_cache::block_ptr block_cache::get(const supertensor_reader& reader, int section_index,
                                        const block_t& block) {
  const section_t& section = reader.sections().at(size_t(section_index));
  const block_key key{&reader, section_index, block_index(section, block)};
  return cache_.get(key, [&] { return reader.read_block(section_index, block); });
}

block_cache::stats_t block_cache::stats() const {
  const lru_cache_stats s = cache_.stats();
  return {s.hits, s.misses, s.waits, s.evictions, s.weight, s.peak_weight};
}

}  // namespace pentago
