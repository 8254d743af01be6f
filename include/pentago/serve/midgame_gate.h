// A counting semaphore with a bounded wait queue for the server's midgame solves: at most
// `slots` holders at once, at most `queue` waiters, each waiting at most a timeout.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>

namespace pentago {

class midgame_gate {
 public:
  midgame_gate(int slots, int queue) : slots_(slots), queue_(queue) {}

  enum class outcome { entered, queue_full, timed_out, closed, cancelled };
  // Takes a slot, waiting in the queue if all are taken (up to `timeout`, and while
  // `cancelled`, asked every tenth of a second, is false).
  outcome enter(std::chrono::duration<double> timeout, const std::function<bool()>& cancelled = {});
  // Refuses every later enter() and wakes the waiters (closed): the server is stopping.
  void close();
  // Gives a slot back (after a successful enter()).
  void leave();

  struct counts {
    int running = 0, waiting = 0;
    uint64_t entered = 0, rejected = 0, timed_out = 0;
  };
  counts snapshot() const;
  int slots() const { return slots_; }
  int queue() const { return queue_; }

 private:
  const int slots_, queue_;
  bool closed_ = false;
  mutable std::mutex mutex_;
  std::condition_variable freed_;
  counts counts_;
};

// Holds a slot of a gate for a scope (after enter() returned entered).
class gate_slot {
 public:
  explicit gate_slot(midgame_gate& gate) : gate_(&gate) {}
  ~gate_slot() { gate_->leave(); }
  gate_slot(const gate_slot&) = delete;
  gate_slot& operator=(const gate_slot&) = delete;

 private:
  midgame_gate* gate_;
};

}  // namespace pentago
