// Tests of the decoded-block cache on the published slice 2: least-recently-used eviction by
// bytes, blocks valid after eviction, and one read for concurrent requests of a block.
#include "pentago/data/block_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

using namespace pentago;

namespace {
const std::string published = PENTAGO_SHARED_DATA;
}

TEST(block_cache, evicts_least_recently_used) {
  const supertensor_reader_t reader(published + "/slice-2.pentago");
  ASSERT_GE(reader.sections().size(), 3u);
  const uint64_t one = 64 * uint64_t(block_nodes(reader.sections()[0], {0, 0, 0, 0}));
  block_cache_t cache(one);  // room for about one block
  const block_t zero{0, 0, 0, 0};
  const auto a = cache.get(reader, 0, zero);
  EXPECT_EQ(*cache.get(reader, 0, zero), reader.read_block(0, zero));
  EXPECT_EQ(cache.stats().hits, 1u);
  cache.get(reader, 1, zero);
  cache.get(reader, 2, zero);
  EXPECT_GE(cache.stats().evictions, 1u);
  EXPECT_EQ(cache.stats().misses, 3u);
  EXPECT_EQ(*a, reader.read_block(0, zero));  // still valid after eviction
  EXPECT_LE(cache.stats().bytes, std::max<uint64_t>(one, 64 * 16));
}

TEST(block_cache, concurrent_requests_read_a_block_once) {
  const supertensor_reader_t reader(published + "/slice-2.pentago");
  block_cache_t cache(uint64_t(1) << 20);
  std::atomic<int> reads{0};
  const block_cache_key_t key{&reader, 0, 0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; t++)
    threads.emplace_back([&] {
      const auto b = cache.get(key, [&] {
        reads++;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        return reader.read_block(0, {0, 0, 0, 0});
      });
      EXPECT_EQ(*b, reader.read_block(0, {0, 0, 0, 0}));
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(reads.load(), 1);
  EXPECT_EQ(cache.stats().misses, 1u);
  EXPECT_EQ(cache.stats().hits + cache.stats().waits, 5u);
}
