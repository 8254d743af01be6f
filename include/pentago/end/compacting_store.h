// Compacting store (docs/design.md, "Line compute and the block store"): a fixed arena of
// variable-size byte arrays with a manual compacting collector, so fragmentation from recompressed
// blocks cannot exhaust memory.
//
// Design (and where it departs from the 2013 code):
// * One anonymous mmap of heap_size bytes (rounded up to 64), allocated once and never grown,
//   on base or transparent huge pages as the owner asks (util/huge_pages.h).
//   Arrays start at 64-byte aligned offsets and occupy align64(size) bytes.
// * At most two groups of arrays exist at once (the frozen previous slice and the current one).
//   Each array costs bytes_per_array = 16 bytes of table: offset, size and a 4-byte lock word.
// * Writes overwrite in place when align64(new size) <= align64(old size); otherwise they
//   bump-allocate, and the old bytes become garbage. When the bump pointer would pass the end
//   of the heap the writer collects; it also collects rather than touch pages no write has
//   touched yet, where garbage of at least an eighth of the bytes below the bump pointer
//   arrived since the last collection (a collection moves bytes within resident pages, where a
//   fresh page costs a fault). A collection fills holes: the arrays at the top move,
//   each into the lowest hole below it that holds it, until the top array finds none, so it
//   copies about as many bytes as it frees (where the holes lie at the bottom, as released
//   inputs do, sliding everything down would copy the whole live set each time). When the
//   holes that stay would waste more than a quarter of the room a full slide leaves, or the
//   write would still not fit, it runs the full slide instead: every live movable array slides
//   down, in address order, to just above the fixed frozen data. If that still leaves too
//   little room, or less than min_free_fraction of the heap would stay free (each write would
//   then collect, thrashing), set throws pentago::error("compacting store full: ...").
// * Locking: a writer-preferring reader/writer heap lock plus a per-array lock. Every array
//   access (set, read, size) holds the heap lock shared and the array's lock; bump allocation
//   is a lock-free compare-and-swap. Collections, freeze, create and destroy hold the heap lock
//   exclusively, so they never run beside an access and need no per-array locks (the 2013 code
//   took millions of spinlocks per collection). Lock order: heap, then one array; a thread
//   holds at most one array lock. The array lock (util's element_lock) spins briefly and then
//   sleeps on its word, so long reads under a reader do not burn CPU.
// * A frozen group never moves: freeze collects, and later collections start above the group.
//   Alone in the heap it is collected by filling holes (its extent may keep holes worth up to
//   a quarter of the free room); beside other frozen data it is slid right above it.
//   frozen_data returns a stable span without taking locks (e.g. for MPI send buffers).
//   Freezing requires every other unfrozen group to be empty (as in 2013, the usual order is
//   destroy the old slice, then freeze the new one).
// * Releasing single arrays of a frozen group (input blocks whose last reader is done) makes
//   the group movable: collections then move its live arrays too (arrays of the unfrozen group
//   may fill its holes), and frozen_data refuses it, so that readers lock.
// * Destroying a group frees its space at the next collection. A frozen group's space is
//   reclaimed once no frozen group above it remains (frozen groups stack at the bottom).
// * A collection allocates a temporary table of 16 bytes per live unfrozen array for sorting.
#pragma once
#include <pthread.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "pentago/util/first_touch.h"
#include "pentago/util/huge_pages.h"

