// Lockless transposition table shared by all search threads (Hyatt & Mann 2002): every data
// word is stored next to a check word (tag XOR data), so a torn write never probes as a hit.
//
// Layout. The table has 2^bits buckets of 2 entries ("ways"). An entry holds `Words` 64-bit
// data words as `Words` Hyatt-Mann pairs (check_i = tag ^ data_i, data_i). All pairs of one
// entry carry the same tag, so a probe accepts the entry only if every pair decodes to the
// probed tag: a reader that sees a mix of two writes to different keys finds at least one
// pair whose check word and data word come from different writes and rejects the entry. The
// tag includes the cost byte, so only two writes of the same key with the same cost can mix
// unnoticed; the super search stores exact values, one per key, so such a mix is the value
// itself. (A user storing different multi-word data under one key would have to accept
// mixes.) A super value (512 bits) uses Words = 8: 16 words, 128 bytes, two cache lines.
//
// Tag. The key is first mixed by a bijective 64-bit function h = mix_key(key). The low `bits`
// bits of h pick the bucket; the tag is (h >> bits) << 8 | cost, with cost in 1..255. Because
// the mix is invertible, bucket and tag together identify the key exactly (no false hits from
// key truncation), and 8 bits stay free for the replacement cost. An empty entry (all words
// zero) decodes to cost 0, which no store writes, so it never matches.
//
// Replacement. Way 0 is "depth preferred": a new entry replaces it only if its cost is at
// least the stored one. Otherwise the new entry goes to way 1, which always accepts. A key
// already present in either way is overwritten in place.
//
// Memory model. Words are std::atomic<uint64_t> read and written with relaxed order: there are
// no data races in the C++ sense (ThreadSanitizer-clean), and the XOR guard provides the
// consistency check that the missing ordering does not. The `plain` guard stores the tag
// itself instead of tag ^ data; it exists only to demonstrate in tests that such a table
// accepts torn entries.
#pragma once
#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "pentago/util/error.h"
#include "pentago/util/random.h"

namespace pentago {

// Bucket choice and key check mix the key bijectively (the splitmix64 finalizer).
constexpr uint64_t mix_key(uint64_t x) { return mix64_finalize(x); }

// How an entry's check word protects its data word.
enum class table_guard_t {
  xor_key,  // check = tag ^ data (Hyatt & Mann): torn entries are rejected
  plain,    // check = tag: the naive layout, for tests only
};

template <int Words, table_guard_t Guard = table_guard_t::xor_key>
class lockless_table_t {
  static_assert(Words >= 1 && Words <= 64, "entry size");

 public:
  static constexpr int data_words = Words;
  static constexpr int entry_words = 2 * Words;
  static constexpr int ways = 2;
  // At least 8 bucket bits, so that the key's remaining 56 bits and the cost byte fit the tag.
  static constexpr int min_bits = 8, max_bits = 40;
  static constexpr int max_cost = 254;
  using data_t = std::array<uint64_t, Words>;
  // The stored words of one entry: pair i is (words[2i], words[2i+1]) = (check_i, data_i).
  using raw_entry_t = std::array<uint64_t, entry_words>;

  // 2^bits buckets of 2 entries each; throws usage_error if bits is out of range.
  explicit lockless_table_t(int bits) : bits_(bits) {
    if (bits < min_bits || bits > max_bits)
      throw usage_error_t("table bits must be between " + std::to_string(min_bits) + " and " +
                          std::to_string(max_bits) + ", got " + std::to_string(bits));
    const uint64_t words = (uint64_t(1) << bits) * ways * entry_words;
    lines_ = std::make_unique<line_t[]>((words + line_words - 1) / line_words);
    line_count_ = (words + line_words - 1) / line_words;
  }

  int bits() const { return bits_; }
  uint64_t buckets() const { return uint64_t(1) << bits_; }
  uint64_t entries() const { return buckets() * ways; }
  uint64_t memory_bytes() const { return line_count_ * sizeof(line_t); }

