// Raises an atomic high-water mark to at least a value (lock-free), for peak counters updated
// from several threads.
#pragma once
#include <atomic>

namespace pentago {

template <class T>
void raise_to(std::atomic<T>& high, T value) {
  T seen = high.load(std::memory_order_relaxed);
  while (value > seen && !high.compare_exchange_weak(seen, value, std::memory_order_relaxed)) {
  }
}

}  // namespace pentago
