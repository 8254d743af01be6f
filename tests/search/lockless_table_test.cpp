// Tests of the lockless transposition table: store and probe, replacement, and the torn-entry
// guard (an entry fabricated from two different writes is rejected, unlike a naive table).
#include "pentago/search/lockless_table.h"

#include <gtest/gtest.h>

#include "pentago/util/error.h"

using namespace pentago;

namespace {

// Two distinct keys that fall into the same bucket of a table.
template <class Table>
std::pair<uint64_t, uint64_t> colliding_keys(const Table& table, uint64_t start) {
  const uint64_t first = start;
  for (uint64_t k = start + 1;; k++)
    if (table.bucket_of(k) == table.bucket_of(first)) return {first, k};
}

// Writes key_a's entry and key_b's entry to the same way of one bucket (through way 0, by
// giving each the larger cost when it is stored), and returns both raw images.
template <class Table>
std::pair<typename Table::raw_entry_t, typename Table::raw_entry_t> raw_images(
    Table& table, uint64_t key_a, const typename Table::data_t& a, uint64_t key_b,
    const typename Table::data_t& b) {
  const uint64_t bucket = table.bucket_of(key_a);
  table.clear();
  table.store(key_a, a, 10);
  const auto image_a = table.load_raw(bucket, 0);
  table.clear();
  table.store(key_b, b, 10);
  const auto image_b = table.load_raw(bucket, 0);
  table.clear();
  return {image_a, image_b};
}

}  // namespace

TEST(lockless_table, store_and_probe) {
  lockless_table_t<2> table(10);
  EXPECT_EQ(table.buckets(), 1024u);
  EXPECT_EQ(table.entries(), 2048u);
  lockless_table_t<2>::data_t data;
  EXPECT_FALSE(table.probe(12345, data));
  // Empty entries are all zero words; key 0 with zero data must still not hit before a store.
  EXPECT_FALSE(table.probe(0, data));
  table.store(12345, {7, 9}, 3);
  ASSERT_TRUE(table.probe(12345, data));
  EXPECT_EQ(data[0], 7u);
  EXPECT_EQ(data[1], 9u);
  table.store(0, {0, 0}, 0);
  ASSERT_TRUE(table.probe(0, data));
  EXPECT_EQ(data[0], 0u);
  table.clear();
  EXPECT_FALSE(table.probe(12345, data));
  EXPECT_FALSE(table.probe(0, data));
}

TEST(lockless_table, rejects_bad_sizes) {
  EXPECT_THROW(lockless_table_t<1>(7), usage_error_t);
  EXPECT_THROW(lockless_table_t<1>(41), usage_error_t);
}

TEST(lockless_table, keeps_expensive_entries) {
  lockless_table_t<1> table(8);
  // Three keys in one bucket: the expensive one stays in way 0, cheap ones share way 1.
  std::vector<uint64_t> keys = {1000};
  for (uint64_t k = 1001; keys.size() < 3; k++)
    if (table.bucket_of(k) == table.bucket_of(keys[0])) keys.push_back(k);
  lockless_table_t<1>::data_t data;
  table.store(keys[0], {100}, 20);
  table.store(keys[1], {101}, 5);
  table.store(keys[2], {102}, 6);
  ASSERT_TRUE(table.probe(keys[0], data));
  EXPECT_EQ(data[0], 100u);
  EXPECT_FALSE(table.probe(keys[1], data));
  ASSERT_TRUE(table.probe(keys[2], data));
  EXPECT_EQ(data[0], 102u);
  // A more expensive result displaces the depth-preferred entry.
  table.store(keys[1], {201}, 30);
  ASSERT_TRUE(table.probe(keys[1], data));
  EXPECT_EQ(data[0], 201u);
  EXPECT_FALSE(table.probe(keys[0], data));
  // Re-storing a present key overwrites it in place.
  table.store(keys[2], {302}, 0);
  ASSERT_TRUE(table.probe(keys[2], data));
  EXPECT_EQ(data[0], 302u);
  ASSERT_TRUE(table.probe(keys[1], data));
}

// The deterministic torn write: the check word of key A's entry with the data word of key B's
// entry in one slot. The XOR guard rejects it for both keys; a naive (tag, data) table hands
// key A the data of key B.
TEST(lockless_table, torn_entry_rejected_by_xor_guard) {
  lockless_table_t<1> guarded(8);
  lockless_table_t<1, table_guard_t::plain> naive(8);
  const auto [key_a, key_b] = colliding_keys(guarded, 77);
  ASSERT_EQ(naive.bucket_of(key_a), naive.bucket_of(key_b));
  const uint64_t bucket = guarded.bucket_of(key_a);

  auto [ga, gb] = raw_images(guarded, key_a, {0xaaaa}, key_b, {0xbbbb});
  lockless_table_t<1>::raw_entry_t torn = {ga[0], gb[1]};  // A's check word, B's data word
  guarded.store_raw(bucket, 0, torn);
  lockless_table_t<1>::data_t data;
  EXPECT_FALSE(guarded.probe(key_a, data));
  EXPECT_FALSE(guarded.probe(key_b, data));
  // The untorn images are accepted, so the rejection is due to the tear alone.
  guarded.store_raw(bucket, 0, ga);
  ASSERT_TRUE(guarded.probe(key_a, data));
  EXPECT_EQ(data[0], 0xaaaau);

  auto [na, nb] = raw_images(naive, key_a, {0xaaaa}, key_b, {0xbbbb});
  naive.store_raw(bucket, 0, {na[0], nb[1]});
  ASSERT_TRUE(naive.probe(key_a, data)) << "the naive table should accept the torn entry";
  EXPECT_EQ(data[0], 0xbbbbu) << "and return another key's data";
}

// Multi-word entries (the super table's layout): a tear between any two pairs is rejected.
TEST(lockless_table, torn_multiword_entry_rejected) {
  using table_t = lockless_table_t<8>;
  table_t table(8);
  const auto [key_a, key_b] = colliding_keys(table, 5);
  const uint64_t bucket = table.bucket_of(key_a);
  table_t::data_t a, b;
  for (int i = 0; i < 8; i++) a[i] = ~uint64_t(0), b[i] = 0;  // typical all-ones / all-zero supers
  auto [ia, ib] = raw_images(table, key_a, a, key_b, b);
  table_t::data_t data;
  for (int cut = 1; cut < table_t::entry_words; cut++) {
    // Words before `cut` from A's write, the rest from B's.
    table_t::raw_entry_t torn;
    for (int i = 0; i < table_t::entry_words; i++) torn[i] = i < cut ? ia[i] : ib[i];
    table.store_raw(bucket, 0, torn);
    EXPECT_FALSE(table.probe(key_a, data)) << "cut " << cut;
    EXPECT_FALSE(table.probe(key_b, data)) << "cut " << cut;
  }
  table.store_raw(bucket, 0, ib);
  ASSERT_TRUE(table.probe(key_b, data));
  EXPECT_EQ(data, b);
}
