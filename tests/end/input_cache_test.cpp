// input_cache: copies read back exactly, only free pool buffers (or the buffer of the copy read
// last) taken, a block read later than every copy not kept, buffers back to the pool when a
// block's last read is done or the cache is cleared, the copy read last reclaimed first, copies
// pinned while filled or read (and read where they lie until released), declined offers
// where copies are seldom read back, and a pool grown on request for copies read back.
#include "pentago/end/input_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <span>
#include <thread>
#include <vector>

using namespace pentago;

namespace {

std::vector<superinfo_t> block_of(int key, size_t nodes) {
  std::vector<superinfo_t> v(nodes);
  for (size_t i = 0; i < nodes; i++)
    for (int w = 0; w < 4; w++) {
      v[i].win.w[w] = uint64_t(key) * 0x9e3779b97f4a7c15ULL + i * 4 + w;
      v[i].notlose.w[w] = ~v[i].win.w[w];
    }
  return v;
}

bool same(const std::vector<superinfo_t>& a, const std::vector<superinfo_t>& b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), a.size() * sizeof(superinfo_t)) == 0;
}

// A pool of `buffers` free buffers of `nodes` nodes (carved once, then given back).
void fill_free_list(buffer_pool_t& pool, int buffers) {
  std::vector<superinfo_t*> taken;
  for (int i = 0; i < buffers; i++) taken.push_back(pool.take());
  for (auto* b : taken) {
    ASSERT_NE(b, nullptr);
    pool.give(b);
  }
}

// A reader that copies a held block out: pin, copy, release; false where no copy is held.
bool copy_out(input_cache_t& cache, int key, std::span<superinfo_t> out) {
  const superinfo_t* held = cache.pin(key, out.size());
  if (!held) return false;
  std::memcpy(static_cast<void*>(out.data()), held, out.size_bytes());
  cache.release(key);
  return true;
}

// A reader that decoded a block itself and keeps a copy where the cache takes one: reserve,
// copy in, filled, release.
void offer(input_cache_t& cache, int key, std::span<const superinfo_t> values, uint32_t next_read) {
  superinfo_t* buffer = cache.reserve(key, values.size(), next_read);
  if (!buffer) return;
  std::memcpy(static_cast<void*>(buffer), values.data(), values.size_bytes());
  cache.filled(key);
  cache.release(key);
}

}  // namespace

TEST(input_cache, copies_read_back_and_buffers_return) {
  const size_t nodes = 100;
  buffer_pool_t pool(4 * nodes * sizeof(superinfo_t), nodes);
  pool.set_buffer_nodes(nodes);
  input_cache_t cache(pool);
  std::vector<superinfo_t> out(nodes);
  // No free buffer yet: the cache never carves one.
  offer(cache, 1, block_of(1, nodes), 10);
  EXPECT_FALSE(copy_out(cache, 1, out));
  EXPECT_EQ(pool.carved_bytes(), 0u);
  fill_free_list(pool, 2);
  offer(cache, 1, block_of(1, nodes), 10);
  offer(cache, 2, block_of(2, nodes), 20);
  EXPECT_EQ(cache.copies(), 2u);
  EXPECT_EQ(pool.take_free(), nullptr);  // both free buffers hold copies
  ASSERT_TRUE(copy_out(cache, 2, out));
  EXPECT_TRUE(same(out, block_of(2, nodes)));
  ASSERT_TRUE(copy_out(cache, 1, out));
  EXPECT_TRUE(same(out, block_of(1, nodes)));
  EXPECT_EQ(cache.hits(), 2u);
  // Block 1 is next read at 30 now, 2 still at 20. A block next read at 40 is not kept: every
  // copy is read sooner.
  cache.reschedule(1, 30);
  cache.reschedule(1, 15);  // an earlier reader reporting late: 30 stays
  offer(cache, 5, block_of(5, nodes), 40);
  EXPECT_FALSE(copy_out(cache, 5, out));
  EXPECT_EQ(cache.copies(), 2u);
  // One read at 25 takes the buffer of the copy read last (1).
  offer(cache, 3, block_of(3, nodes), 25);
  EXPECT_FALSE(copy_out(cache, 1, out));
  ASSERT_TRUE(copy_out(cache, 3, out));
  EXPECT_TRUE(same(out, block_of(3, nodes)));
  ASSERT_TRUE(copy_out(cache, 2, out));
  EXPECT_TRUE(same(out, block_of(2, nodes)));
  offer(cache, 1, block_of(1, nodes), 30);
  // The last read of 2: its buffer goes back to the pool.
  cache.forget(2);
  EXPECT_FALSE(copy_out(cache, 2, out));
  superinfo_t* back = pool.take_free();
  ASSERT_NE(back, nullptr);
  pool.give(back);
  // A block larger than the pool's buffers is never kept.
  offer(cache, 4, block_of(4, nodes + 1), 1);
  std::vector<superinfo_t> big(nodes + 1);
  EXPECT_FALSE(copy_out(cache, 4, big));
  // clear gives every buffer back: two free again.
  cache.clear();
  EXPECT_FALSE(copy_out(cache, 3, out));
  superinfo_t* a = pool.take_free();
  superinfo_t* b = pool.take_free();
  EXPECT_NE(a, nullptr);
  EXPECT_NE(b, nullptr);
  EXPECT_EQ(pool.take_free(), nullptr);
  pool.give(a);
  pool.give(b);
}

