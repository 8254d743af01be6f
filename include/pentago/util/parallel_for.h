// parallel_for: runs fn over [0, count) on a few threads taking indices from a shared
// counter, stopping early and rethrowing the first exception. fn(i) or fn(worker, i).
#pragma once
#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

namespace pentago {

template <class F>
void parallel_for(int threads, uint64_t count, F&& fn) {
  std::atomic<uint64_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr first;
  std::mutex mutex;
  auto work = [&](int worker) {
    try {
      for (uint64_t i; !failed && (i = next++) < count;) {
        if constexpr (std::is_invocable_v<F&, int, uint64_t>)
          fn(worker, i);
        else
          fn(i);
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex);
      if (!first) first = std::current_exception();
      failed = true;
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads && uint64_t(t) < count; t++) pool.emplace_back(work, t);
  work(0);
  for (auto& t : pool) t.join();
  if (first) std::rethrow_exception(first);
}

}  // namespace pentago
