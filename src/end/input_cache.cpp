// The decoded-input cache (input_cache.h): pool buffers ordered by their next read, pinned while
// filled or read.
#include "pentago/end/input_cache.h"

#include "pentago/util/error.h"

namespace pentago {

const superinfo_t* input_cache_t::pin(int key, size_t nodes) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = entries_.find(key);
  if (it == entries_.end() || !it->second.ready || it->second.dead) return nullptr;
  entry_t& e = it->second;
  PENTAGO_CHECK(e.nodes == nodes, "input cache: a block read at another size");
  e.pins++;
  hits_++;
  return e.buffer;
}

superinfo_t* input_cache_t::reserve(int key, size_t nodes, uint32_t next_read) {
  if (nodes > pool_.buffer_nodes()) return nullptr;
  std::lock_guard<std::mutex> lock(mutex_);
  if (const auto it = entries_.find(key); it != entries_.end()) {
    // Another reader's copy, made or being made.
    if (!it->second.dead) move_next_read(key, it->second, next_read);
    return nullptr;
  }
  // While fewer than one copy in six is read back (after the first 64), only one reservation
  // in eight is taken, which keeps measuring: the buffers serve partial blocks better.
  if (copies_ >= 64 && hits_ * 6 < copies_ && skipped_++ % 8) return nullptr;
  // A free buffer; where most copies are read back (after the first 64), else a fresh one
  // within the pool's budget, which is worth its first touch: it serves copy after copy.
  // The partial blocks reclaim it like any other copy's.
  const bool carve = copies_ >= 64 && hits_ * 2 >= copies_;
  superinfo_t* buffer = carve ? pool_.take() : pool_.take_free();
  if (!buffer && carve && grow_ && grow_()) buffer = pool_.take();
  if (!buffer) buffer = take_read_last(next_read);
  if (!buffer) return nullptr;
  by_next_read_.insert({next_read, key});
  entries_.emplace(key, entry_t{buffer, nodes, 1, false, false, next_read});
  return buffer;
}

void input_cache_t::filled(int key) {
  std::lock_guard<std::mutex> lock(mutex_);
  entries_.at(key).ready = true;
  copies_++;
}

void input_cache_t::release(int key) {
  std::lock_guard<std::mutex> lock(mutex_);
  unpin(key);
}

void input_cache_t::reschedule(int key, uint32_t next_read) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = entries_.find(key);
  if (it == entries_.end() || it->second.dead) return;
  move_next_read(key, it->second, next_read);
}

void input_cache_t::move_next_read(int key, entry_t& e, uint32_t next_read) {
  // Reads of one block on several threads may report out of order: keep the later.
  if (next_read <= e.next_read) return;
  by_next_read_.erase({e.next_read, key});
  e.next_read = next_read;
  by_next_read_.insert({next_read, key});
}

void input_cache_t::forget(int key) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = entries_.find(key);
  if (it == entries_.end() || it->second.dead) return;
  entry_t& e = it->second;
  by_next_read_.erase({e.next_read, key});
  if (e.pins) {
    e.dead = true;
    return;
  }
  pool_.give(e.buffer);
  entries_.erase(it);
}

superinfo_t* input_cache_t::reclaim() {
  std::lock_guard<std::mutex> lock(mutex_);
  superinfo_t* buffer = take_read_last(-1);
  if (buffer) reclaimed_++;
  return buffer;
}

void input_cache_t::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& [key, e] : entries_) {
    PENTAGO_CHECK(!e.pins, "input cache cleared while a copy is in flight");
    pool_.give(e.buffer);
  }
  entries_.clear();
  by_next_read_.clear();
}

input_cache_t::~input_cache_t() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& [key, e] : entries_)
    if (!e.pins) pool_.give(e.buffer);
}

superinfo_t* input_cache_t::take_read_last(int64_t after) {
  for (auto it = by_next_read_.rbegin(); it != by_next_read_.rend() && int64_t(it->first) > after;
       ++it) {
    const auto found = entries_.find(it->second);
    if (found->second.pins) continue;
    superinfo_t* buffer = found->second.buffer;
    by_next_read_.erase(std::next(it).base());
    entries_.erase(found);
    return buffer;
  }
  return nullptr;
}

void input_cache_t::unpin(int key) {
  const auto it = entries_.find(key);
  entry_t& e = it->second;
  if (--e.pins || !e.dead) return;
  pool_.give(e.buffer);
  entries_.erase(it);
}

}  // namespace pentago
