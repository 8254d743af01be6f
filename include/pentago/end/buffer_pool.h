// Reusable uncompressed node buffers of one size, carved from anonymous mmap chunks of at most
// 64 MiB without zero fill, up to a byte budget: the block store's incomplete blocks (the
// partial pool) and the MPI flow's line buffers (inputs, received bytes, output blocks). The
// buffer size is set per slice (set_buffer_nodes, at most the pool's max_nodes), so slices of
// small blocks hold more of them. A pool outlives single slices and carves its chunks again
// for each new size, so its pages are faulted in once per run and its resident memory never
// exceeds the budget; unlike the allocator's per-thread heaps, a buffer freed by one thread is
// taken again by any other. Thread safe.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <utility>
#include <vector>

#include "pentago/base/super.h"
#include "pentago/util/first_touch.h"
#include "pentago/util/huge_pages.h"

namespace pentago {

class buffer_pool_t {
 public:
  static constexpr size_t block_nodes = 4096;  // a full 8^4 block, the default max_nodes
  static constexpr size_t block_bytes = block_nodes * sizeof(superinfo_t);
  // Chunks of `pages` (util/huge_pages.h). Huge for the buffers that MPI sends between ranks on
  // a node: its single-copy transfers pin every page they read, and a huge page is one pin.
  explicit buffer_pool_t(uint64_t budget, size_t max_nodes = block_nodes,
                         page_size_t pages = page_size_t::base);
  ~buffer_pool_t();
  buffer_pool_t(const buffer_pool_t&) = delete;
  buffer_pool_t& operator=(const buffer_pool_t&) = delete;

  // The size of the buffers handed out from now on, 1 to max_nodes nodes; only while no
  // buffer is out (between slices). A new size carves the chunks again from their start.
  void set_buffer_nodes(size_t nodes);
  size_t buffer_nodes() const;
  uint64_t buffer_bytes() const { return buffer_nodes() * sizeof(superinfo_t); }
  superinfo_t* take();  // nullptr when the budget is used up
  // A buffer given back earlier, never a newly carved one (no fresh pages); nullptr if none.
  superinfo_t* take_free();
  // A buffer whose pages were touched already: a free one, or one carved from a lent chunk or
  // from the part of the pool's own chunks that earlier buffers covered (a slice before, at
  // another size); nullptr if none.
  superinfo_t* take_resident();
  void give(superinfo_t* buffer);
  uint64_t budget() const;
  // A new budget, only while no buffer is out (between slices): lent chunks are forgotten
  // (their owner may take them back), the pool's own chunks beyond the budget are unmapped,
  // and carving starts again from the first chunk.
  void set_budget(uint64_t budget);
  // Memory the pool does not own (the top of an arena, lent for a slice: arena_lending.h) to
  // carve buffers from, until the next set_budget; the budget grows by its size. The pool
  // never unmaps it, and its owner must outlive the pool. At any time. Buffers are carved from
  // lent chunks before the pool's own (whose pages may not be touched yet).
  void add_chunk(std::span<uint8_t> memory);
  // High water of buffers handed out since the last set_budget (a slice's, in the engine).
  uint64_t carved_bytes() const;
  // Gives back up to `bytes` (whole pages) of the lent chunk that starts at `at`, from its
  // start, where nothing was carved yet (lent chunks are carved from their end down); the
  // budget shrinks by as much. Returns the bytes given back (0: no such chunk or room).
  size_t give_back_lent(const uint8_t* at, size_t bytes);

  // Where set, a buffer carved past the pages its chunk has made resident has `chooser` fault
  // in the chooser's piece of the chunk around it, on the page size it chooses (first_touch.h:
  // --huge-pages auto), the pool's own chunks from their start, lent ones from their end
  // down (a lent page the arena touched already stays as it is). Set before the first take;
  // null: pages fault in as written.
  void set_first_touch(first_touch_chooser_t* chooser) { first_touch_ = chooser; }

  // A buffer given back when the last owner lets go; throws if the budget is used up.
  std::shared_ptr<superinfo_t> take_shared();

 private:
  // Forgets the free buffers and carves again from the first chunk (mutex held, none out).
  void carve_from_start();
  // take and take_resident past the free list (mutex held): a new buffer, or with `resident`
  // only one whose pages were touched already.
  superinfo_t* carve(bool resident);

  uint64_t budget_;
  const size_t max_nodes_;
  const page_size_t pages_;
  first_touch_chooser_t* first_touch_ = nullptr;
  mutable std::mutex mutex_;
  size_t size_;  // bytes per buffer
  std::vector<superinfo_t*> free_;
  struct chunk_t {
    void* memory;
    size_t size;
    bool owned;      // mapped by the pool (else lent by add_chunk)
    size_t used;     // bytes carved at the current buffer size
    size_t touched;  // bytes that buffers ever covered or a first-touch chooser made
                     // resident, from the start (own chunks) or the end (lent ones)
  };
  std::vector<chunk_t> chunks_;
  uint64_t mapped_ = 0;  // bytes of all chunks (never above budget_)
  uint64_t carved_ = 0;  // bytes handed out at the current size
  uint64_t high_ = 0;    // most bytes handed out at any size
  size_t out_ = 0;       // buffers handed out and not yet given back
};

}  // namespace pentago
