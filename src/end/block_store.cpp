// Compressed block store: accumulate line contributions, count, sample, freeze.
#include "pentago/end/block_store.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "pentago/data/compress.h"
#include "pentago/end/arena_lending.h"
#include "pentago/end/line_compute.h"
#include "pentago/end/line_order.h"
#include "pentago/layout/line_mapping.h"
#include "pentago/util/atomic_max.h"
#include "pentago/util/error.h"
#include "pentago/util/random.h"
#include "pentago/util/stream_copy.h"

namespace pentago {
namespace {

uint64_t block_hash_key(int section, const block_t& b) {
  return uint64_t(section) << 32 | uint64_t(b[0]) << 24 | uint64_t(b[1]) << 16 |
         uint64_t(b[2]) << 8 | b[3];
}

// The home slot of a key in a table of 2^(64 - shift) slots (Fibonacci hashing).
size_t flat_slot(uint64_t key, int shift) { return size_t((key * 0x9e3779b97f4a7c15ull) >> shift); }

// Per-thread scratch for decompressing a block.
thread_local std::vector<superinfo_t> scratch_nodes;

}  // namespace

block_store_t::block_store_t(std::span<const section_t> sections, std::vector<block_key_t> blocks,
                             const block_store_options_t& options, compacting_store_t& heap,
                             uint64_t partial_budget)
    : block_store_t(sections, std::move(blocks), options, heap, nullptr) {
  if (partial_budget >= buffer_pool_t::block_bytes) {
    own_pool_ = std::make_unique<buffer_pool_t>(partial_budget);
    pool_ = own_pool_.get();
    attach_pool();
  }
}

block_store_t::block_store_t(std::span<const section_t> sections, std::vector<block_key_t> blocks,
                             const block_store_options_t& options, compacting_store_t& heap,
                             buffer_pool_t* pool)
    : sections_(sections.begin(), sections.end()),
      keys_(std::move(blocks)),
      missing_dims_(new std::atomic<uint8_t>[keys_.size()]),
      locks_(new element_lock_t[keys_.size()]),
      partial_(keys_.size(), nullptr),
      pool_(pool),
      heap_(heap),
      codec_(options.codec),
      partial_codec_(options.partial_codec),
      raw_reserve_ratio_(options.raw_reserve_ratio),
      raw_excess_bytes_(options.raw_excess_bytes),
      elided_first_(options.elided_first),
      counts_(sections_.size(), section_counts_t{0, 0, 0}) {
  require_block_codec(codec_);
  require_block_codec(partial_codec_);
  group_ = heap.create_group(keys_.size());
  held_size_.reset(new uint32_t[keys_.size()]());
  size_t slots = 2;
  for (flat_shift_ = 63; slots < 2 * keys_.size(); slots *= 2) flat_shift_--;
  flat_of_ = page_array_t<flat_slot_t>(slots, page_size_t::huge, flat_slot_t());
  uint64_t missing = 0;
  for (int f = 0; f < int(keys_.size()); f++) {
    const auto& k = keys_[f];
    const uint64_t key = block_hash_key(k.section, k.block);
    size_t i = flat_slot(key, flat_shift_);
    while (flat_of_[i].key != UINT64_MAX) {
      PENTAGO_CHECK(flat_of_[i].key != key, "block store: a block is listed twice");
      i = (i + 1) & (slots - 1);
    }
    flat_of_[i] = {key, f};
    const uint8_t dims = sections_[k.section].open_quadrants();
    missing_dims_[f] = dims;
    missing += popcount(dims);
    uncompressed_bytes_ += 64 * uint64_t(nodes(f));
  }
  missing_ = missing;
  unstored_nodes_ = uncompressed_bytes_ / 64;
  if (pool_) attach_pool();
  // Samples: per section a counter RNG seeded by the section hash, draws with replacement.
  block_samples_.resize(keys_.size());
  for (int s = 0; s < int(sections_.size()); s++) {
    random_t rng(sections_[s].hash());
    const auto shape = sections_[s].shape();
    for (int draw = 0; draw < options.samples_per_section; draw++) {
      const auto index = rng.uniform_index(shape);
      block_t b;
      for (int q = 0; q < 4; q++) b[q] = uint8_t(index[q] / block_size);
      const int f = flat_id(s, b);
      if (f < 0) continue;
      const auto bs = block_shape(sections_[s], b);
      int offset = 0;
      for (int q = 0; q < 4; q++) offset = offset * bs[q] + index[q] % block_size;
      block_samples_[f].push_back({s, draw, offset});
    }
  }
}

block_store_t::~block_store_t() {
  cache_.reset();
  for (superinfo_t* p : partial_)
    if (p) pool_->give(p);
  heap_.destroy_group(group_);
}

int block_store_t::flat_id(int section, const block_t& block) const {
  const uint64_t key = block_hash_key(section, block);
  for (size_t i = flat_slot(key, flat_shift_);; i = (i + 1) & (flat_of_.size() - 1)) {
    if (flat_of_[i].key == key) return flat_of_[i].flat;
    if (flat_of_[i].key == UINT64_MAX) return -1;
  }
}

int block_store_t::nodes(int flat) const { return block_nodes(section(flat), keys_[flat].block); }

void block_store_t::held_changed(int flat, uint32_t size) {
  const uint32_t old = held_size_[flat];
  held_size_[flat] = size;
  raise_to(peak_held_, held_.fetch_add(uint64_t(size) - old) + (uint64_t(size) - old));
}

size_t block_store_t::store_compressed(int flat, std::span<superinfo_t> values, block_codec_t codec,
                                       size_t elided_room) {
  size_t elided = 0;
  const auto bytes = fast_compress_view(values, codec, elided_room, &elided);
  if (bytes[0] == elided_flag) elided_bytes_ += bytes.size();
  hold(flat, bytes);
  return elided;
}

void block_store_t::hold(int flat, std::span<const uint8_t> bytes) {
  heap_.set(group_, flat, bytes.data(), bytes.size());
  held_changed(flat, uint32_t(bytes.size()));
}

void block_store_t::hold_incomplete(int flat, std::span<const uint8_t> bytes) {
  hold(flat, bytes);
  recompressions_++;
  if (bytes[0] == elided_flag) partial_elided_++;
}

double block_store_t::measured_elided_share() const {
  const uint64_t seen = elided_seen_nodes_.load(std::memory_order_relaxed);
  return seen ? double(elided_seen_bytes_.load(std::memory_order_relaxed)) / (64 * double(seen))
              : 1;
}

uint64_t block_store_t::partial_elided_room(int flat) const {
  return elided_first_ ? room_for(size_t(nodes(flat)), raw_reserve_ratio_) : 0;
}

uint64_t block_store_t::room_for(size_t nodes, double rest_ratio) const {
  if (raw_reserve_ratio_ <= 0) return 0;
  // Room for this block, the rest of the store at `rest_ratio` and a margin of a sixteenth of
  // the arena (at least 16 MiB), so that collections stay rare: each slides the live data.
  const uint64_t rest = unstored_nodes_.load(std::memory_order_relaxed) - nodes;
  const uint64_t limit = heap_.limit();
  const uint64_t margin = std::max<uint64_t>(limit / 16, uint64_t(16) << 20);
  double room =
      double(limit) - double(heap_.live_bytes() + margin) - rest_ratio * 64 * double(rest);
  // The slice below needs the plan's arena for its store beside this one, which may hold
  // only the plan's room for uncompressed blocks beyond its planned size (the stored blocks at
  // the planned share; incomplete ones held compressed count in full).
  const double stored = double(uncompressed_bytes_ / 64 - rest);
  room = std::min(
      room, double(raw_excess_bytes_) + raw_reserve_ratio_ * 64 * stored - double(held_.load()));
  return room > 0 ? uint64_t(room) : 0;
}

void block_store_t::store_complete(int flat, std::span<superinfo_t> values) {
  if (drop_complete_) {
    drop(flat);
    unstored_nodes_ -= values.size();
    return;
  }
  // Uncompressed only where the rest would still fit elided alone (at the share measured so
  // far; before any measure, at its raw size), so that the room goes to the cheap tier first.
  // Where elision gains nothing (nodes without repeats), the tier is empty: the plan's reserve.
  // Never where the plan keeps complete blocks elided first.
  const uint64_t seen = elided_seen_nodes_.load(std::memory_order_relaxed);
  const double elided_share = measured_elided_share();
  const double rest_ratio = elided_share < 1 ? std::max(raw_reserve_ratio_, elided_share)
                            : seen           ? raw_reserve_ratio_
                                             : 1;
  const size_t raw = raw_block_bytes(values.size());
  if (!elided_first_ && raw <= room_for(values.size(), rest_ratio)) {
    heap_.set_filled(group_, flat, raw, [&](uint8_t* array) { fast_store_raw(values, array); });
    held_changed(flat, uint32_t(raw));
    raw_bytes_ += raw;
    raw_nodes_ += values.size();
  } else {
    const size_t elided =
        store_compressed(flat, values, codec_, room_for(values.size(), raw_reserve_ratio_));
    if (elided) {
      elided_seen_bytes_ += elided;
      elided_seen_nodes_ += values.size();
    }
  }
  unstored_nodes_ -= values.size();
}

double block_store_t::codec_ratio() const {
  const uint64_t nodes = uncompressed_bytes_ / 64 - raw_nodes_.load();
  if (!nodes) return 0;
  return double(held_.load() - raw_bytes_.load()) / (64 * double(nodes));
}

void block_store_t::drop(int flat) {
  if (!held_size_[flat]) return;
  heap_.set(group_, flat, nullptr, 0);
  held_changed(flat, 0);
}

void block_store_t::drop_complete_blocks() {
  PENTAGO_CHECK(!frozen_, "drop_complete_blocks on a frozen block store");
  drop_complete_ = true;
}

void block_store_t::complete_block(int flat, std::span<const superinfo_t> values) {
  const auto& k = keys_[flat];
  const section_counts_t c = count_block(sections_[k.section], k.block, values);
  std::vector<sample_t> found;
  const auto& slots = block_samples_[flat];
  for (const auto& slot : slots) {
    const section_t& s = sections_[slot.section];
    const auto bs = block_shape(s, k.block);
    std::array<int, 4> index;
    int rest = slot.offset;
    for (int q = 3; q >= 0; q--) index[q] = block_size * k.block[q] + rest % bs[q], rest /= bs[q];
    found.push_back({slot.section, slot.draw, section_board(s, index), values[slot.offset]});
  }
  std::lock_guard<std::mutex> lock(results_mutex_);
  for (int i = 0; i < 3; i++) counts_[k.section][i] += c[i];
  samples_.insert(samples_.end(), found.begin(), found.end());
}

void block_store_t::attach_pool() {
  int largest = 0;
  for (int f = 0; f < int(keys_.size()); f++) largest = std::max(largest, nodes(f));
  if (largest) pool_->set_buffer_nodes(size_t(largest));
  section_blocks_.clear();
  section_open_.clear();
  for (const auto& s : sections_) {
    section_blocks_.push_back(section_blocks(s));
    section_open_.push_back(s.open_quadrants());
  }
  section_rank_ = section_completion_ranks(slice_lines_t(sections_));
  cache_ = std::make_unique<input_cache_t>(*pool_);
}

uint64_t block_store_t::next_time(int flat, uint8_t dims) const {
  // The next of the block's lines to come, at its place in completion order.
  const block_key_t& k = keys_[flat];
  uint64_t t = UINT64_MAX;
  for (int d = 0; d < 4; d++) {
    if (!(dims >> d & 1)) continue;
    std::array<uint8_t, 3> base;
    for (int a = 0, j = 0; a < 4; a++)
      if (a != d) base[j++] = uint8_t(k.block[a]);
    t = std::min(t, completion_time(section_rank_[k.section], section_blocks_[k.section],
                                    section_open_[k.section], d, base));
  }
  return t;
}

void block_store_t::track_buffer(int flat, uint8_t dims_before, uint8_t dims_after) {
  const std::lock_guard<std::mutex> lock(evict_mutex_);
  if (dims_before) by_next_time_.erase({next_time(flat, dims_before), flat});
  if (dims_after) by_next_time_.insert({next_time(flat, dims_after), flat});
}

void block_store_t::lend_freed_arena(arena_lending_t& lending) {
  PENTAGO_CHECK(!frozen_ && pool_, "lend_freed_arena needs an unfrozen store with a pool");
  lending_ = &lending;
  // The input cache's copies, read back often enough to deserve fresh buffers, take the freed
  // arena as well: in the whole game's slice 33 they hold most of it.
  cache_->set_grow([this] { return lending_->step(); });
}

uint64_t block_store_t::arena_lent_bytes() const { return lending_ ? lending_->lent_freed() : 0; }

superinfo_t* block_store_t::take_buffer(int flat, uint8_t left) {
  // A free buffer, then an input cache copy's, and only then fresh pages.
  if (superinfo_t* b = pool_->take_free()) return b;
  if (superinfo_t* b = cache_->reclaim()) return b;
  if (elided_first_) {
    // Where the plan keeps blocks elided first, pages touched already come next; then the
    // block is kept elided in the arena where its room holds the elided form at the share
    // measured so far (a third of the bytes, no fresh pages of the pool's own), else the
    // arena's freed top is lent to the pool.
    if (superinfo_t* b = pool_->take_resident()) return b;
    const double raw = double(raw_block_bytes(size_t(nodes(flat))));
    if (double(partial_elided_room(flat)) >= measured_elided_share() * raw) return nullptr;
    if (lending_ && lending_->step())
      if (superinfo_t* b = pool_->take_resident()) return b;
  }
  if (superinfo_t* b = pool_->take()) return b;
  if (lending_ && lending_->step())
    if (superinfo_t* b = pool_->take()) return b;
  const uint64_t mine = next_time(flat, left);
  int victim;
  {
    const std::lock_guard<std::mutex> lock(evict_mutex_);
    if (by_next_time_.empty() || by_next_time_.rbegin()->first <= mine) return nullptr;
    victim = by_next_time_.rbegin()->second;
  }
  // Never wait for another block's lock here (its holder may be waiting for this one's).
  if (victim == flat || !locks_[victim].try_lock()) return nullptr;
  superinfo_t* b = partial_[victim];
  const uint8_t dims = missing_dims_[victim].load(std::memory_order_relaxed);
  if (b && next_time(victim, dims) > mine) {
    track_buffer(victim, dims, 0);
    hold(victim, fast_compress_view(std::span<superinfo_t>(b, size_t(nodes(victim))),
                                    partial_codec_, partial_elided_room(victim)));
    partial_[victim] = nullptr;
    evictions_++;
  } else {
    b = nullptr;  // completed or needed sooner since it was chosen
  }
  locks_[victim].unlock();
  return b;
}

namespace {

// Writes a contribution computed already (`values`) where `out` asks (accumulate_computed): in
// place, merged with `out.merge_with`; or into a held block, streamed or merged into it.
void write_computed(std::span<superinfo_t> values, const line_output_t& out) {
  if (out.nodes == values.data()) {
    if (out.merge_with)
      merge_into(values, std::span<const superinfo_t>(out.merge_with, values.size()));
    return;
  }
  const std::span<superinfo_t> held(out.nodes, values.size());
  if (out.merge_with == out.nodes) {
    merge_into(held, values);
    return;
  }
  PENTAGO_CHECK(!out.merge_with, "a contribution merged with a third block");
  // The held block is next read at a later line: stream it out rather than through the cache
  // (no read of its old contents, the kernel's working set stays cached).
  if (out.stream)
    stream_copy(held.data(), values.data(), values.size_bytes());
  else
    std::copy(values.begin(), values.end(), held.begin());
}

}  // namespace

void block_store_t::accumulate(int flat, int dimension, std::span<superinfo_t> values) {
  // The callback captures one pointer, which std::function holds without allocating.
  struct call_t {
    const block_store_t& store;
    int flat;
    std::span<superinfo_t> values;
  } call{*this, flat, values};
  accumulate_computed(flat, dimension, values, [c = &call](const line_output_t& out) {
    write_computed(c->values, out);
    if (out.finish)
      finish_block(c->store.section(c->flat), c->store.key(c->flat).block,
                   std::span(out.nodes, c->values.size()));
  });
}

void block_store_t::accumulate_computed(int flat, int dimension, std::span<superinfo_t> values,
                                        const std::function<void(const line_output_t&)>& compute) {
  PENTAGO_CHECK(!frozen_, "accumulate into a frozen block store");
  PENTAGO_CHECK(int(values.size()) == nodes(flat), "contribution has the wrong size");
  // Held while the contribution is computed: it may be computed into this block's buffer.
  const std::lock_guard<element_lock_t> guard(locks_[flat]);
  const uint8_t dims = missing_dims_[flat].load(std::memory_order_relaxed);
  if (!(dims >> dimension & 1))
    throw pentago_error_t("block " + section(flat).name() + " received dimension " +
                          std::to_string(dimension) + " twice or for a full quadrant");
  const bool first = dims == section(flat).open_quadrants();
  const uint8_t left = uint8_t(dims & ~(1 << dimension));
  superinfo_t*& partial = partial_[flat];
  if (!partial && left && pool_ && (partial = take_buffer(flat, left))) {
    track_buffer(flat, 0, left);
    // More contributions will come and the budget has room: hold the block uncompressed from
    // now on (a block that got no buffer at its first contribution may get one later). The
    // first is streamed into it (it is next read at a later line: no read of the buffer's old
    // contents, and the kernel's working set stays cached); a later one merges into it.
    if (first) {
      compute(line_output_t{partial, nullptr, true});
    } else {
      const std::span<superinfo_t> held(partial, values.size());
      heap_.with_array(group_, flat,
                       [&](std::span<const uint8_t> stored) { fast_uncompress(stored, held); });
      drop(flat);
      compute(line_output_t{partial, partial});
    }
    missing_dims_[flat].store(left, std::memory_order_relaxed);
    missing_--;
    return;
  }
  if (partial) {
    // A middle contribution merges into the held block. The last one is written to `values`
    // merged with the held block, which it only reads: counting and compressing then read
    // cached data, and the held block is never written back.
    // The last line also takes the recurrence's last step: the block is then complete.
    compute(line_output_t{left ? partial : values.data(), partial, false, !left});
    track_buffer(flat, dims, left);
  } else if (!first && left) {
    compute(line_output_t{values.data()});
    // Merge in the filtered form (the filter commutes with OR): one filter pass, not two.
    interleave(values);
    const auto old = scratch_span(scratch_nodes, values.size());
    heap_.with_array(group_, flat, [&](std::span<const uint8_t> stored) {
      fast_uncompress_filtered(stored, old);
    });
    merge_into(values, old);
    hold_incomplete(flat,
                    fast_compress_filtered_view(values, partial_codec_, partial_elided_room(flat)));
    missing_dims_[flat].store(left, std::memory_order_relaxed);
    missing_--;
    return;
  } else if (!first) {
    // The last line merges with the held block, decompressed first, and completes it.
    const auto old = scratch_span(scratch_nodes, values.size());
    heap_.with_array(group_, flat,
                     [&](std::span<const uint8_t> stored) { fast_uncompress(stored, old); });
    compute(line_output_t{values.data(), old.data(), false, true});
  } else {
    compute(line_output_t{values.data(), nullptr, false, !left});
  }
  missing_dims_[flat].store(left, std::memory_order_relaxed);
  if (!left) {
    complete_block(flat, values);
    store_complete(flat, values);
    if (partial) {
      pool_->give(partial);
      partial = nullptr;
    }
  } else if (!partial) {
    hold_incomplete(flat, fast_compress_view(values, partial_codec_, partial_elided_room(flat)));
  }
  missing_--;
}

void block_store_t::set(int flat, std::span<superinfo_t> values) {
  PENTAGO_CHECK(!frozen_, "set in a frozen block store");
  PENTAGO_CHECK(int(values.size()) == nodes(flat), "block has the wrong size");
  const std::lock_guard<element_lock_t> guard(locks_[flat]);
  const uint8_t dims = missing_dims_[flat].exchange(0);
  missing_ -= popcount(dims);
  complete_block(flat, values);
  store_complete(flat, values);
}

void block_store_t::read(int flat, std::span<superinfo_t> out) const {
  PENTAGO_CHECK(int(out.size()) == nodes(flat), "read buffer has the wrong size");
  PENTAGO_CHECK(!drop_complete_, "read from a block store that drops complete blocks");
  if (frozen_) {  // read under the heap's locks: released neighbours may move this block
    heap_.with_array(group_, flat,
                     [&](std::span<const uint8_t> bytes) { fast_uncompress(bytes, out); });
    return;
  }
  const std::lock_guard<element_lock_t> guard(locks_[flat]);
  heap_.with_array(group_, flat,
                   [&](std::span<const uint8_t> bytes) { fast_uncompress(bytes, out); });
}

std::span<const uint8_t> block_store_t::compressed(int flat) const {
  PENTAGO_CHECK(frozen_, "compressed bytes of a store that is not frozen");
  PENTAGO_CHECK(!drop_complete_, "compressed bytes of a block store that drops complete blocks");
  return heap_.frozen_data(group_, flat);
}

void block_store_t::read_compressed(int flat, std::vector<uint8_t>& out) const {
  PENTAGO_CHECK(frozen_, "read_compressed on a store that is not frozen");
  heap_.get(group_, flat, out);
}

size_t block_store_t::read_compressed(int flat, std::span<uint8_t> out) const {
  PENTAGO_CHECK(frozen_, "read_compressed on a store that is not frozen");
  return heap_.with_array(group_, size_t(flat), [&](std::span<const uint8_t> bytes) {
    PENTAGO_CHECK(bytes.size() <= out.size(), "a compressed block larger than its buffer");
    std::memcpy(out.data(), bytes.data(), bytes.size());
    return bytes.size();
  });
}

void block_store_t::release(int flat) {
  PENTAGO_CHECK(frozen_, "release on a store that is not frozen");
  heap_.release(group_, flat);
  held_changed(flat, 0);
}

void block_store_t::expect_reads(const std::vector<int>& readers) {
  PENTAGO_CHECK(frozen_, "expect_reads on a store that is not frozen");
  PENTAGO_CHECK(readers.size() == sections_.size(), "expect_reads: one count per section");
  reads_left_.reset(new std::atomic<int>[keys_.size()]);
  for (size_t f = 0; f < keys_.size(); f++) reads_left_[f] = readers[keys_[f].section];
}

int block_store_t::read_done(int flat) {
  PENTAGO_CHECK(reads_left_, "read_done before expect_reads");
  const int left = --reads_left_[flat];
  if (left == 0) release(flat);
  if (left < 0) throw pentago_error_t("input block " + section(flat).name() + " read too often");
  return left;
}

void block_store_t::plan_input_reads(int above_blocks,
                                     std::span<const std::pair<int, uint32_t>> reads) {
  read_offsets_.assign(size_t(above_blocks) + 1, 0);
  for (const auto& [flat, place] : reads) {
    PENTAGO_CHECK(flat >= 0 && flat < above_blocks, "planned read of a block not above");
    read_offsets_[size_t(flat) + 1]++;
  }
  for (size_t f = 0; f < size_t(above_blocks); f++) read_offsets_[f + 1] += read_offsets_[f];
  read_places_.resize(reads.size());
  std::vector<uint32_t> end(read_offsets_.begin(), read_offsets_.end() - 1);
  for (const auto& [flat, place] : reads) read_places_[end[size_t(flat)]++] = place;
  for (size_t f = 0; f < size_t(above_blocks); f++)
    std::sort(read_places_.begin() + read_offsets_[f], read_places_.begin() + read_offsets_[f + 1]);
}

void block_store_t::plan_input_reads(
    std::span<const line_t> lines, const slice_lines_t& above_lines, const block_store_t& above,
    const std::function<bool(const section_t&, const block_t&)>& here) {
  std::vector<std::pair<int, uint32_t>> reads;
  for (size_t place = 0; place < lines.size(); place++) {
    const line_dependency_t dep = line_dependency_of(lines[place]);
    const int child = above_lines.section_index(dep.child);
    PENTAGO_CHECK(child >= 0, "child section missing from the slice above");
    for (int b = 0; b < dep.input.length(); b++) {
      const block_t block = dep.input.block(b);
      if (!here || here(dep.child, block))
        reads.push_back({above.flat_id(child, block), uint32_t(place)});
    }
  }
  plan_input_reads(above.blocks(), reads);
}

const superinfo_t* block_store_t::read_input(block_store_t& above, int flat,
                                             std::span<superinfo_t> out, uint32_t place,
                                             input_pin_t& pin) {
  PENTAGO_CHECK(&above != this, "read_input from the store itself");
  PENTAGO_CHECK(size_t(flat) + 1 < read_offsets_.size(), "read_input of a block not planned");
  input_reads_++;
  // The next planned read after this line's (none where the rest go to other ranks).
  const auto first = read_places_.begin() + read_offsets_[size_t(flat)];
  const auto last = read_places_.begin() + read_offsets_[size_t(flat) + 1];
  const auto next = std::upper_bound(first, last, place);
  const superinfo_t* nodes = cache_ ? cache_->pin(flat, out.size()) : nullptr;
  const bool hit = nodes;
  if (hit) {
    pin = input_pin_t(*cache_, flat);
  } else if (superinfo_t* copy = cache_ && next != last && !above.holds_uncompressed(flat)
                                     ? cache_->reserve(flat, out.size(), *next)
                                     : nullptr) {
    pin = input_pin_t(*cache_, flat);
    above.read_or_compute(flat, std::span<superinfo_t>(copy, out.size()));
    cache_->filled(flat);
    nodes = copy;
  } else {
    above.read_or_compute(flat, out);
    nodes = out.data();
  }
  // A recomputed store holds nothing to release: its copies go after their last planned read.
  const int left = above.drops_complete_blocks() ? 1 : above.read_done(flat);
  if (!cache_) return nodes;
  if (!left || next == last)
    cache_->forget(flat);
  else if (hit)
    cache_->reschedule(flat, *next);
  return nodes;
}

bool block_store_t::holds_uncompressed(int flat) const {
  // Every other form is smaller (fast_compress keeps a codec's or elision's output only where
  // it is).
  return held_size_[size_t(flat)] == raw_block_bytes(size_t(nodes(flat)));
}

void block_store_t::read_or_compute(int flat, std::span<superinfo_t> out) const {
  if (drop_complete_)
    compute_block_again(section(flat), keys_[size_t(flat)].block, out);
  else
    read(flat, out);
}

void block_store_t::check_reads_done() const {
  PENTAGO_CHECK(reads_left_, "check_reads_done before expect_reads");
  for (int f = 0; f < blocks(); f++)
    if (reads_left_[f] != 0)
      throw pentago_error_t("input block " + section(f).name() + " was read " +
                            std::to_string(reads_left_[f].load()) + " times fewer than planned");
}

void block_store_t::freeze() {
  if (missing_ != 0)
    throw pentago_error_t("slice incomplete: " + std::to_string(missing_.load()) +
                          " block contributions never arrived");
  if (cache_) cache_->clear();
  heap_.freeze(group_);
  frozen_ = true;
}

std::vector<section_counts_t> block_store_t::counts() const {
  std::lock_guard<std::mutex> lock(results_mutex_);
  return counts_;
}

std::vector<sample_t> block_store_t::samples() const {
  std::lock_guard<std::mutex> lock(results_mutex_);
  auto s = samples_;
  std::sort(s.begin(), s.end(), [](const sample_t& a, const sample_t& b) {
    return a.section != b.section ? a.section < b.section : a.draw < b.draw;
  });
  return s;
}

uint64_t block_store_t::compressed_bytes() const { return held_.load(); }

void compute_and_accumulate(block_store_t& store, int flat, const line_dependency_t& dep,
                            std::span<const superinfo_t* const> inputs, int k,
                            std::span<superinfo_t> scratch, worker_pool_t& pool) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  // The callback captures one pointer, which std::function holds without allocating.
  struct call_t {
    const line_dependency_t& dep;
    std::span<const superinfo_t* const> inputs;
    int k;
    double seconds = 0;
  } call{dep, inputs, k};
  store.accumulate_computed(
      flat, dep.output.dimension, scratch, [c = &call](const line_output_t& out) {
        const auto kernel = clock::now();
        compute_line_block(c->dep, c->inputs, c->k, out);
        c->seconds = std::chrono::duration<double>(clock::now() - kernel).count();
      });
  pool.add_time(activity_t::compute, call.seconds);
  pool.add_time(activity_t::accumulate,
                std::chrono::duration<double>(clock::now() - start).count() - call.seconds);
}

}  // namespace pentago
