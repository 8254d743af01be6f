// Tests of the LRU cache: eviction by weight in least-recently-used order, one computation for
// concurrent requests of a key, and failed computations reaching every waiter uncached.
#include "pentago/util/lru_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using namespace pentago;

TEST(lru_cache, evicts_least_recently_used_by_weight) {
  lru_cache_t<int, std::string> cache(10, [](const std::string& s) { return uint64_t(s.size()); });
  int made = 0;
  auto make = [&](int k) {
    return [&made, k] {
      made++;
      return std::string(size_t(k), 'x');
    };
  };
  cache.get(4, make(4));
  cache.get(5, make(5));
  EXPECT_EQ(cache.stats().weight, 9u);
  cache.get(4, make(4));  // hit: 4 becomes the most recent
  EXPECT_EQ(made, 2);
  cache.get(3, make(3));  // 12 > 10: evicts 5, the least recently used
  EXPECT_TRUE(cache.contains(4));
  EXPECT_FALSE(cache.contains(5));
  EXPECT_TRUE(cache.contains(3));
  const auto s = cache.stats();
  EXPECT_EQ(s.hits, 1u);
  EXPECT_EQ(s.misses, 3u);
  EXPECT_EQ(s.evictions, 1u);
  EXPECT_EQ(s.weight, 7u);
  EXPECT_EQ(s.peak_weight, 9u);
  // A value heavier than the capacity is kept alone.
  const auto big = cache.get(20, make(20));
  EXPECT_EQ(cache.stats().entries, 1u);
  EXPECT_EQ(big->size(), 20u);
  cache.put(7, "seven");
  EXPECT_EQ(*cache.find(7), "seven");
  EXPECT_EQ(cache.find(8), nullptr);
}

TEST(lru_cache, concurrent_requests_share_one_computation) {
  lru_cache_t<int, int> cache(100);
  std::atomic<int> made{0}, started{0};
  constexpr int threads = 8;
  std::vector<std::thread> pool;
  std::vector<int> results(threads);
  for (int t = 0; t < threads; t++)
    pool.emplace_back([&, t] {
      started++;
      results[size_t(t)] = *cache.get(1, [&] {
        made++;
        // Hold the computation until every thread has asked (or a generous timeout).
        for (int i = 0; i < 2000 && started < threads; i++)
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        return 42;
      });
    });
  for (auto& t : pool) t.join();
  EXPECT_EQ(made.load(), 1);
  for (const int r : results) EXPECT_EQ(r, 42);
  const auto s = cache.stats();
  EXPECT_EQ(s.misses, 1u);
  EXPECT_EQ(s.hits + s.waits, uint64_t(threads - 1));
}

TEST(lru_cache, failures_reach_every_waiter_and_are_not_cached) {
  lru_cache_t<int, int> cache(100);
  std::atomic<int> started{0}, failures{0};
  constexpr int threads = 4;
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; t++)
    pool.emplace_back([&] {
      started++;
      try {
        cache.get(1, []() -> int {
          std::this_thread::sleep_for(std::chrono::milliseconds(50));
          throw std::runtime_error("no");
        });
      } catch (const std::runtime_error&) {
        failures++;
      }
    });
  for (auto& t : pool) t.join();
  EXPECT_EQ(failures.load(), threads);
  EXPECT_FALSE(cache.contains(1));
  EXPECT_EQ(*cache.get(1, [] { return 7; }), 7);
}
