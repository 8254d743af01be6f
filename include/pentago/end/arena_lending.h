// The one owner of memory lending between the arena (compacting_store) and the partial-block
// pool (buffer_pool), held by the slice loop (docs/design.md, "Memory lending"). The arena's
// top pages move to the pool as they are, resident where touched, and come back before the
// next slice; nothing is released and faulted in again. Three moves:
// * between slices, reclaim: the pool forgets what it was lent (its budget back to the plan's),
//   the arena takes its top back and its limit goes to the plan's;
// * between slices, lend_top: the arena lends its top down to what the next slice needs;
// * during a slice, lend_freed and step: when the pool runs dry, the arena lends its top down
//   to its live bytes plus the reserve: the room a dropped slice's released inputs free (a
//   collection moves it to the top of the heap), or a stored slice's room for uncompressed
//   complete blocks (its incomplete blocks need it more).
// While anything is lent, a write that finds no room in the arena takes back lent pages the
// pool has not carved yet (buffer_pool_t::give_back_lent) rather than be refused.
#pragma once
#include <atomic>
#include <cstdint>
#include <mutex>

#include "pentago/end/buffer_pool.h"
#include "pentago/end/compacting_store.h"

namespace pentago {

class arena_lending_t {
 public:
  // Both must outlive this object; installs the arena's lent reclaimer.
  arena_lending_t(compacting_store_t& arena, buffer_pool_t& pool);
  ~arena_lending_t();
  arena_lending_t(const arena_lending_t&) = delete;
  arena_lending_t& operator=(const arena_lending_t&) = delete;

  // Between slices (no buffer out, nothing using the arena): takes back all that was lent; the
  // pool's budget becomes `pool_budget` and the arena's limit `arena_limit`. Stops lend_freed.
  void reclaim(uint64_t pool_budget, uint64_t arena_limit);
  // Lends the arena's top down to `keep` bytes (page-rounded, never below its data) to the
  // pool; returns the bytes lent.
  uint64_t lend_top(uint64_t keep);
  // From now until reclaim, step() lends the arena down to its live bytes plus `reserve`.
  void lend_freed(uint64_t reserve);
  // lend_freed's step: lends the arena down to its live bytes plus the reserve. Where more than
  // the room above the bump pointer, and an eighth of the limit, lies freed below it (released
  // inputs, garbage), it runs a collection first (only a collection moves freed space above the
  // bump pointer). Steps of less than a 32nd of the limit are not taken. True if the pool's
  // budget grew. Thread safe.
  bool step();
  // What step() lent since the last reclaim.
  uint64_t lent_freed() const { return lent_.load(); }

 private:
  compacting_store_t& arena_;
  buffer_pool_t& pool_;
  uint64_t reserve_ = 0;  // 0: no lend_freed
  std::atomic<uint64_t> lent_{0};
  std::mutex step_mutex_;  // one step at a time (the others go on without one)
};

}  // namespace pentago
