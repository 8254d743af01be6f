// The slice counters' table at work: scope, formatting, the reduction's packing and the
// measurement both drivers share.
#include "pentago/end/slice_counters.h"

#include <algorithm>

#include "pentago/end/block_store.h"
#include "pentago/end/buffer_pool.h"
#include "pentago/end/compacting_store.h"
#include "pentago/end/slice_loop.h"
#include "pentago/util/error.h"
#include "pentago/util/format.h"

namespace pentago {

bool counter_given(const counter_field_t& field, bool mpi, bool synthesized) {
  switch (field.scope) {
    case counter_scope_t::every_run:
      return true;
    case counter_scope_t::mpi:
      return mpi;
    case counter_scope_t::mpi_computed:
      return mpi && !synthesized;
  }
  return false;
}

std::string format_counter(const counter_field_t& field, uint64_t value) {
  return field.unit == counter_unit_t::bytes ? format_bytes(double(value)) : std::to_string(value);
}

std::vector<uint64_t> counter_values(const slice_counters_t& counters, counter_combine_t combine) {
  std::vector<uint64_t> values;
  for (const auto& f : slice_counter_fields)
    if (f.combine == combine) values.push_back(counters.*f.value);
  return values;
}

void set_counter_values(slice_counters_t& counters, counter_combine_t combine,
                        std::span<const uint64_t> values) {
  size_t i = 0;
  for (const auto& f : slice_counter_fields)
    if (f.combine == combine) {
      PENTAGO_CHECK(i < values.size(), "too few counter values");
      counters.*f.value = values[i++];
    }
  PENTAGO_CHECK(i == values.size(), "too many counter values");
}

double compression_ratio(const slice_counters_t& c) {
  return double(c.compressed_bytes) / std::max<double>(double(c.uncompressed_bytes), 1);
}

slice_counters_t measure_slice_counters(const block_store_t& store, const compacting_store_t& heap,
                                        const buffer_pool_t& partials) {
  const auto arena = heap.stats();
  slice_counters_t c;
  c.compressed_bytes = store.compressed_bytes();
  c.uncompressed_bytes = store.uncompressed_bytes();
  c.input_reads = store.input_reads();
  c.input_cache_hits = store.input_cache_hits();
  c.resident_high_water = resident_high_water();
  c.store_bytes = store.peak_held_bytes();
  c.arena_live = arena.peak_live_bytes;
  c.arena_touched = arena.bump_high_water;
  c.arena_bytes = arena.limit;
  c.arena_limit_raises = arena.limit_raises;
  c.partial_bytes = partials.carved_bytes();
  c.partial_plan_bytes = partials.budget();
  c.arena_lent_in_slice = store.arena_lent_bytes();
  c.partial_recompressions = store.partial_recompressions();
  c.partial_evictions = store.partial_evictions();
  c.partial_elided = store.partial_elided();
  c.raw_block_bytes = store.raw_bytes();
  c.elided_block_bytes = store.elided_bytes();
  return c;
}

}  // namespace pentago
