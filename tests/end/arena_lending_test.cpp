// arena_lending: the arena's top lent to the partial pool and taken back between slices, the
// room above the arena's data and the space its released arrays free lent while a slice runs,
// and a full arena taking back lent pages the pool has not carved.
#include "pentago/end/arena_lending.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "pentago/util/error.h"

namespace pentago {
namespace {

const size_t page = size_t(sysconf(_SC_PAGESIZE));

std::vector<uint8_t> page_of(uint8_t value) { return std::vector<uint8_t>(page, value); }

// An arena of 64 pages whose first `filled` arrays hold a page each (array i filled with i), an
// empty pool of one-page buffers, and the lending between them.
struct lending_case_t {
  compacting_store_t arena{64 * page, 0};
  buffer_pool_t pool{0, page / sizeof(superinfo_t)};
  arena_lending_t lending{arena, pool};
  const group_id_t g = arena.create_group(64);
  explicit lending_case_t(size_t filled) {
    for (size_t i = 0; i < filled; i++) arena.set(g, i, page_of(uint8_t(i)));
  }
};

// Between slices: lend_top moves the top pages into the pool's budget (buffers come from
// them), reclaim takes them back and sets the pool's budget and the arena's limit anew.
TEST(arena_lending, lends_the_top_and_takes_it_back) {
  lending_case_t c(8);
  auto& [arena, pool, lending, g] = c;
  EXPECT_EQ(lending.lend_top(16 * page), 48 * page);
  EXPECT_EQ(arena.limit(), 16 * page);
  EXPECT_EQ(pool.budget(), 48 * page);
  superinfo_t* b = pool.take();
  ASSERT_NE(b, nullptr);
  const auto* at = reinterpret_cast<const uint8_t*>(b);
  std::memset(static_cast<void*>(b), 0xcd, page);  // the pool's now
  std::vector<uint8_t> held;
  arena.get(g, 7, held);
  EXPECT_EQ(held, page_of(7));
  pool.give(b);
  EXPECT_EQ(lending.lent_freed(), 0u);  // lend_top is not the dropped slice's lending
  lending.reclaim(2 * page, 32 * page);
  EXPECT_EQ(pool.budget(), 2 * page);
  EXPECT_EQ(arena.limit(), 32 * page);
  // The pool's budget is its own again: two buffers, then none, not the arena's pages.
  superinfo_t* own[3] = {pool.take(), pool.take(), pool.take()};
  EXPECT_NE(own[0], nullptr);
  EXPECT_NE(own[1], nullptr);
  EXPECT_EQ(own[2], nullptr);
  EXPECT_NE(reinterpret_cast<const uint8_t*>(own[0]), at);
  pool.give(own[0]);
  pool.give(own[1]);
  // The arena's pages are the arena's again: its limit rises into them and writes use them.
  arena.set_limit(64 * page);
  for (size_t i = 8; i < 60; i++) arena.set(g, i, page_of(uint8_t(i)));
  for (size_t i = 0; i < 60; i += 7) {
    arena.get(g, i, held);
    EXPECT_EQ(held, page_of(uint8_t(i)));
  }
}

// While a slice runs: step() lends nothing before lend_freed, then the room above the arena's
// data down to its live bytes plus the reserve; space freed below its data after a collection
// that step() runs itself; nothing in steps of less than a 32nd of the limit; reclaim ends it.
TEST(arena_lending, lends_the_room_above_its_data_and_collects_freed_space) {
  lending_case_t c(48);
  auto& [arena, pool, lending, g] = c;
  EXPECT_FALSE(lending.step());  // not asked to lend
  lending.lend_freed(4 * page);
  EXPECT_TRUE(lending.step());
  EXPECT_EQ(arena.limit(), 52 * page);
  EXPECT_EQ(pool.budget(), 12 * page);
  EXPECT_FALSE(lending.step());  // nothing more to lend
  for (size_t i = 8; i < 48; i++) arena.set(g, i, nullptr, 0);
  const uint64_t collections = arena.collections();
  EXPECT_TRUE(lending.step());  // 40 pages freed below the data: collected, then lent
  EXPECT_EQ(arena.collections(), collections + 1);
  EXPECT_EQ(arena.limit(), 12 * page);
  EXPECT_EQ(lending.lent_freed(), 52 * page);
  EXPECT_EQ(pool.budget(), 52 * page);
  arena.set(g, 8, page_of(8));
  arena.set(g, 8, nullptr, 0);  // one page of garbage: too little to collect for
  EXPECT_FALSE(lending.step());
  EXPECT_EQ(arena.collections(), collections + 1);
  lending.reclaim(0, 64 * page);
  EXPECT_EQ(lending.lent_freed(), 0u);
  EXPECT_EQ(pool.budget(), 0u);
  for (size_t i = 8; i < 40; i++) arena.set(g, i, nullptr, 0);
  EXPECT_FALSE(lending.step());  // ended by reclaim
  for (size_t i = 8; i < 64; i++) arena.set(g, i, page_of(uint8_t(i)));
}

// A write that finds no room under the lent top takes back lent pages the pool has not carved
// (from the arena's end up), and the pool's budget shrinks by as much; carved pages stay the
// pool's.
TEST(arena_lending, a_full_arena_takes_back_uncarved_lent_pages) {
  lending_case_t c(8);
  auto& [arena, pool, lending, g] = c;
  ASSERT_EQ(lending.lend_top(8 * page), 56 * page);
  superinfo_t* carved = pool.take();  // the lent chunk's last page
  ASSERT_NE(carved, nullptr);
  std::memset(static_cast<void*>(carved), 0xee, page);
  for (size_t i = 8; i < 63; i++) arena.set(g, i, page_of(uint8_t(i)));
  EXPECT_GE(arena.stats().limit_raises, 1u);
  EXPECT_EQ(pool.budget(), page);
  EXPECT_THROW(arena.set(g, 63, page_of(63)),
               pentago_error_t);  // the carved page is not given back
  std::vector<uint8_t> held;
  for (size_t i = 0; i < 63; i++) {
    arena.get(g, i, held);
    ASSERT_EQ(held, page_of(uint8_t(i))) << i;
  }
  EXPECT_EQ(*reinterpret_cast<uint8_t*>(carved), 0xee);
  pool.give(carved);
}

}  // namespace
}  // namespace pentago
