// Tests for the compacting store: contents against a model under concurrency,
// survival of heavy fragmentation, stable frozen groups, clear errors when full, and a limit
// lowered between slices.
#include "pentago/end/compacting_store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "pentago/util/error.h"

namespace pentago {
namespace {

using bytes_t = std::vector<uint8_t>;

// Self-describing contents: the first 4 bytes hold a seed (when size >= 4) and every other byte
// is derived from it, so a reader can detect torn or misplaced data without a model.
bytes_t pattern(uint32_t seed, size_t size) {
  bytes_t b(size + 8);
  for (size_t k = 0; k < size; k += 8) {
    const uint64_t word = (uint64_t(seed) << 32 | k) * 0x9e3779b97f4a7c15ULL;
    std::memcpy(b.data() + k, &word, 8);
  }
  b.resize(size);
  if (size >= 4) std::memcpy(b.data(), &seed, 4);
  return b;
}

bool consistent(std::span<const uint8_t> b) {
  if (b.size() < 4) return true;
  uint32_t seed;
  std::memcpy(&seed, b.data(), 4);
  const bytes_t expected = pattern(seed, b.size());
  return std::equal(b.begin(), b.end(), expected.begin());
}

bytes_t get(const compacting_store_t& store, group_id_t g, size_t i) {
  bytes_t out;
  store.get(g, i, out);
  return out;
}

// Expects f to throw pentago::error whose message contains the given text.
template <class F>
void expect_error(F&& f, const std::string& text) {
  try {
    f();
    ADD_FAILURE() << "expected pentago::error containing \"" << text << "\"";
  } catch (const pentago_error_t& e) {
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

TEST(CompactingStore, SetGetOverwrite) {
  compacting_store_t store(100000);
  EXPECT_EQ(store.heap_size(), 100032u);  // rounded up to 64
  const group_id_t g = store.create_group(5);
  EXPECT_EQ(store.arrays(g), 5u);
  EXPECT_FALSE(store.frozen(g));
  for (size_t i = 0; i < 5; i++) EXPECT_EQ(store.size(g, i), 0u);
  EXPECT_TRUE(get(store, g, 3).empty());

  const bytes_t a = pattern(1, 100), b = pattern(2, 70), c = pattern(3, 300);
  store.set(g, 0, a.data(), a.size());
  EXPECT_EQ(get(store, g, 0), a);
  EXPECT_EQ(store.size(g, 0), 100u);
  const uint8_t* where = store.read(g, 0).data();
  EXPECT_EQ(reinterpret_cast<uintptr_t>(where) % compacting_store_t::alignment, 0u);

  // Same aligned size (128): overwritten in place.
  store.set(g, 0, b);
  EXPECT_EQ(get(store, g, 0), b);
  EXPECT_EQ(store.read(g, 0).data(), where);
  // Larger: moved elsewhere.
  store.set(g, 0, c);
  EXPECT_EQ(get(store, g, 0), c);
  EXPECT_NE(store.read(g, 0).data(), where);
  // with_array sees the bytes and forwards the result.
  const size_t seen = store.with_array(g, 0, [&](std::span<const uint8_t> bytes) {
    EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), c.begin(), c.end()));
    return bytes.size();
  });
  EXPECT_EQ(seen, 300u);
  // Emptying an array.
  store.set(g, 0, nullptr, 0);
  EXPECT_EQ(store.size(g, 0), 0u);
  EXPECT_EQ(store.stats().live_bytes, 0u);
}

TEST(CompactingStore, StatsTrackLiveBytes) {
  compacting_store_t store(1 << 16);
  const group_id_t g = store.create_group(4);
  store.set(g, 0, pattern(1, 1000));  // 1024
  store.set(g, 1, pattern(2, 65));    // 128
  auto s = store.stats();
  EXPECT_EQ(s.heap_size, size_t(1 << 16));
  EXPECT_EQ(s.live_bytes, 1152u);
  EXPECT_EQ(s.bump_bytes, 1152u);
  EXPECT_EQ(s.allocated_bytes, 1152u);
  store.set(g, 0, pattern(3, 10));  // shrinks in place to 64
  s = store.stats();
  EXPECT_EQ(s.live_bytes, 192u);
  EXPECT_EQ(s.peak_live_bytes, 1152u);
  EXPECT_EQ(s.bump_bytes, 1152u);
  EXPECT_EQ(s.collections, 0u);
  store.collect();
  s = store.stats();
  EXPECT_EQ(s.collections, 1u);
  EXPECT_EQ(s.bump_bytes, 192u);
  EXPECT_EQ(s.moved_bytes, 65u);  // array 1 slid down; array 0 already at the bottom
  EXPECT_DOUBLE_EQ(s.free_ratio, 1 - 192.0 / 65536);
  EXPECT_DOUBLE_EQ(s.last_collection_free_ratio, 1 - 192.0 / 65536);
  EXPECT_EQ(get(store, g, 0), pattern(3, 10));
  EXPECT_EQ(get(store, g, 1), pattern(2, 65));
  EXPECT_EQ(compacting_store_t::memory_usage(1000, 10), 1024u + 160u);
}

// A write that would touch pages no write has touched collects instead where enough garbage
// (an eighth of the bytes below the bump pointer, at least 16 MiB) came since the last
// collection: the heap's touched bytes stay where they were. With less garbage it bumps into
// fresh pages as before, and no collection runs.
TEST(CompactingStore, CollectsRatherThanTouchFreshPages) {
  constexpr size_t mib = size_t(1) << 20, arrays = 160;
  for (const size_t freed : {size_t(24), size_t(8)}) {
    SCOPED_TRACE("freed " + std::to_string(freed) + " MiB");
    compacting_store_t store(256 * mib);
    const group_id_t g = store.create_group(arrays);
    for (size_t i = 0; i < 128; i++) store.set(g, i, pattern(uint32_t(i), mib));
    EXPECT_EQ(store.stats().bump_high_water, 128 * mib);
    for (size_t i = 0; i < freed; i++) store.set(g, 2 * i, bytes_t());
    for (size_t i = 128; i < 128 + freed; i++) store.set(g, i, pattern(uint32_t(i), mib));
    const auto s = store.stats();
    if (freed == 24) {
      EXPECT_GE(s.collections, 1u);
      EXPECT_EQ(s.bump_high_water, 128 * mib);
    } else {
      EXPECT_EQ(s.collections, 0u);
      EXPECT_EQ(s.bump_high_water, (128 + freed) * mib);
    }
    for (size_t i = 0; i < 128 + freed; i++) {
      const bytes_t got = get(store, g, i);
      if (i < 2 * freed && i % 2 == 0)
        EXPECT_TRUE(got.empty()) << i;
      else
        EXPECT_EQ(got, pattern(uint32_t(i), mib)) << i;
    }
  }
}

// Garbage a collection leaves behind (holes too small for the arrays above them) is gone once
// the heap is reset by destroying its only group, so it does not hold back the next group's
// collections: the next group's write past the touched pages collects as if on a new heap.
TEST(CompactingStore, DestroyForgetsTheGarbageLeftByACollection) {
  constexpr size_t mib = size_t(1) << 20;
  compacting_store_t store(256 * mib);
  const group_id_t a = store.create_group(65);
  for (size_t i = 0; i < 64; i++) store.set(a, i, pattern(uint32_t(i), i % 2 ? mib : 2 * mib));
  for (size_t i = 1; i < 64; i += 2) store.set(a, i, bytes_t());
  store.set(a, 64, pattern(64, 2 * mib));  // collects, and the 1 MiB holes stay
  EXPECT_EQ(store.stats().collections, 1u);
  EXPECT_EQ(store.stats().bump_high_water, 97 * mib);  // the top hole went
  store.destroy_group(a);

  const group_id_t b = store.create_group(160);
  for (size_t i = 0; i < 128; i++) store.set(b, i, pattern(uint32_t(i), mib));
  EXPECT_EQ(store.stats().bump_high_water, 128 * mib);
  for (size_t i = 0; i < 24; i++) store.set(b, 2 * i, bytes_t());
  for (size_t i = 128; i < 152; i++) store.set(b, i, pattern(uint32_t(i), mib));
  EXPECT_EQ(store.stats().collections, 2u);
  EXPECT_EQ(store.stats().bump_high_water, 128 * mib);
  for (size_t i = 0; i < 152; i++) {
    const bytes_t got = get(store, b, i);
    if (i < 48 && i % 2 == 0)
      EXPECT_TRUE(got.empty()) << i;
    else
      EXPECT_EQ(got, pattern(uint32_t(i), mib)) << i;
  }
}

// A write that finds the heap full moves the arrays at the top into the holes at the bottom
// (here four of them), not every live array as a full slide (collect) does.
TEST(CompactingStore, CollectionFillsHolesFromTheTop) {
  constexpr size_t heap = 64 << 10, arrays = 64, size = 1000;  // 1024 bytes each, aligned
  compacting_store_t store(heap);
  const group_id_t g = store.create_group(arrays);
  std::vector<bytes_t> model(arrays);
  for (size_t i = 0; i < arrays; i++) {
    model[i] = pattern(uint32_t(i), size);
    if (i == 4) {  // arrays 0-3 leave a 4 KiB hole at the bottom
      for (size_t k = 0; k < 4; k++) {
        store.set(g, k, bytes_t());
        model[k].clear();
      }
    }
    store.set(g, i, model[i]);
  }
  auto s = store.stats();
  EXPECT_EQ(s.bump_bytes, heap);
  EXPECT_EQ(s.collections, 0u);
  model[0] = pattern(100, size);
  store.set(g, 0, model[0]);  // finds no room: collects
  s = store.stats();
  EXPECT_EQ(s.collections, 1u);
  EXPECT_EQ(s.moved_bytes, 4 * size);                 // arrays 60-63, into the hole
  EXPECT_EQ(s.bump_bytes, (arrays - 4 + 1) * 1024u);  // the 60 packed, then array 0
  for (size_t i = 0; i < arrays; i++) EXPECT_EQ(get(store, g, i), model[i]) << i;
  store.collect();  // a full slide keeps address order: array 0 moves below the hole fillers
  for (size_t i = 0; i < arrays; i++) EXPECT_EQ(get(store, g, i), model[i]) << i;
}

// Holes too small for any array (64-byte tails of arrays shrunk in place) cannot be filled:
// the collection slides every array down instead.
TEST(CompactingStore, CollectionSlidesWhenNoHoleFits) {
  constexpr size_t heap = 64 << 10, arrays = 64;
  compacting_store_t store(heap);
  const group_id_t g = store.create_group(arrays);
  std::vector<bytes_t> model(arrays);
  for (size_t i = 0; i + 1 < arrays; i++) store.set(g, i, pattern(uint32_t(i), 1024));
  for (size_t i = 0; i + 1 < arrays; i++) {
    model[i] = pattern(uint32_t(i + 100), 960);
    store.set(g, i, model[i]);  // in place, leaving 64 bytes behind
  }
  EXPECT_EQ(store.stats().collections, 0u);
  model[arrays - 1] = pattern(7, 2048);
  store.set(g, arrays - 1, model[arrays - 1]);  // finds no room: collects
  const auto s = store.stats();
  EXPECT_EQ(s.collections, 1u);
  EXPECT_EQ(s.moved_bytes, (arrays - 2) * 960u);  // all but array 0, already at the bottom
  EXPECT_EQ(s.bump_bytes, (arrays - 1) * 960u + 2048u);
  for (size_t i = 0; i < arrays; i++) EXPECT_EQ(get(store, g, i), model[i]) << i;
}

// Several threads write and read random arrays with sizes that grow and shrink, in a heap small
// enough to collect often. Each array's writes are ordered by a per-array model mutex; other
// threads read arrays without it and check the contents are never torn.
TEST(CompactingStore, ConcurrentMatchesModel) {
  constexpr int threads = 4, ops = 20000;
  constexpr size_t arrays = 48, max_size = 1500, heap = 128 << 10;  // live <= 56% of the heap
  compacting_store_t store(heap);
  const group_id_t g = store.create_group(arrays);
  std::vector<bytes_t> model(arrays);
  std::vector<std::mutex> model_locks(arrays);
  std::atomic<int> mismatches{0}, torn{0};

  std::vector<std::thread> workers;
  for (int t = 0; t < threads; t++) {
    workers.emplace_back([&, t] {
      std::mt19937 rng(1234 + t);
      for (int op = 0; op < ops; op++) {
        const size_t i = rng() % arrays;
        const unsigned kind = rng() % 10;
        if (kind < 7) {
          const size_t size = rng() % 16 == 0 ? 0 : 4 + rng() % (max_size - 3);
          const bytes_t b = pattern(uint32_t(rng()), size);
          const std::lock_guard<std::mutex> lock(model_locks[i]);
          store.set(g, i, b);
          model[i] = b;
        } else if (kind < 9) {
          const std::lock_guard<std::mutex> lock(model_locks[i]);
          if (get(store, g, i) != model[i]) mismatches++;
        } else if (op % 50) {
          store.with_array(g, i, [&](std::span<const uint8_t> b) {
            if (!consistent(b)) torn++;
          });
        } else {  // explicit collections and statistics race with everything else
          store.collect();
          if (store.stats().live_bytes > heap) mismatches++;
        }
      }
    });
  }
  for (auto& w : workers) w.join();
  EXPECT_EQ(mismatches, 0);
  EXPECT_EQ(torn, 0);
  for (size_t i = 0; i < arrays; i++) EXPECT_EQ(get(store, g, i), model[i]) << i;
  const auto s = store.stats();
  EXPECT_GT(s.collections, 10u);
  size_t live = 0;
  for (const auto& b : model) live += compacting_store_t::align(b.size());
  EXPECT_EQ(s.live_bytes, live);
}

// Live data stays under 60% of the heap while 100 heaps' worth is allocated: only compaction
// makes this possible.
TEST(CompactingStore, FragmentationStress) {
  constexpr size_t heap = 1 << 20, arrays = 64;
  constexpr size_t max_size = heap * 6 / 10 / arrays / 64 * 64;
  compacting_store_t store(heap);
  const group_id_t g = store.create_group(arrays);
  std::vector<bytes_t> model(arrays);
  std::mt19937 rng(7);
  for (int op = 0; store.stats().allocated_bytes < 100 * heap; op++) {
    const size_t i = rng() % arrays;
    const size_t old = model[i].size();
    // A random walk that grows and shrinks, with occasional jumps.
    const long step = long(rng() % 2049) - 1024;
    const size_t size = rng() % 8 == 0 ? rng() % (max_size + 1)
                                       : size_t(std::clamp(long(old) + step, 0L, long(max_size)));
    model[i] = pattern(uint32_t(op), size);
    store.set(g, i, model[i]);
    if (op % 997 == 0) {
      const size_t j = rng() % arrays;
      ASSERT_EQ(get(store, g, j), model[j]) << "op " << op;
    }
  }
  for (size_t i = 0; i < arrays; i++) EXPECT_EQ(get(store, g, i), model[i]) << i;
  const auto s = store.stats();
  EXPECT_LE(s.peak_live_bytes, heap * 6 / 10);
  EXPECT_GE(s.allocated_bytes, 100 * heap);
  EXPECT_GT(s.collections, 100u);
  EXPECT_GT(s.last_collection_free_ratio, 0.4);
}

// A frozen group keeps its addresses and bytes while a second group churns through many
// collections (with a thread reading the frozen bytes lock-free all along), until destroyed.
TEST(CompactingStore, FreezeThenSecondGroup) {
  constexpr size_t heap = 256 << 10, arrays = 32, max_size = 2000;
  compacting_store_t store(heap);
  std::mt19937 rng(99);
  const group_id_t a = store.create_group(arrays);
  std::vector<bytes_t> model_a(arrays);
  for (int round = 0; round < 3; round++)  // leaves garbage between the arrays
    for (size_t i = 0; i < arrays; i++) {
      model_a[i] = pattern(uint32_t(rng()), 4 + rng() % (max_size - 3));
      store.set(a, i, model_a[i]);
    }
  const size_t collections = store.stats().collections;
  store.freeze(a);
  EXPECT_TRUE(store.frozen(a));
  EXPECT_EQ(store.stats().collections, collections + 1);
  size_t frozen_bytes = 0;
  std::vector<std::span<const uint8_t>> spans(arrays);
  for (size_t i = 0; i < arrays; i++) {
    spans[i] = store.frozen_data(a, i);
    frozen_bytes += compacting_store_t::align(spans[i].size());
    EXPECT_EQ(bytes_t(spans[i].begin(), spans[i].end()), model_a[i]);
    EXPECT_EQ(get(store, a, i), model_a[i]);  // locked reads work on frozen groups too
  }
  // Alone in the heap, the group keeps at most a quarter of the free room as holes.
  EXPECT_GE(store.stats().frozen_bytes, frozen_bytes);
  EXPECT_LE(store.stats().frozen_bytes - frozen_bytes, (heap - frozen_bytes) / 4);
  expect_error([&] { store.set(a, 0, pattern(1, 10)); }, "set on a frozen group");

  std::atomic<bool> done{false};
  std::atomic<int> frozen_mismatches{0};
  std::thread frozen_reader([&] {
    while (!done.load())
      for (size_t i = 0; i < arrays; i++) {
        const auto now = store.frozen_data(a, i);
        if (now.data() != spans[i].data() || now.size() != model_a[i].size() ||
            !std::equal(now.begin(), now.end(), model_a[i].begin()))
          frozen_mismatches++;
      }
  });
  const group_id_t b = store.create_group(arrays);
  std::vector<bytes_t> model_b(arrays);
  for (int op = 0; op < 20000; op++) {
    const size_t i = rng() % arrays;
    model_b[i] = pattern(uint32_t(rng()), rng() % max_size);
    store.set(b, i, model_b[i]);
  }
  done = true;
  frozen_reader.join();
  EXPECT_EQ(frozen_mismatches, 0);
  EXPECT_GT(store.stats().collections, collections + 20);
  for (size_t i = 0; i < arrays; i++) {
    EXPECT_EQ(store.frozen_data(a, i).data(), spans[i].data());
    EXPECT_EQ(get(store, b, i), model_b[i]);
  }

  // Dropping the frozen group lets the second group move down into its space and be frozen.
  store.destroy_group(a);
  EXPECT_EQ(store.stats().frozen_bytes, 0u);
  expect_error([&] { store.frozen_data(a, 0); }, "unknown or destroyed group");
  store.freeze(b);
  const auto s = store.stats();
  EXPECT_EQ(s.frozen_bytes, s.live_bytes);
  EXPECT_EQ(s.bump_bytes, s.live_bytes);
  for (size_t i = 0; i < arrays; i++) {
    const auto span = store.frozen_data(b, i);
    EXPECT_EQ(bytes_t(span.begin(), span.end()), model_b[i]);
  }
  // A third group accumulates above the frozen one; its collections leave the frozen one alone.
  const group_id_t c = store.create_group(4);
  const auto* b0 = store.frozen_data(b, 0).data();
  for (int op = 0; op < 2000; op++) store.set(c, op % 4, pattern(op, 4 + op % 9000));
  store.collect();
  EXPECT_EQ(store.frozen_data(b, 0).data(), b0);
  for (size_t i = 0; i < 4; i++) EXPECT_TRUE(consistent(get(store, c, i)));
}

// Input blocks are released from a frozen group while the next slice's group fills up (from
// several threads, with readers of both): the released space is reused, every surviving
// array keeps its bytes, and the frozen group stays below the unfrozen one.
TEST(CompactingStore, ReleaseFromFrozenGroupReclaimsSpace) {
  constexpr size_t arrays = 400, max_size = 3000;
  // Room for the frozen group plus about half of it again: without reuse of released space
  // the second group cannot fit.
  compacting_store_t store(1400 << 10);
  std::mt19937 rng(7);
  const group_id_t a = store.create_group(arrays);
  std::vector<bytes_t> model_a(arrays);
  for (size_t i = 0; i < arrays; i++) {
    model_a[i] = pattern(uint32_t(rng()), 1000 + rng() % (max_size - 1000));
    store.set(a, i, model_a[i]);
  }
  store.freeze(a);
  const size_t frozen_live = store.stats().live_bytes;
  expect_error([&] { store.set(a, 0, pattern(1, 10)); }, "set on a frozen group");
  const group_id_t b = store.create_group(arrays);
  std::vector<bytes_t> model_b(arrays);
  std::vector<int> order(arrays);
  for (size_t i = 0; i < arrays; i++) order[i] = int(i);
  std::shuffle(order.begin(), order.end(), rng);
  for (size_t i = 0; i < arrays; i++) model_b[i] = pattern(uint32_t(rng()), 1000 + rng() % 2000);
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; t++)
    threads.emplace_back([&, t] {
      for (size_t k = t; k < arrays; k += 3) {
        // Read a frozen array, release it, write an array of the new group, and re-read both.
        const int i = order[k];
        if (get(store, a, i) != model_a[i]) bad++;
        store.release(a, i);
        store.set(b, i, model_b[i]);
        if (get(store, b, i) != model_b[i]) bad++;
        const int other = order[(k + 1) % arrays];
        const bytes_t seen = get(store, a, other);  // released (empty) or intact
        if (!seen.empty() && seen != model_a[other]) bad++;
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(bad, 0);
  EXPECT_GT(store.stats().collections, 1u);
  expect_error([&] { store.frozen_data(a, 0); }, "released");
  for (size_t i = 0; i < arrays; i++) {
    EXPECT_EQ(store.size(a, i), 0u);
    EXPECT_EQ(get(store, b, i), model_b[i]);
  }
  EXPECT_LT(store.stats().live_bytes, 2 * frozen_live);
  // The emptied frozen group goes, and the new one can be frozen in its place.
  store.destroy_group(a);
  store.freeze(b);
  const auto s = store.stats();
  EXPECT_GE(s.frozen_bytes, s.live_bytes);
  EXPECT_LE(s.frozen_bytes - s.live_bytes, (s.heap_size - s.live_bytes) / 4);
  for (size_t i = 0; i < arrays; i++) {
    const auto span = store.frozen_data(b, i);
    EXPECT_EQ(bytes_t(span.begin(), span.end()), model_b[i]);
  }
}

TEST(CompactingStore, FreezeNeedsOtherGroupsEmpty) {
  compacting_store_t store(1 << 16);
  const group_id_t a = store.create_group(2), b = store.create_group(2);
  store.set(a, 0, pattern(1, 100));
  store.set(b, 0, pattern(2, 100));
  expect_error([&] { store.freeze(a); }, "another unfrozen group holds data");
  store.set(b, 0, nullptr, 0);
  store.freeze(a);  // b exists but is empty
  expect_error([&] { store.freeze(a); }, "already frozen");
  store.set(b, 1, pattern(3, 200));
  store.freeze(b);  // stacks above the frozen a
  EXPECT_EQ(store.stats().frozen_bytes, 128u + 256u);
  EXPECT_EQ(get(store, a, 0), pattern(1, 100));
  EXPECT_EQ(get(store, b, 1), pattern(3, 200));
}

// More live data than the heap holds: a clear pentago::error, and the store stays usable.
TEST(CompactingStore, FullThrowsClearError) {
  compacting_store_t store(1 << 16, 0);
  const group_id_t g = store.create_group(20);
  for (size_t i = 0; i < 16; i++) store.set(g, i, pattern(uint32_t(i), 4096));
  expect_error([&] { store.set(g, 16, pattern(16, 4000)); },
               "compacting store full: need 4032 bytes, 0 free of 65536");
  expect_error([&] { store.set(g, 17, pattern(17, 1 << 17)); },
               "compacting store full: need 131072 bytes, 0 free of 65536");
  for (size_t i = 0; i < 16; i++) EXPECT_EQ(get(store, g, i), pattern(uint32_t(i), 4096));
  // A failed grow leaves its array empty; the space it had is then usable.
  expect_error([&] { store.set(g, 3, pattern(3, 8192)); },
               "compacting store full: need 8192 bytes, 4096 free of 65536");
  EXPECT_EQ(store.size(g, 3), 0u);
  store.set(g, 16, pattern(16, 4000));
  EXPECT_EQ(get(store, g, 16), pattern(16, 4000));
}

// Collections that would leave under min_free_fraction free fail instead of thrashing.
TEST(CompactingStore, MinimumFreeFraction) {
  for (const double fraction : {0.02, 0.0}) {
    compacting_store_t store(1 << 16, fraction);
    const group_id_t g = store.create_group(16);
    for (size_t i = 0; i < 15; i++) store.set(g, i, pattern(uint32_t(i), 4096));
    store.set(g, 15, pattern(15, 2048));  // 2048 free
    // Growing array 15 collects, leaving 1024 bytes free: under 2% of the heap.
    const auto grow = [&] { store.set(g, 15, pattern(15, 3072)); };
    if (fraction) {
      expect_error(grow,
                   "compacting store full: need 3072 bytes, 4096 free of 65536 after a "
                   "collection, leaving less than the minimum free fraction");
    } else {
      grow();
      EXPECT_EQ(get(store, g, 15), pattern(15, 3072));
    }
  }
}

TEST(CompactingStore, DestroyFreesSpace) {
  compacting_store_t store(1 << 16, 0);
  // Destroying the only group resets the heap without a collection.
  group_id_t a = store.create_group(12);
  for (size_t i = 0; i < 12; i++) store.set(a, i, pattern(uint32_t(i), 4096));
  store.destroy_group(a);
  EXPECT_EQ(store.stats().live_bytes, 0u);
  EXPECT_EQ(store.stats().bump_bytes, 0u);

  // With another group alive, the next collection reclaims the destroyed group's bytes.
  a = store.create_group(8);
  const group_id_t b = store.create_group(12);
  for (size_t i = 0; i < 8; i++) {
    store.set(a, i, pattern(uint32_t(i), 4096));
    if (i < 4) store.set(b, i, pattern(uint32_t(100 + i), 4096));
  }
  store.destroy_group(a);
  const auto before = store.stats().collections;
  for (size_t i = 4; i < 12; i++) store.set(b, i, pattern(uint32_t(100 + i), 4096));
  EXPECT_EQ(store.stats().collections, before + 1);
  for (size_t i = 0; i < 12; i++) EXPECT_EQ(get(store, b, i), pattern(uint32_t(100 + i), 4096));

  // A destroyed frozen group's space goes to the group above it.
  store.destroy_group(b);
  const group_id_t f = store.create_group(8);
  for (size_t i = 0; i < 8; i++) store.set(f, i, pattern(uint32_t(i), 4096));
  store.freeze(f);
  const group_id_t c = store.create_group(12);
  for (size_t i = 0; i < 7; i++) store.set(c, i, pattern(uint32_t(200 + i), 4096));
  expect_error([&] { store.set(c, 7, pattern(207, 8192)); }, "compacting store full");
  store.destroy_group(f);
  for (size_t i = 7; i < 12; i++) store.set(c, i, pattern(uint32_t(200 + i), 4096));
  for (size_t i = 0; i < 12; i++) EXPECT_EQ(get(store, c, i), pattern(uint32_t(200 + i), 4096));
}

TEST(CompactingStore, MisuseThrows) {
  expect_error([] { compacting_store_t store(0); }, "heap size must be positive");
  expect_error([] { compacting_store_t store(64, 1.5); }, "min_free_fraction");
  compacting_store_t store(1 << 12);
  expect_error([&] { store.size(group_id_t(), 0); }, "size on an unknown or destroyed group");
  const group_id_t a = store.create_group(3), b = store.create_group(1);
  expect_error([&] { store.create_group(1); }, "at most 2 groups");
  expect_error([&] { store.set(a, 3, pattern(1, 8)); }, "set: array index 3 out of range [0, 3)");
  expect_error([&] { store.read(a, 7); }, "read: array index 7 out of range");
  expect_error([&] { store.frozen_data(a, 0); }, "frozen_data on an unfrozen group");
  store.destroy_group(b);
  expect_error([&] { store.set(b, 0, pattern(1, 8)); }, "set on an unknown or destroyed group");
  expect_error([&] { store.destroy_group(b); }, "unknown or destroyed group");
  const group_id_t c = store.create_group(1);  // reuses b's slot, with a new generation
  EXPECT_EQ(c.slot, b.slot);
  expect_error([&] { store.arrays(b); }, "unknown or destroyed group");
  EXPECT_EQ(store.arrays(c), 1u);
  // The store still works after all these errors (no lock left held).
  store.set(a, 0, pattern(5, 50));
  EXPECT_EQ(get(store, a, 0), pattern(5, 50));
}

// A lowered limit bounds bump allocation and gives the pages above it back; a write that does
// not fit under it even after a collection raises it back instead of failing.
TEST(CompactingStore, LimitLendsTheTopAndGivesWay) {
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  compacting_store_t store(64 * page, 0);
  EXPECT_EQ(store.limit(), store.heap_size());
  const group_id_t g = store.create_group(64);
  for (size_t i = 0; i < 32; i++) store.set(g, i, pattern(uint32_t(i), page));
  store.freeze(g);
  EXPECT_EQ(store.stats().bump_high_water, 32 * page);
  // Never below the data held; rounded up to whole pages.
  store.set_limit(page + 1);
  EXPECT_EQ(store.limit(), 32 * page);
  store.set_limit(40 * page + 1);
  EXPECT_EQ(store.limit(), 41 * page);
  const group_id_t h = store.create_group(64);
  for (size_t i = 0; i < 9; i++) store.set(h, i, pattern(uint32_t(100 + i), page));
  EXPECT_EQ(store.stats().bump_high_water, 41 * page);
  EXPECT_EQ(store.stats().limit_raises, 0u);
  // Lowering releases the touched pages above the limit (they read back as zeros: nothing
  // lives there), and the data below is intact.
  store.destroy_group(h);
  store.set_limit(33 * page);
  EXPECT_EQ(store.limit(), 33 * page);
  EXPECT_EQ(store.stats().bump_high_water, 33 * page);
  for (size_t i = 0; i < 32; i++) EXPECT_EQ(get(store, g, i), pattern(uint32_t(i), page));
  // Past the limit: the write collects, then raises the limit back to the heap's size.
  const group_id_t k = store.create_group(64);
  for (size_t i = 0; i < 20; i++) store.set(k, i, pattern(uint32_t(200 + i), page));
  EXPECT_EQ(store.limit(), store.heap_size());
  EXPECT_EQ(store.stats().limit_raises, 1u);
  EXPECT_EQ(store.stats().limit, store.heap_size());
  for (size_t i = 0; i < 20; i++) EXPECT_EQ(get(store, k, i), pattern(uint32_t(200 + i), page));
  for (size_t i = 0; i < 32; i++) EXPECT_EQ(get(store, g, i), pattern(uint32_t(i), page));
}

// A write that finds too little room under lent pages asks the lent reclaimer for the pages
// right above the heap: what it gives back holds the write; with nothing given back the
// write is refused, as before.
TEST(CompactingStore, LentReclaimerMakesRoomForWrites) {
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  compacting_store_t store(64 * page, 0);
  const group_id_t g = store.create_group(64);
  for (size_t i = 0; i < 16; i++) store.set(g, i, pattern(uint32_t(i), page));
  const std::span<uint8_t> top = store.lend_top(16 * page);
  ASSERT_EQ(top.size(), 48 * page);
  size_t asked = 0, spare = 0;  // the borrower lets go of `spare` bytes at the start
  uint8_t* expected_at = top.data();
  store.set_lent_reclaimer([&](uint8_t* at, size_t bytes) {
    EXPECT_EQ(at, expected_at);
    asked += bytes;
    const size_t given = std::min(bytes, spare);
    spare -= given, expected_at += given;
    return given;
  });
  EXPECT_THROW(store.set(g, 16, pattern(16, page)), pentago_error_t);  // nothing to give back
  EXPECT_GT(asked, 0u);
  spare = 4 * page;
  for (size_t i = 16; i < 20; i++) store.set(g, i, pattern(uint32_t(i), page));
  EXPECT_EQ(spare, 0u);
  EXPECT_EQ(store.limit(), 20 * page);
  EXPECT_GE(store.stats().limit_raises, 1u);
  for (size_t i = 0; i < 20; i++) EXPECT_EQ(get(store, g, i), pattern(uint32_t(i), page));
}

// lend_top hands the heap's top pages to the caller until reclaim_lent: the limit does not
// rise into them meanwhile, writes past the limit rise only to them, and what the heap holds
// stays intact; reclaimed, they hold arrays again.
TEST(CompactingStore, LendTopKeepsItsPagesOutOfTheHeap) {
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  compacting_store_t store(64 * page, 0);
  const group_id_t g = store.create_group(64);
  for (size_t i = 0; i < 16; i++) store.set(g, i, pattern(uint32_t(i), page));
  // Never below the data held, never above the limit; page-rounded.
  EXPECT_TRUE(store.lend_top(store.heap_size() + page).empty());
  const std::span<uint8_t> top = store.lend_top(20 * page + 1);
  ASSERT_EQ(top.size(), store.heap_size() - 21 * page);
  EXPECT_EQ(store.limit(), 21 * page);
  std::memset(top.data(), 0xab, top.size());                 // the borrower's now
  EXPECT_TRUE(store.lend_top(8 * page).size() == 5 * page);  // down to the 16 pages held
  EXPECT_EQ(store.limit(), 16 * page);
  store.set_limit(store.heap_size());  // set_limit stays below what was lent
  EXPECT_EQ(store.limit(), 16 * page);
  // A write past the limit collects (the first 8 arrays were dropped), then fits.
  for (size_t i = 0; i < 8; i++) store.set(g, i, nullptr, 0);
  for (size_t i = 16; i < 24; i++) store.set(g, i, pattern(uint32_t(i), page));
  // No room even after a collection: refused, not raised into the lent pages.
  EXPECT_THROW(store.set(g, 24, pattern(24, page)), pentago_error_t);
  for (size_t i = 8; i < 24; i++) EXPECT_EQ(get(store, g, i), pattern(uint32_t(i), page));
  for (size_t i = 0; i < top.size(); i++) ASSERT_EQ(top[i], 0xab) << i;
  // Taken back, the pages are the heap's again: the limit rises into them and writes use them.
  store.reclaim_lent();
  EXPECT_EQ(store.limit(), 16 * page);
  store.set_limit(store.heap_size());
  EXPECT_EQ(store.limit(), store.heap_size());
  for (size_t i = 24; i < 64; i++) store.set(g, i, pattern(uint32_t(i), page));
  for (size_t i = 8; i < 64; i++) EXPECT_EQ(get(store, g, i), pattern(uint32_t(i), page));
}

// With a first-touch chooser, a write past the pages made resident has the chooser take the
// chunks up to its end first, in order and never past the limit; writes below them take none;
// a lowered limit brings the resident mark down with it.
TEST(CompactingStore, FirstTouchChooserTakesChunksAheadOfWrites) {
  const size_t chunk = first_touch_chooser_t::chunk_bytes, quarter = chunk / 4;
  std::vector<std::pair<uintptr_t, size_t>> asked;
  first_touch_chooser_t chooser(page_probe_t{}, [&](uint8_t* at, size_t bytes, page_size_t) {
    asked.push_back({uintptr_t(at), bytes});
    return std::optional<double>();
  });
  compacting_store_t store(3 * chunk + 2 * quarter, 0);
  store.set_first_touch(&chooser);
  const group_id_t g = store.create_group(64);
  store.set(g, 0, pattern(0, quarter));
  const uintptr_t heap = uintptr_t(store.read(g, 0).data());
  const auto offsets = [&] {
    std::vector<std::pair<size_t, size_t>> o;
    for (const auto& [at, bytes] : asked) o.push_back({size_t(at - heap), bytes});
    return o;
  };
  using pieces_t = std::vector<std::pair<size_t, size_t>>;
  EXPECT_EQ(offsets(), (pieces_t{{0, chunk}}));
  for (size_t i = 1; i < 4; i++) store.set(g, i, pattern(uint32_t(i), quarter));
  EXPECT_EQ(asked.size(), 1u);
  store.set(g, 4, pattern(4, quarter));
  EXPECT_EQ(offsets(), (pieces_t{{0, chunk}, {chunk, chunk}}));
  for (size_t i = 5; i < 14; i++) store.set(g, i, pattern(uint32_t(i), quarter));
  // The last piece ends at the limit, half a chunk on.
  EXPECT_EQ(offsets(),
            (pieces_t{{0, chunk}, {chunk, chunk}, {2 * chunk, chunk}, {3 * chunk, 2 * quarter}}));
  for (size_t i = 0; i < 14; i++) EXPECT_EQ(get(store, g, i), pattern(uint32_t(i), quarter));
  // Emptied and lowered to one chunk: writes below it take nothing; the first above it (the
  // limit raised back) takes the next chunk again.
  store.destroy_group(g);
  store.collect();
  store.set_limit(chunk);
  asked.clear();
  const group_id_t h = store.create_group(64);
  for (size_t i = 0; i < 4; i++) store.set(h, i, pattern(uint32_t(20 + i), quarter));
  EXPECT_TRUE(asked.empty());
  store.set(h, 4, pattern(24, quarter));
  EXPECT_EQ(offsets(), (pieces_t{{chunk, chunk}}));
  for (size_t i = 0; i < 5; i++) EXPECT_EQ(get(store, h, i), pattern(uint32_t(20 + i), quarter));
}

}  // namespace
}  // namespace pentago