TEST(input_cache, reclaim_hands_the_copy_read_last_to_the_pool_user) {
  const size_t nodes = 64;
  buffer_pool_t pool(3 * nodes * sizeof(superinfo_t), nodes);
  pool.set_buffer_nodes(nodes);
  fill_free_list(pool, 3);
  input_cache_t cache(pool);
  // Next reads 3, 10, 20; then 0 is next read at 5 and 1, offered again by a reader that
  // decoded it meanwhile, at 40: 1 is read last.
  offer(cache, 0, block_of(0, nodes), 3);
  offer(cache, 1, block_of(1, nodes), 10);
  offer(cache, 2, block_of(2, nodes), 20);
  std::vector<superinfo_t> out(nodes);
  ASSERT_TRUE(copy_out(cache, 0, out));
  cache.reschedule(0, 5);
  offer(cache, 1, block_of(1, nodes), 40);
  EXPECT_EQ(cache.copies(), 3u);
  superinfo_t* buffer = cache.reclaim();
  ASSERT_NE(buffer, nullptr);
  EXPECT_EQ(cache.reclaimed(), 1u);
  EXPECT_FALSE(copy_out(cache, 1, out));
  EXPECT_TRUE(copy_out(cache, 0, out));
  EXPECT_TRUE(copy_out(cache, 2, out));
  pool.give(buffer);  // the reclaimer's to give back
  cache.forget(0);
  cache.forget(2);
  EXPECT_EQ(cache.reclaim(), nullptr);  // nothing left to reclaim
}

TEST(input_cache, seldom_read_copies_decline_most_offers) {
  const size_t nodes = 16;
  buffer_pool_t pool(nodes * sizeof(superinfo_t), nodes);
  pool.set_buffer_nodes(nodes);
  fill_free_list(pool, 1);
  input_cache_t cache(pool);
  // Copies never read back (each offer is read sooner than the copy before): after 64 of
  // them only one offer in eight is taken.
  for (int key = 0; key < 64; key++) offer(cache, key, block_of(key, nodes), 1000 - key);
  EXPECT_EQ(cache.copies(), 64u);
  for (int key = 64; key < 64 + 80; key++) offer(cache, key, block_of(key, nodes), 1000 - key);
  EXPECT_EQ(cache.copies(), 64u + 10u);
  cache.clear();
  // Copies that are read back are all taken.
  input_cache_t reread(pool);
  std::vector<superinfo_t> out(nodes);
  for (int key = 0; key < 100; key++) {
    offer(reread, key, block_of(key, nodes), key + 1);
    ASSERT_TRUE(copy_out(reread, key, out)) << key;
    EXPECT_TRUE(same(out, block_of(key, nodes)));
    reread.forget(key);
  }
  EXPECT_EQ(reread.copies(), 100u);
  EXPECT_EQ(reread.hits(), 100u);
}