  // The bucket a key lives in.
  uint64_t bucket_of(uint64_t key) const { return mix_key(key) & (buckets() - 1); }

  // Copies the data stored for key into `data` and returns true, or returns false.
  bool probe(uint64_t key, data_t& data) const {
    const uint64_t h = mix_key(key), bucket = h & (buckets() - 1), id = h >> bits_;
    for (int way = 0; way < ways; way++) {
      const uint64_t base = word_index(bucket, way);
      const uint64_t tag = load_tag(base, data[0]);
      if ((tag >> 8) != id || (tag & 0xff) == 0) continue;
      bool whole = true;
      for (int i = 1; i < Words && whole; i++) whole = load_tag(base + 2 * i, data[i]) == tag;
      if (whole) return true;
    }
    return false;
  }

  // Stores data for key. cost (clamped to 0..max_cost) ranks entries for replacement: larger
  // means more expensive to recompute and is kept in preference.
  void store(uint64_t key, const data_t& data, int cost) {
    const uint64_t h = mix_key(key), bucket = h & (buckets() - 1), id = h >> bits_;
    const uint64_t tag = id << 8 | uint64_t(std::clamp(cost, 0, max_cost) + 1);
    uint64_t tags[ways], ignored;
    for (int way = 0; way < ways; way++) tags[way] = load_tag(word_index(bucket, way), ignored);
    int way = 1;
    if ((tags[0] >> 8) == id && (tags[0] & 0xff))
      way = 0;
    else if ((tags[1] >> 8) == id && (tags[1] & 0xff))
      way = 1;
    else if ((tag & 0xff) >= (tags[0] & 0xff))
      way = 0;
    const uint64_t base = word_index(bucket, way);
    for (int i = 0; i < Words; i++) {
      word(base + 2 * i + 1).store(data[i], std::memory_order_relaxed);
      word(base + 2 * i).store(check_word(tag, data[i]), std::memory_order_relaxed);
    }
  }

  // Empties every entry. Not safe to call while other threads use the table.
  void clear() {
    for (uint64_t i = 0; i < line_count_; i++)
      for (auto& w : lines_[i].w) w.store(0, std::memory_order_relaxed);
  }

  // Raw access to one entry's stored words, for tests that fabricate torn entries.
  raw_entry_t load_raw(uint64_t bucket, int way) const {
    raw_entry_t r;
    const uint64_t base = word_index(bucket, way);
    for (int i = 0; i < entry_words; i++) r[i] = word(base + i).load(std::memory_order_relaxed);
    return r;
  }
  void store_raw(uint64_t bucket, int way, const raw_entry_t& r) {
    const uint64_t base = word_index(bucket, way);
    for (int i = 0; i < entry_words; i++) word(base + i).store(r[i], std::memory_order_relaxed);
  }

 private:
  static constexpr int line_words = 8;
  struct alignas(64) line_t {
    std::atomic<uint64_t> w[line_words] = {};
  };

  static uint64_t check_word(uint64_t tag, uint64_t data) {
    return Guard == table_guard_t::xor_key ? tag ^ data : tag;
  }
  // Loads pair (check, data) at word index `at`, returns the tag it encodes.
  uint64_t load_tag(uint64_t at, uint64_t& data) const {
    const uint64_t check = word(at).load(std::memory_order_relaxed);
    data = word(at + 1).load(std::memory_order_relaxed);
    return Guard == table_guard_t::xor_key ? check ^ data : check;
  }
  uint64_t word_index(uint64_t bucket, int way) const {
    return (bucket * ways + uint64_t(way)) * entry_words;
  }
  std::atomic<uint64_t>& word(uint64_t i) const { return lines_[i / line_words].w[i % line_words]; }

  int bits_;
  uint64_t line_count_ = 0;
  std::unique_ptr<line_t[]> lines_;
};

}  // namespace pentago