namespace pentago {

// Names a group of arrays; ids of destroyed groups are detected and rejected.
struct group_id_t {
  int slot = -1;
  uint32_t generation = 0;
  friend bool operator==(const group_id_t&, const group_id_t&) = default;
};

// A snapshot of the store's counters. Sizes count 64-byte aligned bytes.
struct compacting_store_stats_t {
  size_t heap_size = 0;        // arena bytes
  size_t live_bytes = 0;       // bytes held by arrays of all groups
  size_t peak_live_bytes = 0;  // high-water mark of live_bytes
  size_t frozen_bytes = 0;     // bytes below the frozen watermark (never moved)
  size_t bump_bytes = 0;       // bump pointer: live bytes plus garbage since the last collection
  size_t bump_high_water = 0;  // highest bump pointer so far: the arena bytes ever touched
  uint64_t collections = 0;
  uint64_t allocated_bytes = 0;           // total bytes ever bump-allocated
  uint64_t moved_bytes = 0;               // total bytes moved by collections
  double free_ratio = 1;                  // (heap_size - live_bytes) / heap_size
  double last_collection_free_ratio = 1;  // free ratio right after the last collection
  size_t limit = 0;                       // compacting_store_t::limit
  uint64_t limit_raises = 0;              // writes that raised a lowered limit back
};

class compacting_store_t {
  struct array_entry_t;

 public:
  static constexpr size_t alignment = 64;
  static constexpr size_t max_groups = 2;
  static constexpr size_t bytes_per_array = 16;
  static constexpr size_t max_array_size = UINT32_MAX;
  static constexpr size_t align(size_t n) { return (n + alignment - 1) & ~(alignment - 1); }
  // Memory for a store of this heap size holding this many arrays.
  static constexpr size_t memory_usage(size_t heap_size, size_t arrays) {
    return align(heap_size) + bytes_per_array * arrays;
  }

  // Maps the arena. min_free_fraction is the least fraction of the heap that must stay free
  // after a collection and the write that triggered it (0 disables the check).
  // Its pages are `pages` (util/huge_pages.h).
  static constexpr double default_min_free_fraction = 0.02;
  explicit compacting_store_t(size_t heap_size,
                              double min_free_fraction = default_min_free_fraction,
                              page_size_t pages = page_size_t::base);
  ~compacting_store_t();
  compacting_store_t(const compacting_store_t&) = delete;
  compacting_store_t& operator=(const compacting_store_t&) = delete;

  size_t heap_size() const { return heap_size_; }
  // The bytes the heap may use, at most heap_size (all of it at first). Between slices
  // (nothing may use the store meanwhile): lowering it releases the mapped pages above it to
  // the system, so another pool may use that memory, and it never falls below the data held.
  // A write that does not fit under the limit even after a collection raises it back to
  // heap_size, or to where lend_top lent the top (counted in stats().limit_raises), rather
  // than fail; set_limit never goes above that either.
  void set_limit(size_t bytes);
  // Lends the top of the heap while the store is in use: the limit drops towards `bytes`
  // (page-rounded, never below the data held) until reclaim_lent, and the memory between the
  // new and the old limit (pages the heap touched stay resident) is returned for the caller
  // to use until then; a write that does not fit raises the limit back only up to it, and
  // then into what the lent reclaimer gives back (set_lent_reclaimer). Never
  // raises the limit; empty if it cannot drop. Thread safe.
  std::span<uint8_t> lend_top(size_t bytes);
  // Takes back all that lend_top lent, once the borrower is done with it (between slices:
  // nothing may use the store meanwhile). The pages come back as the borrower left them,
  // resident where touched, so lending and reclaiming fault nothing in; the limit stays where
  // it is until set_limit or a write raises it.
  void reclaim_lent();
  // Asked, while a write finds too little room under what was lent even after a collection,
  // for up to `bytes` of the lent memory that starts at `at` (the heap's end below the lent
  // pages); returns how many bytes from `at` up it gives back (whole pages, none still in use
  // by the borrower). The heap then grows into them and the write goes on (counted in
  // stats().limit_raises) instead of being refused. Called with the heap locked exclusively:
  // it must not call into the store. Set before the store is used; empty: none.
  using lent_reclaimer_t = std::function<size_t(uint8_t* at, size_t bytes)>;
  void set_lent_reclaimer(lent_reclaimer_t reclaimer) { reclaimer_ = std::move(reclaimer); }
  size_t limit() const { return limit_.load(std::memory_order_relaxed); }
  // Where set, each write that reaches pages the heap has not made resident first has
  // `chooser` fault in the chunks up to its end on the page size it chooses (first_touch.h:
  // --huge-pages auto). Set before the store is used; null: pages fault in as written.
  void set_first_touch(first_touch_chooser_t* chooser) { first_touch_ = chooser; }
  // Live bytes, and collections so far (each moves live arrays down over the space released
  // arrays held; only then does that space lie above the bump pointer, where lend_top can
  // lend it).
  size_t live_bytes() const { return live_bytes_.load(std::memory_order_relaxed); }
  uint64_t collections() const { return collections_.load(std::memory_order_relaxed); }