// Fresh buffers are carved for copies only while most copies are read back, and never beyond
// the pool's budget.
TEST(input_cache, carves_fresh_buffers_only_for_copies_read_back) {
  const size_t nodes = 16;
  const uint64_t buffer = nodes * sizeof(superinfo_t);
  std::vector<superinfo_t> out(nodes);
  {
    buffer_pool_t pool(4 * buffer, nodes);
    pool.set_buffer_nodes(nodes);
    fill_free_list(pool, 1);
    input_cache_t cache(pool);
    // 64 copies never read back, then more: the one buffer is reused, none carved.
    for (int key = 0; key < 100; key++) offer(cache, key, block_of(key, nodes), 1000 - key);
    EXPECT_EQ(pool.carved_bytes(), buffer);
  }
  buffer_pool_t pool(4 * buffer, nodes);
  pool.set_buffer_nodes(nodes);
  fill_free_list(pool, 1);
  input_cache_t cache(pool);
  // 64 copies, each read back once more, in the one free buffer (each takes the buffer of the
  // copy before, read later).
  for (int key = 0; key < 64; key++) {
    offer(cache, key, block_of(key, nodes), 1000 - key);
    ASSERT_TRUE(copy_out(cache, key, out)) << key;
  }
  EXPECT_EQ(pool.carved_bytes(), buffer);
  // Now offers carve fresh buffers up to the budget and keep the earlier copies; then they
  // take the buffer of the copy read last again.
  for (int key = 64; key < 70; key++) offer(cache, key, block_of(key, nodes), 1000 - key);
  EXPECT_EQ(pool.carved_bytes(), 4 * buffer);
  for (int key = 67; key < 70; key++) {
    ASSERT_TRUE(copy_out(cache, key, out)) << key;
    EXPECT_TRUE(same(out, block_of(key, nodes)));
  }
  EXPECT_FALSE(copy_out(cache, 64, out));
}

// Where copies deserve fresh buffers and the pool has none left to carve, the cache asks to
// grow it (the block store's arena lending) and carves from what was added; when growing
// fails, the copy read last gives way as before.
TEST(input_cache, grows_the_pool_for_copies_read_back) {
  const size_t nodes = 16;
  const uint64_t buffer = nodes * sizeof(superinfo_t);
  std::vector<superinfo_t> lent(4 * nodes);  // outlives the pool that carves from it
  buffer_pool_t pool(2 * buffer, nodes);
  pool.set_buffer_nodes(nodes);
  fill_free_list(pool, 1);
  input_cache_t cache(pool);
  int asked = 0;
  cache.set_grow([&] {
    if (asked++) return false;
    pool.add_chunk(std::span<uint8_t>(reinterpret_cast<uint8_t*>(lent.data()), 4 * buffer));
    return true;
  });
  std::vector<superinfo_t> out(nodes);
  for (int key = 0; key < 64; key++) {
    offer(cache, key, block_of(key, nodes), 1000 - key);
    ASSERT_TRUE(copy_out(cache, key, out)) << key;
  }
  EXPECT_EQ(asked, 0);  // one buffer served every copy
  // Key 64 carves the pool's second buffer, 65 asks to grow and carves from the lent memory,
  // as do 66-68; 69 asks again, in vain, and takes the buffer of 63, read last.
  for (int key = 64; key < 70; key++) offer(cache, key, block_of(key, nodes), 1000 - key);
  EXPECT_EQ(asked, 2);
  for (int key = 64; key < 70; key++) {
    ASSERT_TRUE(copy_out(cache, key, out)) << key;
    EXPECT_TRUE(same(out, block_of(key, nodes))) << key;
  }
  EXPECT_FALSE(copy_out(cache, 63, out));
  cache.clear();
}

