// A counting semaphore with a bounded wait queue for the server's midgame solves: at most
// `slots` holders at once, at most `queue` waiters, each waiting at most a timeout.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>

namespace pentago {

class midgame_gate_t {
 public:
  midgame_gate_t(int slots, int queue) : slots_(slots), queue_(queue) {}

  enum class outcome_t { entered, queue_full, timed_out, closed, cancelled };
  // Takes a slot, waiting in the queue if all are taken (up to `timeout`, and while
  // `cancelled`, asked every tenth of a second, is false).
  outcome_t enter(std::chrono::duration<double> timeout,
                  const std::function<bool()>& cancelled = {});
  // Refuses every later enter() and wakes the waiters (closed): the server is stopping.
  void close();
  // Gives a slot back (after a successful enter()).
  void leave();

  struct counts_t {
    int running = 0, waiting = 0;
    uint64_t entered = 0, rejected = 0, timed_out = 0;
  };
  counts_t snapshot() const;
  int slots() const { return slots_; }
  int queue() const { return queue_; }

 private:
  const int slots_, queue_;
  bool closed_ = false;
  mutable std::mutex mutex_;
  std::condition_variable freed_;
  counts_t counts_;
};

// Holds a slot of a gate for a scope (after enter() returned entered).
class gate_slot_t {
 public:
  explicit gate_slot_t(midgame_gate_t& gate) : gate_(&gate) {}
  ~gate_slot_t() { gate_->leave(); }
  gate_slot_t(const gate_slot_t&) = delete;
  gate_slot_t& operator=(const gate_slot_t&) = delete;

 private:
  midgame_gate_t* gate_;
};

}  // namespace pentago