  // A new group of empty arrays. Throws if max_groups groups already exist.
  group_id_t create_group(size_t arrays);
  // Drops a group's arrays; their bytes are reclaimed by the next collection.
  void destroy_group(group_id_t group);
  size_t arrays(group_id_t group) const;
  bool frozen(group_id_t group) const;

  // Stores a copy of size bytes as array index of an unfrozen group. Thread safe. May collect;
  // throws pentago::error if the heap cannot hold it (the array is then left empty).
  void set(group_id_t group, size_t index, const void* bytes, size_t size);
  void set(group_id_t group, size_t index, std::span<const uint8_t> bytes) {
    set(group, index, bytes.data(), bytes.size());
  }
  // The same, with `fill` writing the array's size bytes in place (at a 64-byte aligned
  // address, under the array's lock) instead of a copy.
  using array_filler_t = std::function<void(uint8_t* array)>;
  void set_filled(group_id_t group, size_t index, size_t size, const array_filler_t& fill);
  // The current size of an array in bytes (0 if never set). Thread safe.
  size_t size(group_id_t group, size_t index) const;

  // Holds one array locked (and all arrays in place) while alive, so its bytes can be read.
  // While a reader lives, its thread must not call any other method of the store, and it must
  // be destroyed on the thread that created it.
  class reader_t {
   public:
    reader_t(reader_t&& other) noexcept;
    reader_t& operator=(reader_t&&) = delete;
    ~reader_t();
    std::span<const uint8_t> bytes() const { return {data_, size_}; }
    const uint8_t* data() const { return data_; }
    size_t size() const { return size_; }

   private:
    friend class compacting_store_t;
    reader_t(const compacting_store_t* store, array_entry_t* entry, const uint8_t* data,
             size_t size)
        : store_(store), entry_(entry), data_(data), size_(size) {}
    const compacting_store_t* store_;
    array_entry_t* entry_;
    const uint8_t* data_;
    size_t size_;
  };
  // Locks one array for reading. Thread safe; works for frozen and unfrozen groups.
  reader_t read(group_id_t group, size_t index) const;
  // Calls f(std::span<const uint8_t>) with the array locked; f must not call into the store.
  template <class F>
  decltype(auto) with_array(group_id_t group, size_t index, F&& f) const {
    const reader_t r = read(group, index);
    return f(r.bytes());
  }
  // Copies an array out. Thread safe.
  void get(group_id_t group, size_t index, std::vector<uint8_t>& out) const;

  // Collects (filling holes, or packing the group right above other frozen data) and marks
  // the group frozen: its arrays never move or change again until the group is destroyed or
  // an array is released. Throws if another unfrozen group holds data.
  void freeze(group_id_t group);
  // A frozen array's bytes: a stable span, read without locks. Throws if not frozen, or once
  // an array of the group has been released.
  std::span<const uint8_t> frozen_data(group_id_t group, size_t index) const;
  // Drops one array's bytes (frozen groups too: an input block whose last reader is done).
  // Thread safe. After the first release in a frozen group, collections compact that group
  // as well, so its arrays must be read through read()/with_array/get from then on.
  void release(group_id_t group, size_t index);

