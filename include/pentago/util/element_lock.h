// A 4-byte lock for one element of a large table (a block of the store, an array of the
// compacting arena): it spins briefly, then sleeps on its lock word (a futex through
// std::atomic::wait), so a long hold costs the waiters no CPU. Meets the Lockable
// requirements, so std::lock_guard and std::unique_lock work with it.
#pragma once
#include <atomic>
#include <cstdint>

namespace pentago {

class element_lock_t {
 public:
  element_lock_t() = default;
  element_lock_t(const element_lock_t&) = delete;
  element_lock_t& operator=(const element_lock_t&) = delete;

  bool try_lock() {
    uint32_t expected = free;
    return word_.compare_exchange_strong(expected, locked, std::memory_order_acquire);
  }

  void lock() {
    if (try_lock()) return;
    for (int spin = 0; spin < spins_before_sleep; spin++) {
      pause();
      if (word_.load(std::memory_order_relaxed) == free && try_lock()) return;
    }
    // Mark the lock contended and sleep until it is released.
    while (word_.exchange(contended, std::memory_order_acquire) != free)
      word_.wait(contended, std::memory_order_relaxed);
  }

  void unlock() {
    if (word_.exchange(free, std::memory_order_release) == contended) word_.notify_one();
  }

 private:
  static constexpr uint32_t free = 0, locked = 1, contended = 2;  // contended: sleepers may wait
  static constexpr int spins_before_sleep = 64;

  static void pause() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
  }

  std::atomic<uint32_t> word_{free};
};

static_assert(sizeof(element_lock_t) == 4);

}  // namespace pentago
