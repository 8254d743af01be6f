// Lending the arena's top to the partial pool and taking it back (see arena_lending.h).
#include "pentago/end/arena_lending.h"

#include <algorithm>

namespace pentago {

arena_lending::arena_lending(compacting_store& arena, buffer_pool& pool)
    : arena_(arena), pool_(pool) {
  // A slice that compresses worse than its plan takes back lent pages the pool has not used,
  // rather than be refused.
  arena_.set_lent_reclaimer(
      [this](uint8_t* at, size_t bytes) { return pool_.give_back_lent(at, bytes); });
}

arena_lending::~arena_lending() { arena_.set_lent_reclaimer({}); }

void arena_lending::reclaim(uint64_t pool_budget, uint64_t arena_limit) {
  pool_.set_budget(pool_budget);  // forgets the lent chunks
  arena_.reclaim_lent();
  arena_.set_limit(arena_limit);
  reserve_ = 0;
  lent_ = 0;
}

uint64_t arena_lending::lend_top(uint64_t keep) {
  const std::span<uint8_t> top = arena_.lend_top(keep);
  if (!top.empty()) pool_.add_chunk(top);
  return top.size();
}

void arena_lending::lend_freed(uint64_t reserve) {
  reserve_ = std::max<uint64_t>(reserve, 1);
  collection_ = arena_.collections();
}

bool arena_lending::step() {
  if (!reserve_) return false;
  const std::unique_lock<std::mutex> one(step_mutex_, std::try_to_lock);
  if (!one.owns_lock()) return false;
  const uint64_t seen = collection_.load();
  if (arena_.collections() == seen) {
    // Inputs released since the last collection lie below the bump pointer until one runs:
    // where they add up to an eighth of the limit, collecting now lends them to the pool.
    const compacting_store_stats s = arena_.stats();
    if (s.bump_bytes < s.live_bytes + s.limit / 8) return false;
    arena_.collect();
  }
  collection_ = arena_.collections();
  const uint64_t keep = arena_.live_bytes() + reserve_;
  // Steps of less than a 32nd of the limit are not worth a chunk of their own.
  if (keep + arena_.limit() / 32 > arena_.limit()) return false;
  // The pool takes the arena's top pages as they are (mostly resident: no fresh faults).
  const uint64_t lent = lend_top(keep);
  lent_ += lent;
  return lent > 0;
}

}  // namespace pentago