  // Runs a full collection (a slide in address order) now; set and freeze collect when needed.
  void collect();

  compacting_store_stats_t stats() const;

 private:
  struct group_table_t;

  group_table_t& checked_group(group_id_t group, const char* op) const;
  array_entry_t& checked_entry(group_id_t group, size_t index, const char* op) const;
  static void lock_entry(array_entry_t& entry);
  static void unlock_entry(array_entry_t& entry);
  void lock_shared() const;
  void unlock_shared() const;
  // Reserves n bytes at the bump pointer without locks; returns false if they do not fit.
  // Where `spare_fresh_pages`, a bump that would pass the highest bump so far and the pages
  // a first-touch chooser made resident (pages never touched) fails while garbage below makes
  // a collection worth it (fresh_pages_worth_sparing).
  bool try_bump(size_t n, size_t& offset, bool spare_fresh_pages);
  bool fresh_pages_worth_sparing(size_t next) const;
  // With a first-touch chooser: the heap's bytes below `end` resident before a write to them.
  void make_resident_below(size_t end);
  // The slow path of set, holding the heap lock exclusively.
  void set_exclusive(group_id_t group, size_t index, size_t size, const array_filler_t& fill);
  // Makes room above the live data. `full`: slides every array that may move down, in
  // address order (freeze, collect). Otherwise, for a write of `need` bytes, arrays from the
  // top move into the holes below them, which copies about as many bytes as it frees; the full
  // slide runs instead when the holes left would waste much of the room it gives.
  void collect_exclusive(bool full, size_t need);
  // The hole filling of collect_exclusive over the arrays that may move, sorted by address
  // (`base`: where they may start; `packed_top`: the top after a full slide). Returns the new
  // top, or SIZE_MAX (nothing moved) where the full slide should run instead.
  size_t fill_holes(const std::vector<std::pair<uint64_t, array_entry_t*>>& live, size_t base,
                    size_t packed_top, size_t need, uint64_t& moved);
  void add_live(size_t added, size_t removed);
  // `bytes` rounded up to whole pages, at least the bump pointer, at most `cap` (heap lock
  // held exclusively): where set_limit and lend_top put the limit.
  size_t limit_at(size_t bytes, size_t cap) const;
  // Whether a write of `need` bytes at the bump pointer `next` would pass `top` (the limit or
  // the ceiling), or leave less than min_free_fraction of it free.
  bool lacks_room(size_t top, size_t next, size_t need) const;

  size_t heap_size_;
  double min_free_fraction_;
  uint8_t* heap_;
  mutable pthread_rwlock_t heap_lock_;
  std::unique_ptr<group_table_t[]> groups_;
  uint32_t next_generation_ = 1;
  size_t frozen_end_ = 0;  // all frozen arrays lie in [0, frozen_end_)
  std::atomic<size_t> heap_next_{0};
  std::atomic<size_t> bump_high_water_{0};
  // The garbage below the bump pointer right after the last collection (holes it left).
  std::atomic<size_t> garbage_after_collection_{0};
  std::atomic<size_t> live_bytes_{0};
  std::atomic<size_t> peak_live_bytes_{0};
  std::atomic<uint64_t> collections_{0};
  std::atomic<uint64_t> allocated_bytes_{0};
  std::atomic<uint64_t> moved_bytes_{0};
  double last_collection_free_ratio_ = 1;  // written under the exclusive lock
  // The highest the limit may go: heap_size_ until lend_top lends the top (exclusive lock).
  size_t ceiling_;
  std::atomic<size_t> limit_;
  std::atomic<uint64_t> limit_raises_{0};
  lent_reclaimer_t reclaimer_;
  first_touch_chooser_t* first_touch_ = nullptr;
  std::mutex resident_mutex_;              // held while the chooser faults chunks in
  std::atomic<size_t> resident_bytes_{0};  // below it the chooser made every page resident
};

}  // namespace pentago
