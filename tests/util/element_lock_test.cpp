// element_lock: mutual exclusion under contention (long holds that put waiters to sleep and
// short ones that stay in the spin), try_lock, and use through std::lock_guard.
#include "pentago/util/element_lock.h"

#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

namespace pentago {
namespace {

TEST(element_lock, try_lock_fails_while_held) {
  element_lock_t lock;
  EXPECT_TRUE(lock.try_lock());
  EXPECT_FALSE(lock.try_lock());
  lock.unlock();
  EXPECT_TRUE(lock.try_lock());
  lock.unlock();
}

// Increments a plain counter in a non-atomic read-sleep-write sequence: any overlap of two
// holders loses an increment.
void hammer(bool sleep_while_held) {
  element_lock_t lock;
  int counter = 0;
  constexpr int threads = 4, rounds = 300;
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; t++)
    pool.emplace_back([&] {
      for (int r = 0; r < rounds; r++) {
        const std::lock_guard<element_lock_t> guard(lock);
        const int seen = counter;
        if (sleep_while_held) std::this_thread::sleep_for(std::chrono::microseconds(20));
        counter = seen + 1;
      }
    });
  for (auto& t : pool) t.join();
  EXPECT_EQ(counter, threads * rounds);
}

TEST(element_lock, excludes_short_holds) { hammer(false); }
TEST(element_lock, excludes_long_holds_with_sleeping_waiters) { hammer(true); }

}  // namespace
}  // namespace pentago
