// The server's bounded semaphore for midgame solves (see midgame_gate.h).
#include "pentago/serve/midgame_gate.h"

namespace pentago {

midgame_gate::outcome midgame_gate::enter(std::chrono::duration<double> timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (closed_) return outcome::closed;
  if (counts_.running < slots_ && counts_.waiting == 0) {
    counts_.running++;
    counts_.entered++;
    return outcome::entered;
  }
  if (counts_.waiting >= queue_) {
    counts_.rejected++;
    return outcome::queue_full;
  }
  counts_.waiting++;
  const bool got =
      freed_.wait_for(lock, timeout, [&] { return closed_ || counts_.running < slots_; });
  counts_.waiting--;
  if (closed_) return outcome::closed;
  if (!got) {
    counts_.timed_out++;
    return outcome::timed_out;
  }
  counts_.running++;
  counts_.entered++;
  return outcome::entered;
}

void midgame_gate::close() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
  }
  freed_.notify_all();
}

void midgame_gate::leave() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    counts_.running--;
  }
  freed_.notify_one();
}

midgame_gate::counts midgame_gate::snapshot() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return counts_;
}

}  // namespace pentago
