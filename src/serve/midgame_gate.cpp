// The server's bounded semaphore for midgame solves (see midgame_gate.h).
#include "pentago/serve/midgame_gate.h"

#include <algorithm>

namespace pentago {

namespace {
constexpr std::chrono::milliseconds poll_step(100);
}  // namespace

midgame_gate_t::outcome_t midgame_gate_t::enter(std::chrono::duration<double> timeout,
                                                const std::function<bool()>& cancelled) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (closed_) return outcome_t::closed;
  if (counts_.running < slots_ && counts_.waiting == 0) {
    counts_.running++;
    counts_.entered++;
    return outcome_t::entered;
  }
  if (counts_.waiting >= queue_) {
    counts_.rejected++;
    return outcome_t::queue_full;
  }
  counts_.waiting++;
  const auto until = std::chrono::steady_clock::now() +
                     std::chrono::duration_cast<std::chrono::steady_clock::duration>(timeout);
  bool got = false, gave_up = false;
  for (;;) {
    const auto step = std::min(until, std::chrono::steady_clock::now() + poll_step);
    got = freed_.wait_until(lock, step, [&] { return closed_ || counts_.running < slots_; });
    if (got || std::chrono::steady_clock::now() >= until) break;
    if (cancelled) {
      lock.unlock();
      gave_up = cancelled();
      lock.lock();
      if (gave_up) break;
    }
  }
  counts_.waiting--;
  if (closed_) return outcome_t::closed;
  if (gave_up) {
    freed_.notify_one();  // a slot this waiter was woken for goes to the next
    return outcome_t::cancelled;
  }
  if (!got) {
    counts_.timed_out++;
    return outcome_t::timed_out;
  }
  counts_.running++;
  counts_.entered++;
  return outcome_t::entered;
}

void midgame_gate_t::close() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
  }
  freed_.notify_all();
}

void midgame_gate_t::leave() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    counts_.running--;
  }
  freed_.notify_one();
}

midgame_gate_t::counts_t midgame_gate_t::snapshot() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return counts_;
}

}  // namespace pentago
