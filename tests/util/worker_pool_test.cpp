// Tests of the thread pool and parallel_for: urgent jobs first, first-error capture and early
// stop, time accounting, leveled helping that never takes a shallower job, and parallel_for's
// coverage, worker indices, exception propagation and reuse of one pool.
#include "pentago/util/worker_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "pentago/util/parallel_for.h"

using namespace pentago;

namespace {

struct custom_error_t : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace

TEST(worker_pool, push_front_runs_first) {
  worker_pool_t pool(0);  // no workers: the order is exactly the queue order
  std::vector<int> order;
  pool.push_back([&] { order.push_back(1); });
  pool.push_back([&] { order.push_back(2); });
  pool.push_front([&] { order.push_back(3); });
  pool.push_front([&] { order.push_back(4); });
  EXPECT_EQ(pool.help(), 4);
  EXPECT_EQ(order, (std::vector<int>{4, 3, 1, 2}));
  EXPECT_EQ(pool.help(), 0);
}

TEST(worker_pool, captures_the_first_failure_and_drops_later_jobs) {
  worker_pool_t pool(0);
  int ran = 0;
  pool.push_back([&] { ran++; });
  pool.push_back([] { throw std::runtime_error("first"); });
  pool.push_back([&] { ran++; });
  pool.push_back([] { throw std::runtime_error("second"); });
  EXPECT_FALSE(pool.failed());
  pool.wait_idle();
  EXPECT_TRUE(pool.failed());
  EXPECT_EQ(pool.failure(), "first");
  EXPECT_EQ(ran, 1);
}

TEST(worker_pool, workers_run_everything_and_wait_idle_waits) {
  worker_pool_t pool(3);
  EXPECT_EQ(pool.threads(), 3);
  std::atomic<int> ran{0};
  for (int i = 0; i < 1000; i++)
    pool.push_back([&] {
      ran++;
      activity_timer_t timer(pool, activity_t::compute);
    });
  pool.wait_idle();
  EXPECT_EQ(ran.load(), 1000);
  EXPECT_FALSE(pool.failed());
  pool.push_back([] { throw std::logic_error("in a worker"); });
  pool.wait_idle();
  EXPECT_EQ(pool.failure(), "in a worker");
}

TEST(worker_pool, time_accounting_adds_and_resets) {
  worker_pool_t pool(1);
  pool.add_time(activity_t::io, 1.5);
  pool.add_time(activity_t::io, 0.25);
  {
    activity_timer_t timer(pool, activity_t::compress);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  const auto times = pool.take_times();
  EXPECT_EQ(times[size_t(activity_t::io)], 1.75);
  EXPECT_GE(times[size_t(activity_t::compress)], 0.002);
  EXPECT_EQ(pool.take_times()[size_t(activity_t::io)], 0.0);
  EXPECT_STREQ(activity_name(activity_t::decompress), "decompress");
}

TEST(worker_pool, helpers_skip_shallower_levels) {
  worker_pool_t pool(0);
  std::vector<int> ran;
  for (const int level : {1, 3, 0, 2, 1})
    pool.push_back([&ran, level] { ran.push_back(level); }, level);
  pool.help_until(2, [&] { return ran.size() == 2; });
  EXPECT_EQ(ran, (std::vector<int>{3, 2}));
  EXPECT_FALSE(pool.run_one(2));
  EXPECT_TRUE(pool.run_one(1));
  EXPECT_EQ(ran.back(), 1);
  EXPECT_EQ(pool.help(), 2);
  EXPECT_EQ(ran, (std::vector<int>{3, 2, 1, 0, 1}));
}

TEST(worker_pool, help_until_sleeps_until_woken) {
  worker_pool_t pool(1);
  std::atomic<bool> done{false};
  // The caller may not run this level-0 job itself, so it must sleep and be woken.
  pool.push_back([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    done = true;
    pool.wake_helpers();
  });
  pool.help_until(1, [&] { return done.load(); });
  EXPECT_TRUE(done.load());
}

// A tree of jobs where each job at level L spawns children at level L + 1 and helps until
// they finish: every job run by a helping thread is at least as deep as that thread's
// innermost wait, so no thread nests more frames than there are levels.
TEST(worker_pool, nested_helping_stays_within_levels) {
  constexpr int depth = 5, fanout = 4;
  worker_pool_t pool(3);
  thread_local int helping_level = 0, frames = 0;
  std::atomic<int> shallower{0}, max_frames{0}, nodes{0};
  std::function<void(int)> node = [&](int level) {
    nodes++;
    if (level < helping_level) shallower++;
    frames++;
    for (int seen = max_frames; frames > seen && !max_frames.compare_exchange_weak(seen, frames);) {
    }
    if (level < depth) {
      std::atomic<int> pending{fanout};
      for (int c = 0; c < fanout; c++)
        pool.push_back(
            [&, level] {
              node(level + 1);
              if (--pending == 0) pool.wake_helpers();
            },
            level + 1);
      const int saved = helping_level;
      helping_level = level + 1;
      pool.help_until(level + 1, [&] { return pending == 0; });
      helping_level = saved;
    }
    frames--;
  };
  node(0);
  int expected = 0;
  for (int l = 0, width = 1; l <= depth; l++, width *= fanout) expected += width;
  EXPECT_EQ(nodes.load(), expected);
  EXPECT_EQ(shallower.load(), 0);
  EXPECT_LE(max_frames.load(), depth + 1);
}

TEST(parallel_for, covers_every_index_once_with_exclusive_worker_ids) {
  worker_pool_t pool(3);
  constexpr uint64_t count = 20000;
  std::vector<std::atomic<int>> hits(count);
  std::vector<std::atomic<int>> busy(4);
  std::atomic<int> overlaps{0}, bad_worker{0};
  parallel_for(pool, count, [&](int worker, uint64_t i) {
    if (worker < 0 || worker > 3) {
      bad_worker++;
      return;
    }
    if (busy[size_t(worker)]++) overlaps++;
    hits[i]++;
    busy[size_t(worker)]--;
  });
  for (uint64_t i = 0; i < count; i++) ASSERT_EQ(hits[i].load(), 1) << i;
  EXPECT_EQ(bad_worker.load(), 0);
  EXPECT_EQ(overlaps.load(), 0);
}

TEST(parallel_for, thread_count_form_uses_that_many_worker_ids) {
  std::mutex mutex;
  std::vector<int> workers;
  parallel_for(4, 4000, [&](int worker, uint64_t) {
    std::lock_guard<std::mutex> lock(mutex);
    workers.push_back(worker);
  });
  EXPECT_EQ(workers.size(), 4000u);
  for (const int w : workers) EXPECT_TRUE(w >= 0 && w < 4) << w;
  int calls = 0;
  parallel_for(1, 10, [&](int worker, uint64_t) { calls += worker == 0; });
  EXPECT_EQ(calls, 10);
  parallel_for(8, 0, [&](uint64_t) { calls++; });
  EXPECT_EQ(calls, 10);
}

TEST(parallel_for, rethrows_the_exception_and_stops_early) {
  worker_pool_t pool(3);
  std::atomic<uint64_t> calls{0};
  const uint64_t count = uint64_t(1) << 40;  // unreachable unless the loop stops
  try {
    parallel_for(pool, count, [&](uint64_t i) {
      calls++;
      if (i == 100) throw custom_error_t("index 100");
    });
    FAIL() << "no exception";
  } catch (const custom_error_t& e) {
    EXPECT_STREQ(e.what(), "index 100");
  }
  EXPECT_LT(calls.load(), count);
  // The pool is not poisoned: the error went to the caller, not to the pool.
  EXPECT_FALSE(pool.failed());
  std::atomic<uint64_t> sum{0};
  parallel_for(pool, 1000, [&](uint64_t i) { sum += i; });
  EXPECT_EQ(sum.load(), 999u * 1000 / 2);
}

TEST(parallel_for, one_of_several_exceptions_reaches_the_caller) {
  EXPECT_THROW(parallel_for(4, 1000,
                            [](uint64_t i) {
                              if (i % 7 == 3) throw custom_error_t("index " + std::to_string(i));
                            }),
               custom_error_t);
}

TEST(parallel_for, reuses_a_pool_and_nests) {
  worker_pool_t pool(2);
  std::atomic<uint64_t> total{0};
  for (int round = 0; round < 300; round++)
    parallel_for(pool, uint64_t(round % 5), [&](uint64_t) { total++; });
  uint64_t expected = 0;
  for (int round = 0; round < 300; round++) expected += uint64_t(round % 5);
  EXPECT_EQ(total.load(), expected);
  // A nested loop on the same pool: each level's caller works through its own range.
  std::atomic<uint64_t> inner{0};
  parallel_for(pool, 8, [&](uint64_t) { parallel_for(pool, 50, [&](uint64_t) { inner++; }); });
  EXPECT_EQ(inner.load(), 400u);
  pool.wait_idle();
}
