// Decoded input blocks kept for their next reader. A slice reads each block of the slice above
// once per line that needs it (3.9 times on average at 33 stones), and decoding is most of the
// reading. A line that reads an input block which more of this rank's lines will read decodes
// it into a free buffer of the slice's partial pool (reserve); later readers use that copy
// where it lies instead of decoding (pin), each holding it until its line is computed
// (input_pin_t). Where copies are seldom read back, most reservations are declined.
// Each copy carries its next read: the place, in the rank's line order, of the next line that
// reads it (the order is fixed before the slice starts: block_store_t::plan_input_reads). When
// buffers run short the copy read last gives way, and a block read later than every copy held
// is not kept: the furthest next use goes first, which on the whole game's slice 33 leaves a
// third fewer blocks to decode than dropping the least recently used copy
// (input_reuse_bench).
// The cache takes buffers that are carved and free, and fresh ones within the pool's budget
// only while most of its copies are read back (a fresh buffer costs its first touch, and then
// serves copy after copy); where the budget is spent, it asks the store to grow the pool with
// the arena freed by the inputs already released (set_grow: on the whole game's slice 33, 6.3
// GiB lent, 71% of the reads served by copies instead of 58%). The partial blocks take the copies
// read last back first (reclaim), so it never adds to the plan's memory. The lines run with
// sections that read the same children next to each other (line_order.h), which brings a block's
// readers close together. Thread safe.
#pragma once
#include <cstdint>
#include <functional>
#include <mutex>
#include <set>
#include <span>
#include <unordered_map>
#include <utility>

#include "pentago/base/super.h"
#include "pentago/end/buffer_pool.h"

namespace pentago {

class input_cache_t {
 public:
  explicit input_cache_t(buffer_pool_t& pool) : pool_(pool) {}
  // Where the pool has no buffer left to carve for a copy worth a fresh buffer, `grow` may add
  // room to it (the block store's arena lending: arena_lending_t::step); it says whether it did.
  void set_grow(std::function<bool()> grow) { grow_ = std::move(grow); }
  // Gives back every buffer not pinned (after a failure a reader may still hold one: its
  // buffer is left out of the pool rather than handed out under it).
  ~input_cache_t();
  input_cache_t(const input_cache_t&) = delete;
  input_cache_t& operator=(const input_cache_t&) = delete;

  // If block `key` is held and filled, pins it for a reader that uses it where it lies and
  // returns its nodes (exactly `nodes` of them); null otherwise. release(key) drops the pin.
  const superinfo_t* pin(int key, size_t nodes);
  // A buffer for a copy of a block whose next read is at `next_read` (a place in the line
  // order), which the caller fills with the block's `nodes` nodes and then announces with
  // filled(key); pinned for the caller until release(key). It is a free buffer of the pool,
  // else (when at least half of 64 or more copies were read back) a fresh one within the pool's
  // budget, else the buffer of the copy read last if that is read after this block; null
  // otherwise, if the block is larger than the pool's buffers, or if the block is held already
  // (another reader's copy: its next read moves to `next_read` if that is later).
  superinfo_t* reserve(int key, size_t nodes, uint32_t next_read);
  void filled(int key);   // the reserved copy holds the nodes: later readers may pin it
  void release(int key);  // drops one pin (pin or reserve)
  // After pin served a read, the copy's next read is at `next_read` (or later, where a later
  // reader already said so: reads of a block on several threads may end out of order). A
  // reserve of a block already held does the same.
  void reschedule(int key, uint32_t next_read);
  // No more reads of the block will come here: its copy's buffer goes back to the pool.
  void forget(int key);
  // The buffer of the copy read last, for the pool's other users (the caller gives it back to
  // the pool), or null when no copy is free to go.
  superinfo_t* reclaim();
  // Every buffer back to the pool (no copy may be pinned).
  void clear();

  uint64_t hits() const { return hits_; }            // reads served by a copy
  uint64_t copies() const { return copies_; }        // copies kept
  uint64_t reclaimed() const { return reclaimed_; }  // copies whose buffer went to a partial block

 private:
  struct entry_t {
    superinfo_t* buffer;
    size_t nodes;
    int pins = 1;        // readers holding it (the reserver's own while it fills the buffer)
    bool ready = false;  // filled
    bool dead = false;   // forgotten while pinned: freed by the last unpin
    uint32_t next_read;  // its place in by_next_read_, unless dead
  };
  // Takes the unpinned copy read last out if its next read comes after `after` (-1: any)
  // (mutex held); its buffer, or null.
  superinfo_t* take_read_last(int64_t after);
  // Moves a live entry's next read to `next_read` if that is later (mutex held).
  void move_next_read(int key, entry_t& e, uint32_t next_read);
  // Drops one pin of `key` (mutex held), freeing a dead entry's buffer with the last.
  void unpin(int key);

  buffer_pool_t& pool_;
  std::function<bool()> grow_;
  std::mutex mutex_;
  std::unordered_map<int, entry_t> entries_;
  std::set<std::pair<uint32_t, int>> by_next_read_;  // (next read, key) of every live copy
  uint64_t hits_ = 0, copies_ = 0, reclaimed_ = 0, skipped_ = 0;
};

// One pin of an input cache copy (pin or reserve), released when reset or destroyed.
class input_pin_t {
 public:
  input_pin_t() = default;
  input_pin_t(input_cache_t& cache, int key) : cache_(&cache), key_(key) {}
  input_pin_t(input_pin_t&& other) noexcept : cache_(other.cache_), key_(other.key_) {
    other.cache_ = nullptr;
  }
  input_pin_t& operator=(input_pin_t&& other) noexcept {
    if (this != &other) {
      reset();
      cache_ = std::exchange(other.cache_, nullptr);
      key_ = other.key_;
    }
    return *this;
  }
  ~input_pin_t() { reset(); }
  void reset() {
    if (cache_) std::exchange(cache_, nullptr)->release(key_);
  }

 private:
  input_cache_t* cache_ = nullptr;
  int key_ = 0;
};

}  // namespace pentago
