// The server's midgame gate: slots, a bounded queue, timeouts, and hand-over to waiters.
#include "pentago/serve/midgame_gate.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace pentago {
namespace {

using namespace std::chrono_literals;

TEST(MidgameGate, SlotsThenQueueThenRejects) {
  midgame_gate_t gate(2, 1);
  EXPECT_EQ(gate.enter(0s), midgame_gate_t::outcome_t::entered);
  EXPECT_EQ(gate.enter(0s), midgame_gate_t::outcome_t::entered);
  // Both slots taken: one waiter may queue (and times out), a second is rejected at once.
  std::thread waiter([&] { EXPECT_EQ(gate.enter(50ms), midgame_gate_t::outcome_t::timed_out); });
  while (gate.snapshot().waiting == 0) std::this_thread::yield();
  EXPECT_EQ(gate.enter(10s), midgame_gate_t::outcome_t::queue_full);
  waiter.join();
  const auto counts = gate.snapshot();
  EXPECT_EQ(counts.running, 2);
  EXPECT_EQ(counts.rejected, 1u);
  EXPECT_EQ(counts.timed_out, 1u);
}

TEST(MidgameGate, NeverMoreHoldersThanSlots) {
  midgame_gate_t gate(3, 100);
  std::atomic<int> holders{0}, most{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 16; t++)
    threads.emplace_back([&] {
      for (int i = 0; i < 50; i++) {
        ASSERT_EQ(gate.enter(10s), midgame_gate_t::outcome_t::entered);
        gate_slot_t slot(gate);
        const int now = ++holders;
        int seen = most.load();
        while (now > seen && !most.compare_exchange_weak(seen, now)) {
        }
        std::this_thread::yield();
        holders--;
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_LE(most.load(), 3);
  EXPECT_EQ(gate.snapshot().entered, 16u * 50u);
  EXPECT_EQ(gate.snapshot().running, 0);
}

}  // namespace
}  // namespace pentago
