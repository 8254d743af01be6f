// Stress test of the lockless table: threads hammer a tiny table with colliding keys whose
// data is a checksum of the key; no probe may ever return data of another key. Also runs
// under ThreadSanitizer (ctest label "tsan").
#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <thread>
#include <vector>

#include "pentago/search/lockless_table.h"

using namespace pentago;

namespace {

// Data word i of key: a checksum that differs between keys in every word.
uint64_t checksum(uint64_t key, int i) {
  return mix_key(key * 0x9e3779b97f4a7c15ULL + uint64_t(i));
}

struct hammer_result_t {
  uint64_t hits = 0, wrong = 0;
};

// `threads` threads each do `operations` random stores and probes of keys 0..key_count-1 in a
// table of 2^8 buckets (so about key_count/256 keys fight over every bucket).
template <int Words, table_guard_t Guard>
hammer_result_t hammer(int threads, int operations, uint64_t key_count) {
  using table_t = lockless_table_t<Words, Guard>;
  table_t table(8);
  std::atomic<uint64_t> hits{0}, wrong{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; t++)
    workers.emplace_back([&, t] {
      std::mt19937_64 rng(1000 + t);
      typename table_t::data_t data;
      uint64_t my_hits = 0, my_wrong = 0;
      for (int op = 0; op < operations; op++) {
        const uint64_t key = rng() % key_count;
        if (rng() & 1) {
          for (int i = 0; i < Words; i++) data[i] = checksum(key, i);
          table.store(key, data, int(rng() % 8));
        } else if (table.probe(key, data)) {
          my_hits++;
          bool ok = true;
          for (int i = 0; i < Words; i++) ok &= data[i] == checksum(key, i);
          my_wrong += !ok;
        }
      }
      hits += my_hits;
      wrong += my_wrong;
    });
  for (auto& w : workers) w.join();
  return {hits.load(), wrong.load()};
}

constexpr int threads = 4;
#if defined(__SANITIZE_THREAD__)
constexpr int operations = 200000;  // ThreadSanitizer is much slower
#else
constexpr int operations = 2000000;
#endif

}  // namespace

TEST(lockless_stress, single_word_entries) {
  const auto r = hammer<1, table_guard_t::xor_key>(threads, operations, 1024);
  EXPECT_EQ(r.wrong, 0u) << "a probe returned data that belongs to another key";
  EXPECT_GT(r.hits, 0u) << "the stress test never hit: it tested nothing";
}

TEST(lockless_stress, super_sized_entries) {
  const auto r = hammer<8, table_guard_t::xor_key>(threads, operations / 2, 1024);
  EXPECT_EQ(r.wrong, 0u) << "a probe returned data that belongs to another key";
  EXPECT_GT(r.hits, 0u) << "the stress test never hit: it tested nothing";
}