// Readers and forgetters on several threads: every copy read back equals its block, and at
// the end every buffer is back in the pool.
TEST(input_cache, concurrent_reads_offers_and_forgets_keep_copies_whole) {
  const size_t nodes = 256;
  const int buffers = 8, keys = 64;
  buffer_pool_t pool(buffers * nodes * sizeof(superinfo_t), nodes);
  pool.set_buffer_nodes(nodes);
  fill_free_list(pool, buffers);
  std::vector<std::vector<superinfo_t>> blocks;
  for (int k = 0; k < keys; k++) blocks.push_back(block_of(k, nodes));
  std::atomic<int> bad{0};
  {
    input_cache_t cache(pool);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; t++)
      threads.emplace_back([&, t] {
        std::vector<superinfo_t> out(nodes);
        for (int i = 0; i < 3000; i++) {
          const int key = (i * 7 + t * 13) % keys;
          const uint32_t next = uint32_t(i + (key * 5) % 17);
          if (copy_out(cache, key, out)) {
            if (!same(out, blocks[key])) bad++;
            cache.reschedule(key, next);
          } else {
            offer(cache, key, blocks[key], next);
          }
          if (i % 5 == t) cache.forget((key + 1) % keys);
          if (i % 11 == t)
            if (superinfo_t* b = cache.reclaim()) pool.give(b);
        }
      });
    for (auto& th : threads) th.join();
  }
  EXPECT_EQ(bad.load(), 0);
  int free_buffers = 0;
  std::vector<superinfo_t*> taken;
  while (superinfo_t* b = pool.take_free()) taken.push_back(b), free_buffers++;
  EXPECT_EQ(free_buffers, buffers);
  for (auto* b : taken) pool.give(b);
}

// Readers that use a copy where it lies: a reserved buffer is pinned and not readable until
// filled; a pinned copy is neither reclaimed nor given back when forgotten, and its buffer
// returns to the pool with the last pin (input_pin_t releases on reset or destruction).
TEST(input_cache, pinned_copies_stay_until_their_readers_release_them) {
  const size_t nodes = 32;
  buffer_pool_t pool(2 * nodes * sizeof(superinfo_t), nodes);
  pool.set_buffer_nodes(nodes);
  fill_free_list(pool, 2);
  input_cache_t cache(pool);
  superinfo_t* buffer = cache.reserve(7, nodes, 5);
  ASSERT_NE(buffer, nullptr);
  input_pin_t filler(cache, 7);
  EXPECT_EQ(cache.pin(7, nodes), nullptr);         // not filled yet
  EXPECT_EQ(cache.reserve(7, nodes, 9), nullptr);  // held: its next read moves to 9
  const auto values = block_of(7, nodes);
  std::memcpy(static_cast<void*>(buffer), values.data(), nodes * sizeof(superinfo_t));
  cache.filled(7);
  const superinfo_t* seen = cache.pin(7, nodes);
  ASSERT_EQ(seen, buffer);
  input_pin_t reader(cache, 7);
  EXPECT_EQ(0, std::memcmp(seen, values.data(), nodes * sizeof(superinfo_t)));
  EXPECT_EQ(cache.hits(), 1u);
  EXPECT_EQ(cache.reclaim(), nullptr);  // pinned twice: not reclaimed
  filler.reset();
  EXPECT_EQ(cache.reclaim(), nullptr);  // still pinned by the reader
  cache.forget(7);                      // the last read: dead, yet its reader holds it
  EXPECT_EQ(cache.pin(7, nodes), nullptr);
  superinfo_t* other = pool.take_free();  // the one other free buffer
  ASSERT_NE(other, nullptr);
  EXPECT_EQ(pool.take_free(), nullptr);
  {
    input_pin_t moved = std::move(reader);  // the pin moves; released once, by `moved`
  }
  EXPECT_EQ(pool.take_free(), buffer);
  pool.give(buffer);
  pool.give(other);
  // A reserved copy unpinned without a reader is reclaimable like any other.
  superinfo_t* again = cache.reserve(8, nodes, 3);
  ASSERT_NE(again, nullptr);
  cache.filled(8);
  cache.release(8);
  EXPECT_EQ(cache.reclaim(), again);
  pool.give(again);
}
