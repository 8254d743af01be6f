// Node buffers carved from mmap chunks and reused (see buffer_pool.h).
#include "pentago/end/buffer_pool.h"

#include <unistd.h>

#include <algorithm>

#include "pentago/util/error.h"
#include "pentago/util/huge_pages.h"

namespace pentago {

buffer_pool_t::buffer_pool_t(uint64_t budget, size_t max_nodes, page_size_t pages)
    : budget_(budget),
      max_nodes_(max_nodes),
      pages_(pages),
      size_(max_nodes * sizeof(superinfo_t)) {}

buffer_pool_t::~buffer_pool_t() {
  for (const auto& c : chunks_)
    if (c.owned) unmap_pages(c.memory, c.size);
}

void buffer_pool_t::set_buffer_nodes(size_t nodes) {
  PENTAGO_CHECK(nodes >= 1 && nodes <= max_nodes_, "pool buffer size out of range");
  std::lock_guard<std::mutex> lock(mutex_);
  const size_t size = nodes * sizeof(superinfo_t);
  if (size == size_) return;
  PENTAGO_CHECK(out_ == 0, "pool buffer size changed while buffers are out");
  size_ = size;
  carve_from_start();
}

void buffer_pool_t::carve_from_start() {
  free_.clear();
  for (chunk_t& c : chunks_) c.used = 0;
  carved_ = 0;
}

uint64_t buffer_pool_t::budget() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return budget_;
}

void buffer_pool_t::set_budget(uint64_t budget) {
  std::lock_guard<std::mutex> lock(mutex_);
  PENTAGO_CHECK(out_ == 0, "pool budget changed while buffers are out");
  budget_ = budget;
  std::erase_if(chunks_, [&](const chunk_t& c) {
    if (c.owned) return false;
    mapped_ -= c.size;
    return true;
  });
  while (!chunks_.empty() && mapped_ > budget_) {
    unmap_pages(chunks_.back().memory, chunks_.back().size);
    mapped_ -= chunks_.back().size;
    chunks_.pop_back();
  }
  carve_from_start();
  high_ = 0;
}

void buffer_pool_t::add_chunk(std::span<uint8_t> memory) {
  std::lock_guard<std::mutex> lock(mutex_);
  chunks_.push_back({memory.data(), memory.size(), false, 0, 0});
  mapped_ += memory.size();
  budget_ += memory.size();
}

size_t buffer_pool_t::buffer_nodes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return size_ / sizeof(superinfo_t);
}

superinfo_t* buffer_pool_t::take() {
  if (superinfo_t* b = take_free()) return b;
  std::lock_guard<std::mutex> lock(mutex_);
  return carve(false);
}

superinfo_t* buffer_pool_t::take_resident() {
  if (superinfo_t* b = take_free()) return b;
  std::lock_guard<std::mutex> lock(mutex_);
  return carve(true);
}

superinfo_t* buffer_pool_t::carve(bool resident) {
  if (carved_ + size_ > budget_) return nullptr;
  // Lent chunks first (their pages are resident already), then the pool's own in order.
  const auto first_with_room = [&](bool owned) -> chunk_t* {
    for (chunk_t& k : chunks_)
      if (k.owned == owned && k.size - k.used >= size_ &&
          (!resident || !owned || k.used + size_ <= k.touched))
        return &k;
    return nullptr;
  };
  chunk_t* c = first_with_room(false);
  if (!c) c = first_with_room(true);
  if (!c && resident) return nullptr;
  if (!c) {
    const uint64_t chunk =
        std::min<uint64_t>(uint64_t(64) << 20, budget_ - mapped_) / size_ * size_;
    if (!chunk) return nullptr;
    void* p = map_pages(chunk, pages_);
    if (!p) return nullptr;
    chunks_.push_back({p, chunk, true, 0, 0});
    mapped_ += chunk;
    c = &chunks_.back();
  }
  // A lent chunk is carved from its end down, so that its start, next to its owner's memory,
  // stays free the longest and can be given back (give_back_lent).
  uint8_t* const base = static_cast<uint8_t*>(c->memory);
  auto* b =
      reinterpret_cast<superinfo_t*>(c->owned ? base + c->used : base + c->size - c->used - size_);
  c->used += size_;
  if (first_touch_ && c->used > c->touched) {
    // The buffer's pages and the rest of their piece, which the next buffers take: from the
    // start of the pool's own chunk, from the end down of a lent one.
    const size_t piece = first_touch_chooser_t::chunk_bytes;
    const size_t end = std::min(c->size, (c->used + piece - 1) / piece * piece);
    first_touch_->make_resident(c->owned ? base + c->touched : base + c->size - end,
                                end - c->touched);
    c->touched = end;
  }
  c->touched = std::max(c->touched, c->used);
  carved_ += size_;
  high_ = std::max(high_, carved_);
  out_++;
  return b;
}

superinfo_t* buffer_pool_t::take_free() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (free_.empty()) return nullptr;
  superinfo_t* b = free_.back();
  free_.pop_back();
  out_++;
  return b;
}

void buffer_pool_t::give(superinfo_t* buffer) {
  std::lock_guard<std::mutex> lock(mutex_);
  free_.push_back(buffer);
  out_--;
}

size_t buffer_pool_t::give_back_lent(const uint8_t* at, size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  for (chunk_t& c : chunks_) {
    if (c.owned || c.memory != at) continue;
    const size_t given = std::min(bytes, c.size - c.used) / page * page;
    c.memory = static_cast<uint8_t*>(c.memory) + given;
    c.size -= given;
    c.touched = std::min(c.touched, c.size);  // counted from the end
    mapped_ -= given;
    budget_ -= given;
    return given;
  }
  return 0;
}

uint64_t buffer_pool_t::carved_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return high_;
}

std::shared_ptr<superinfo_t> buffer_pool_t::take_shared() {
  superinfo_t* b = take();
  PENTAGO_CHECK(b, "no pool buffer: the plan's budget is used up, or mmap failed");
  return std::shared_ptr<superinfo_t>(b, [this](superinfo_t* p) { give(p); });
}

}  // namespace pentago
