// Lending the arena's top to the partial pool and taking it back (see arena_lending.h).
#include "pentago/end/arena_lending.h"

#include <algorithm>

namespace pentago {

arena_lending_t::arena_lending_t(compacting_store_t& arena, buffer_pool_t& pool)
    : arena_(arena), pool_(pool) {
  // A slice that compresses worse than its plan takes back lent pages the pool has not used,
  // rather than be refused.
  arena_.set_lent_reclaimer(
      [this](uint8_t* at, size_t bytes) { return pool_.give_back_lent(at, bytes); });
}

arena_lending_t::~arena_lending_t() { arena_.set_lent_reclaimer({}); }

void arena_lending_t::reclaim(uint64_t pool_budget, uint64_t arena_limit) {
  pool_.set_budget(pool_budget);  // forgets the lent chunks
  arena_.reclaim_lent();
  arena_.set_limit(arena_limit);
  reserve_ = 0;
  lent_ = 0;
}

uint64_t arena_lending_t::lend_top(uint64_t keep) {
  const std::span<uint8_t> top = arena_.lend_top(keep);
  if (!top.empty()) pool_.add_chunk(top);
  return top.size();
}

void arena_lending_t::lend_freed(uint64_t reserve) { reserve_ = std::max<uint64_t>(reserve, 1); }

bool arena_lending_t::step() {
  if (!reserve_) return false;
  const std::unique_lock<std::mutex> one(step_mutex_, std::try_to_lock);
  if (!one.owns_lock()) return false;
  compacting_store_stats_t s = arena_.stats();
  const uint64_t keep = s.live_bytes + reserve_;
  // Steps of less than a 32nd of the limit are not worth a chunk of their own.
  const uint64_t least = s.limit / 32;
  if (keep + least > s.limit) return false;
  // Room above the bump pointer is lent as it is. Space freed below it (released inputs,
  // garbage) is lent once a collection packs it: one runs first where that space adds up to an
  // eighth of the limit and to more than the room above; else a step too small is not taken.
  const uint64_t above = s.limit - std::min<uint64_t>(s.limit, std::max(keep, s.bump_bytes));
  const uint64_t freed = s.bump_bytes - std::min(s.bump_bytes, uint64_t(s.live_bytes));
  if (freed >= s.limit / 8 && freed > above)
    arena_.collect();
  else if (above < least)
    return false;
  // The pool takes the arena's top pages as they are (mostly resident: no fresh faults).
  const uint64_t lent = lend_top(keep);
  lent_ += lent;
  return lent > 0;
}

}  // namespace pentago
