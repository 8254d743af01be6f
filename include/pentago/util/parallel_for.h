// parallel_for: runs fn over [0, count) on the calling thread and a worker_pool's threads,
// taking indices from a shared counter, stopping early and rethrowing the first exception.
// fn(i) or fn(worker, i): the caller is worker 0, pool jobs are 1..pool.threads(), and one
// worker index never runs on two threads at once (per-worker scratch needs no lock).
#pragma once
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <type_traits>
#include <utility>

#include "pentago/util/worker_pool.h"

namespace pentago {
namespace detail {

// Shared with the pool jobs, which may outlive the call when the caller finished the range
// before a worker took them: they then find no index left and never touch fn.
struct parallel_for_state_t {
  std::atomic<uint64_t> next{0};
  std::atomic<int> active{0};  // pool jobs between their first claim and their exit
  std::atomic<bool> failed{false};
  std::mutex mutex;
  std::condition_variable finished;
  std::exception_ptr first;  // under mutex

  void fail(std::exception_ptr e) {
    std::lock_guard<std::mutex> lock(mutex);
    if (!first) first = std::move(e);
    failed = true;
  }
};

}  // namespace detail

template <class F>
void parallel_for(worker_pool_t& pool, uint64_t count, F&& fn) {
  if (!count) return;
  auto state = std::make_shared<detail::parallel_for_state_t>();
  auto* f = &fn;
  const auto loop = [f, count](detail::parallel_for_state_t& s, int worker) {
    try {
      // A job counts itself active before claiming, so once the caller has seen the range
      // exhausted and no job active, no claimed index is still running.
      for (uint64_t i; !s.failed && (i = s.next++) < count;) {
        if constexpr (std::is_invocable_v<F&, int, uint64_t>)
          (*f)(worker, i);
        else
          (*f)(i);
      }
    } catch (...) {
      s.fail(std::current_exception());
    }
  };
  const int helpers = int(std::min<uint64_t>(uint64_t(pool.threads()), count - 1));
  for (int worker = 1; worker <= helpers; worker++)
    pool.push_back([state, loop, worker] {
      state->active++;
      loop(*state, worker);
      if (--state->active == 0) {
        std::lock_guard<std::mutex> lock(state->mutex);
        state->finished.notify_all();
      }
    });
  loop(*state, 0);
  std::unique_lock<std::mutex> lock(state->mutex);
  state->finished.wait(lock, [&] { return state->active == 0; });
  // Take the exception out of the shared state: a pool job that never ran may drop the last
  // reference to the state on its thread, and must not release the exception with it.
  const std::exception_ptr first = std::move(state->first);
  state->first = nullptr;
  lock.unlock();
  if (first) std::rethrow_exception(first);
}

// One-off form: a temporary pool of threads - 1 workers (spawned for this call only; callers
// running many short loops should keep a worker_pool and use the form above).
template <class F>
void parallel_for(int threads, uint64_t count, F&& fn) {
  const uint64_t extra =
      std::min<uint64_t>(uint64_t(std::max(threads, 1) - 1), count ? count - 1 : 0);
  worker_pool_t pool{int(extra)};
  parallel_for(pool, count, std::forward<F>(fn));
}

}  // namespace pentago
