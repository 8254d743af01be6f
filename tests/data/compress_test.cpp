// Tests of the interleave filter at every SIMD level against its bit-level definition, of fast
// (flag byte + Snappy, zstd or LZ4) compression, and of xz block compression and its error checks.
#include "pentago/data/compress.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <random>
#include <thread>

#include "pentago/util/error.h"
#include "simd_levels.h"

using namespace pentago;

namespace {

std::mt19937_64 rng(1234);

superinfo_t random_pair() {
  superinfo_t p;
  for (auto& w : p.win.w) w = rng();
  for (auto& w : p.notlose.w) w = rng();
  return p;
}

// The definition: bit 2i of the 512-bit result is bit i of win, bit 2i+1 is bit i of notlose.
superinfo_t reference_interleave(const superinfo_t& p) {
  uint64_t out[8] = {};
  for (int i = 0; i < 256; i++) {
    out[(2 * i) / 64] |= uint64_t(p.win(i)) << (2 * i % 64);
    out[(2 * i + 1) / 64] |= uint64_t(p.notlose(i)) << ((2 * i + 1) % 64);
  }
  superinfo_t r;
  std::memcpy(r.win.w, out, 32);
  std::memcpy(r.notlose.w, out + 4, 32);
  return r;
}

TEST(interleave, matches_definition_at_every_level) {
  test::simd_level_guard_t guard;
  std::vector<superinfo_t> pairs;
  for (int i = 0; i < 200; i++) pairs.push_back(random_pair());
  superinfo_t single;
  single.win.set(0), single.notlose.set(255);
  pairs.push_back(single);
  pairs.push_back(superinfo_t{super_t::ones(), super_t::zero()});
  for (auto level : test::supported_simd_levels()) {
    SCOPED_TRACE(simd_name(level));
    set_simd_level(level);
    for (const auto& p : pairs) {
      const superinfo_t f = interleave(p);
      ASSERT_EQ(f, reference_interleave(p));
      ASSERT_EQ(uninterleave(f), p);
    }
    // Arrays, in place and out of place.
    std::vector<superinfo_t> a = pairs, b(pairs.size());
    interleave(a);
    interleave(std::span<const superinfo_t>(pairs), b);
    for (size_t i = 0; i < pairs.size(); i++) ASSERT_EQ(a[i], reference_interleave(pairs[i]));
    ASSERT_EQ(a, b);
    uninterleave(a);
    ASSERT_EQ(a, pairs);
    std::vector<superinfo_t> c(pairs.size());
    uninterleave(std::span<const superinfo_t>(b), c);
    ASSERT_EQ(c, pairs);
  }
}

TEST(interleave, black_wins_everywhere) {
  // (all ones, all zeros): black in the even bits of every word (docs/formats.md, "Files").
  const superinfo_t f = interleave(superinfo_t{super_t::ones(), super_t::zero()});
  for (int w = 0; w < 4; w++) {
    EXPECT_EQ(f.win.w[w], 0x5555555555555555ULL);
    EXPECT_EQ(f.notlose.w[w], 0x5555555555555555ULL);
  }
}

// A structured block: values that vary slowly, like real solver output.
std::vector<superinfo_t> regular_nodes(size_t n) {
  std::vector<superinfo_t> nodes(n);
  for (size_t i = 0; i < n; i++) {
    for (int w = 0; w < 4; w++) {
      nodes[i].win.w[w] = (i / 7 % 3 == 0) ? ~uint64_t(0) : uint64_t(0x00ff00ff) << (i % 5);
      nodes[i].notlose.w[w] = nodes[i].win.w[w] | uint64_t(i % 11) << 40;
    }
  }
  return nodes;
}

TEST(fast_compress, regular_data_compresses) {
  const auto nodes = regular_nodes(4096);
  std::vector<superinfo_t> work = nodes;
  std::vector<uint8_t> out;
  fast_compress(work, out, block_codec_t::snappy);
  EXPECT_EQ(out[0], 1 | elided_flag);
  EXPECT_LT(double(out.size()), 0.314 * 64 * nodes.size());
  EXPECT_LE(out.size(), fast_compress_bound(nodes.size()));
  EXPECT_EQ(fast_uncompressed_nodes(out), nodes.size());
  std::vector<superinfo_t> back(nodes.size());
  fast_uncompress(out, back);
  EXPECT_EQ(back, nodes);

  // The non-destructive form gives the same bytes and leaves its input alone.
  std::vector<uint8_t> buffer(fast_compress_bound(nodes.size()));
  const size_t size =
      fast_compress(std::span<const superinfo_t>(nodes), buffer, block_codec_t::snappy);
  buffer.resize(size);
  EXPECT_EQ(buffer, out);
}

TEST(fast_compress, random_data_is_stored_raw) {
  std::vector<superinfo_t> nodes(512);
  for (auto& n : nodes) n = random_pair();
  std::vector<superinfo_t> work = nodes;
  std::vector<uint8_t> out;
  fast_compress(work, out, block_codec_t::snappy);
  EXPECT_EQ(out[0], 0);
  EXPECT_EQ(out.size(), 64 * nodes.size() + 1);
  std::vector<superinfo_t> back(nodes.size());
  fast_uncompress(out, back);
  EXPECT_EQ(back, nodes);
}

// Uncompressed blocks: flag 0xff, padding, the nodes as they are at 64 bytes; used where they
// lie when aligned and whole, decoded aligned and unaligned, and refused when truncated.
TEST(fast_store_raw, round_trips_aligned_and_not) {
  for (const size_t n : {size_t(0), size_t(1), size_t(37), size_t(4096)}) {
    std::vector<superinfo_t> nodes(n);
    for (auto& x : nodes) x = random_pair();
    std::vector<superinfo_t> buffer(n + 2);  // 64-byte aligned nodes
    uint8_t* raw = reinterpret_cast<uint8_t*>(buffer.data());
    fast_store_raw(nodes, raw);
    const std::span<const uint8_t> bytes(raw, raw_block_bytes(n));
    EXPECT_EQ(bytes[0], raw_block_flag);
    EXPECT_EQ(fast_uncompressed_nodes(bytes), n);
    for (size_t i = 0; i < n; i++)
      ASSERT_EQ(buffer[i + 1], nodes[i]) << "node " << i << " of " << n;
    EXPECT_EQ(raw_block_nodes(bytes, n), buffer.data() + 1);
    EXPECT_EQ(raw_block_nodes(bytes, n + 1), nullptr);
    if (n) {
      EXPECT_EQ(raw_block_nodes(bytes.first(bytes.size() - 64), n), nullptr);  // truncated
    }
    std::vector<superinfo_t> back(n);
    fast_uncompress(bytes, back);
    EXPECT_EQ(back, nodes);
    // The same bytes one byte off alignment (a received copy in a byte vector).
    std::vector<uint8_t> shifted(bytes.size() + 1);
    std::memcpy(shifted.data() + 1, bytes.data(), bytes.size());
    std::vector<superinfo_t> again(n);
    fast_uncompress(std::span<const uint8_t>(shifted).subspan(1), again);
    EXPECT_EQ(again, nodes);
    if (n) {
      EXPECT_EQ(raw_block_nodes(std::span<const uint8_t>(shifted).subspan(1), n), nullptr);
    }
    std::vector<superinfo_t> filtered(n);
    fast_uncompress_filtered(bytes, filtered);
    for (size_t i = 0; i < n; i++) ASSERT_EQ(filtered[i], interleave(nodes[i]));
    if (n) {
      std::vector<superinfo_t> wrong(n - 1);
      EXPECT_THROW(fast_uncompress(bytes, wrong), pentago::pentago_error_t);
      EXPECT_THROW(fast_uncompressed_nodes(bytes.first(bytes.size() - 64 + 3)),
                   pentago::pentago_error_t);
    }
  }
  EXPECT_THROW(fast_uncompressed_nodes(std::vector<uint8_t>(10, raw_block_flag)),
               pentago::pentago_error_t);
}

TEST(fast_compress, rejects_bad_input) {
  auto nodes = regular_nodes(100);
  std::vector<uint8_t> good;
  fast_compress(nodes, good, block_codec_t::snappy);
  ASSERT_EQ(good[0], 1 | elided_flag);
  std::vector<superinfo_t> out(100);
  EXPECT_THROW(fast_uncompress({}, out), pentago::pentago_error_t);
  auto bad = good;
  bad[0] = 7;
  EXPECT_THROW(fast_uncompress(bad, out), pentago::pentago_error_t);
  std::vector<superinfo_t> wrong(99);
  EXPECT_THROW(fast_uncompress(good, wrong), pentago::pentago_error_t);
  // A raw buffer whose length is not a multiple of 64.
  std::vector<uint8_t> raw(1 + 64 * 3 + 5, 0);
  EXPECT_THROW(fast_uncompressed_nodes(raw), pentago::pentago_error_t);
  // Truncated or corrupted codec data: every_codec_rejects_corrupt_and_truncated_data.
  // Too small a caller buffer is an error, not an overflow.
  std::vector<uint8_t> small(10);
  EXPECT_THROW(fast_compress(std::span<const superinfo_t>(nodes), small, block_codec_t::snappy),
               pentago::pentago_error_t);
}

// The flag byte fast_compress writes for compressible data with `codec`.
uint8_t flag_of(block_codec_t codec) {
  return uint8_t(codec) | (block_codec_info(codec).may_elide() ? elided_flag : 0);
}

std::vector<block_codec_t> built_in_codecs() {
  std::vector<block_codec_t> codecs;
  for (const block_codec_row_t& row : block_codecs())
    if (row.built_in) codecs.push_back(row.id);
  return codecs;
}

// The codec table: one row per flag byte, in flag order, every row complete; the names parse
// back to their rows; Snappy (the calibration's) plans at 1; the auto order is by place.
TEST(block_codecs, the_table_is_consistent) {
  const auto rows = block_codecs();
  ASSERT_GE(rows.size(), 1u);
  EXPECT_EQ(rows[0].id, block_codec_t::snappy);
  EXPECT_TRUE(rows[0].built_in);
  EXPECT_EQ(rows[0].planned_ratio, 1.0);
  for (size_t i = 0; i < rows.size(); i++) {
    const block_codec_row_t& row = rows[i];
    SCOPED_TRACE(row.name);
    EXPECT_NE(uint8_t(row.id), 0);  // 0 is the raw flag
    if (i) {
      EXPECT_LT(uint8_t(rows[i - 1].id), uint8_t(row.id));
    }
    EXPECT_EQ(&block_codec_info(row.id), &row);
    EXPECT_STREQ(block_codec_name(row.id), row.name);
    EXPECT_GT(row.planned_ratio, 0);
    EXPECT_EQ(block_codec_available(row.id), row.built_in);
    const bool calls = row.bound && row.compress && row.decoded_bytes && row.decompress;
    EXPECT_EQ(calls, row.built_in);
    if (row.built_in) {
      EXPECT_EQ(parse_block_codec(row.name), row.id);
      EXPECT_LE(row.bound(64 * 4096) + 1, fast_compress_bound(4096));
    } else {
      EXPECT_THROW(parse_block_codec(row.name), usage_error_t);
    }
  }
  EXPECT_THROW(block_codec_info(block_codec_t(0)), pentago::pentago_error_t);
  EXPECT_THROW(parse_block_codec("gzip"), usage_error_t);
  int last = 0;
  for (const block_codec_t c : block_codec_auto_order()) {
    EXPECT_TRUE(block_codec_available(c));
    EXPECT_GT(block_codec_info(c).auto_place, last);
    last = block_codec_info(c).auto_place;
  }
  EXPECT_FALSE(block_codec_auto_order().empty());
  EXPECT_EQ(least_cpu_block_codec().auto_place, 1);
}

// Every size, SIMD level (of the filter) and codec round-trips; compressible data is flagged
// with the codec in use.
TEST(fast_compress, every_size_level_and_codec_round_trips) {
  test::simd_level_guard_t levels_back;
  for (const block_codec_t codec : built_in_codecs()) {
    SCOPED_TRACE(block_codec_name(codec));
    for (auto level : test::supported_simd_levels()) {
      set_simd_level(level);
      for (size_t n : {0, 1, 2, 63, 64, 1000, 4096}) {
        auto nodes = regular_nodes(n);
        for (size_t i = 0; i < n; i += 5) nodes[i] = random_pair();
        auto work = nodes;
        std::vector<uint8_t> out;
        fast_compress(work, out, codec);
        ASSERT_LE(out.size(), fast_compress_bound(n));
        if (n >= 64) {
          EXPECT_EQ(out[0], flag_of(codec)) << n;  // compressible: not stored raw
        }
        EXPECT_EQ(fast_uncompressed_nodes(out), n);
        std::vector<superinfo_t> back(n);
        fast_uncompress(out, back);
        ASSERT_EQ(back, nodes) << n << " " << simd_name(level);
      }
    }
  }
}

// Granule elision's SIMD loops write exactly the portable loop's bytes, and a buffer written at
// any level decodes at every level: nodes of solver-like data with random ones among them, of
// sizes that end on every mask nibble and leave short final literals.
TEST(fast_compress, elision_is_the_same_at_every_level) {
  test::simd_level_guard_t guard;
  for (const block_codec_t codec : built_in_codecs()) {
    if (!block_codec_info(codec).may_elide()) continue;
    SCOPED_TRACE(block_codec_name(codec));
    for (size_t n : {1, 2, 3, 17, 64, 1000, 4096}) {
      auto nodes = regular_nodes(n);
      for (size_t i = 3; i < n; i += 7) nodes[i] = random_pair();
      for (size_t i = 1; i < n; i += 11) nodes[i].notlose.w[i % 4] ^= uint64_t(1) << (i % 64);
      std::vector<std::vector<uint8_t>> written;
      for (auto level : test::supported_simd_levels()) {
        set_simd_level(level);
        std::vector<uint8_t> bytes(fast_compress_bound(n));
        bytes.resize(fast_compress(std::span<const superinfo_t>(nodes), bytes, codec));
        if (n >= 64) {
          ASSERT_EQ(bytes[0], flag_of(codec));
        }
        if (!written.empty()) {
          ASSERT_EQ(bytes, written.front()) << n << " " << simd_name(level);
        }
        written.push_back(bytes);
      }
      for (auto level : test::supported_simd_levels()) {
        set_simd_level(level);
        for (const auto& bytes : written) {
          std::vector<superinfo_t> back(n);
          fast_uncompress(bytes, back);
          ASSERT_EQ(back, nodes) << n << " " << simd_name(level);
        }
      }
    }
  }
}

// Every pattern of marks restores at every level: filtered nodes built granule by granule, each
// a copy of the granule 16 bytes before it or a fresh random one at even odds, so that chains of
// marks within a node and back into the node before come in every shape; the nodes are those
// bytes uninterleaved, and Snappy elides every block it gets.
TEST(fast_compress, every_mark_pattern_restores_at_every_level) {
  test::simd_level_guard_t guard;
  for (size_t n : {1, 5, 333, 4096}) {
    std::vector<uint32_t> granules(16 * n);
    for (size_t g = 0; g < granules.size(); g++)
      granules[g] = g >= 4 && rng() % 2 ? granules[g - 4] : uint32_t(rng());
    std::vector<superinfo_t> nodes(n);
    std::memcpy(static_cast<void*>(nodes.data()), granules.data(), 64 * n);
    uninterleave(nodes);
    std::vector<uint8_t> first;
    for (auto level : test::supported_simd_levels()) {
      set_simd_level(level);
      std::vector<uint8_t> bytes(fast_compress_bound(n));
      bytes.resize(
          fast_compress(std::span<const superinfo_t>(nodes), bytes, block_codec_t::snappy));
      ASSERT_EQ(bytes[0], flag_of(block_codec_t::snappy) | elided_flag) << n;
      if (first.empty()) first = bytes;
      ASSERT_EQ(bytes, first) << n << " " << simd_name(level);
      std::vector<superinfo_t> back(n);
      fast_uncompress(bytes, back);
      ASSERT_EQ(back, nodes) << n << " " << simd_name(level);
    }
  }
}

// Elision goes ahead of a codec only where it leaves at most the row's share of the bytes:
// four random nodes repeated over a block leave it nothing to mark (no granule equals the one
// 16 bytes before), so zstd (limit 0.5) gets the block plain and Snappy (limit 2) elided; both
// decode to the block.
TEST(fast_compress, elision_only_where_it_leaves_little) {
  std::vector<superinfo_t> nodes(4096);
  const superinfo_t pattern[4] = {random_pair(), random_pair(), random_pair(), random_pair()};
  for (size_t i = 0; i < nodes.size(); i++) nodes[i] = pattern[i % 4];
  for (const block_codec_t codec : built_in_codecs()) {
    SCOPED_TRACE(block_codec_name(codec));
    const double limit = block_codec_info(codec).elision_limit;
    std::vector<uint8_t> bytes(fast_compress_bound(nodes.size()));
    bytes.resize(fast_compress(std::span<const superinfo_t>(nodes), bytes, codec));
    EXPECT_LT(bytes.size(), 64 * nodes.size() / 8);  // compressed, not stored raw
    EXPECT_EQ(bytes[0], uint8_t(codec) | (limit > 1.1 ? elided_flag : 0));
    std::vector<superinfo_t> back(nodes.size());
    fast_uncompress(bytes, back);
    EXPECT_EQ(back, nodes);
  }
  EXPECT_EQ(block_codec_info(block_codec_t::snappy).elision_limit, 2.0);
}

// The codec's own stream of the filtered bytes behind its plain flag (no granule elision).
std::vector<uint8_t> plain_buffer(const std::vector<superinfo_t>& nodes, block_codec_t codec) {
  std::vector<superinfo_t> filtered(nodes.size());
  interleave(nodes, filtered);
  const block_codec_row_t& row = block_codec_info(codec);
  std::vector<uint8_t> bytes(1 + row.bound(64 * nodes.size()));
  bytes[0] = uint8_t(codec);
  bytes.resize(1 + row.compress(reinterpret_cast<const uint8_t*>(filtered.data()),
                                64 * nodes.size(), bytes.data() + 1));
  return bytes;
}

// Decoding follows each buffer's flag byte: buffers of every codec, with and without granule
// elision, decode side by side, in any order, on one thread.
TEST(fast_compress, buffers_of_every_codec_decode_side_by_side) {
  const auto nodes = regular_nodes(1000);
  std::vector<std::vector<uint8_t>> buffers;
  for (const block_codec_t codec : built_in_codecs()) {
    std::vector<uint8_t> bytes(fast_compress_bound(nodes.size()));
    bytes.resize(fast_compress(std::span<const superinfo_t>(nodes), bytes, codec));
    EXPECT_EQ(bytes[0], flag_of(codec));
    buffers.push_back(bytes);
    buffers.push_back(plain_buffer(nodes, codec));
    EXPECT_EQ(fast_uncompressed_nodes(buffers.back()), nodes.size());
    // Elision makes the codec's work smaller: this data repeats every 16 bytes often.
    if (block_codec_info(codec).may_elide()) {
      EXPECT_LT(bytes.size(), buffers.back().size());
    }
  }
  for (int round = 0; round < 2; round++)
    for (size_t i = 0; i < buffers.size(); i++) {
      const auto& bytes = buffers[round ? buffers.size() - 1 - i : i];
      std::vector<superinfo_t> back(nodes.size());
      fast_uncompress(bytes, back);
      EXPECT_EQ(back, nodes);
    }
}

// An elided stream whose mask disagrees with its length, or marks one of the first four
// granules (nothing lies 16 bytes before them), is refused.
TEST(fast_compress, elided_streams_must_match_their_masks) {
  const auto nodes = regular_nodes(200);
  for (const block_codec_t codec : built_in_codecs()) {
    SCOPED_TRACE(block_codec_name(codec));
    const block_codec_row_t& row = block_codec_info(codec);
    if (!row.may_elide()) continue;
    std::vector<uint8_t> good(fast_compress_bound(nodes.size()));
    good.resize(fast_compress(std::span<const superinfo_t>(nodes), good, codec));
    ASSERT_EQ(good[0], uint8_t(codec) | elided_flag);
    // The elided bytes behind the header (flag and node count).
    std::vector<uint8_t> elided(row.decoded_bytes(good.data() + 5, good.size() - 5));
    row.decompress(good.data() + 5, good.size() - 5, elided.data(), elided.size());
    const auto rewrap = [&](const std::vector<uint8_t>& bytes) {
      std::vector<uint8_t> out(5 + row.bound(bytes.size()));
      std::copy(good.begin(), good.begin() + 5, out.begin());
      out.resize(5 + row.compress(bytes.data(), bytes.size(), out.data() + 5));
      return out;
    };
    std::vector<superinfo_t> back(nodes.size());
    fast_uncompress(rewrap(elided), back);  // the rewrapping itself is sound
    EXPECT_EQ(back, nodes);
    auto flipped = elided;
    flipped[10] ^= 1;  // one granule more or less marked: the literals no longer add up
    EXPECT_THROW(fast_uncompress(rewrap(flipped), back), pentago::pentago_error_t);
    auto first = elided;
    first[0] |= 1;  // granule 0 marked, and one literal fewer to keep the sizes equal
    first.erase(first.begin() + 2 * long(nodes.size()), first.begin() + 2 * long(nodes.size()) + 4);
    EXPECT_THROW(fast_uncompress(rewrap(first), back), pentago::pentago_error_t);
    auto count = good;
    count[1] ^= 1;  // a node count that disagrees with the buffer it decodes into
    EXPECT_THROW(fast_uncompress(count, back), pentago::pentago_error_t);
    auto none = good;
    std::fill(none.begin() + 1, none.begin() + 5, 0);  // no nodes, yet elided bytes
    std::vector<superinfo_t> empty;
    EXPECT_THROW(fast_uncompress(none, empty), pentago::pentago_error_t);
  }
}

// The elided form alone (flag elided_flag, no codec): written only where it fits the room,
// never for a codec whose row does not elide, decoded back exactly, its size reported either way;
// a truncated or flipped one is refused.
TEST(fast_compress, elided_form_alone_within_its_room) {
  const auto nodes = regular_nodes(300);
  for (const block_codec_t codec : built_in_codecs()) {
    SCOPED_TRACE(block_codec_name(codec));
    if (!block_codec_info(codec).may_elide()) continue;
    std::vector<uint8_t> coded, alone;
    size_t elided = 0;
    auto work = nodes;
    fast_compress(work, coded, codec, 0, &elided);
    EXPECT_NE(coded[0], elided_flag);
    ASSERT_GT(elided, 0u);
    ASSERT_LT(elided, 64 * nodes.size());
    work = nodes;
    fast_compress(work, alone, codec, elided - 1);  // one byte short: the codec
    EXPECT_EQ(alone, coded);
    work = nodes;
    size_t again = 0;
    fast_compress(work, alone, codec, elided, &again);
    ASSERT_EQ(alone[0], elided_flag);
    EXPECT_EQ(alone.size(), elided);
    EXPECT_EQ(again, elided);
    EXPECT_EQ(fast_uncompressed_nodes(alone), nodes.size());
    std::vector<superinfo_t> back(nodes.size());
    fast_uncompress(alone, back);
    EXPECT_EQ(back, nodes);
    auto truncated = alone;
    truncated.pop_back();
    EXPECT_THROW(fast_uncompress(truncated, back), pentago::pentago_error_t);
    auto flipped = alone;
    flipped[5 + 10] ^= 1;  // a mask bit: the literals no longer add up
    EXPECT_THROW(fast_uncompress(flipped, back), pentago::pentago_error_t);
    EXPECT_THROW(fast_uncompressed_nodes(std::vector<uint8_t>{elided_flag, 1}),
                 pentago::pentago_error_t);
  }
}

// The view variants leave each form (elided alone, elided then the codec, the codec alone,
// raw) in the thread's scratch with the bytes the copying variants write, until the next call.
TEST(fast_compress, views_hold_every_form_until_the_next_call) {
  auto random_nodes = regular_nodes(200);
  for (auto& node : random_nodes) node = random_pair();
  for (const block_codec_t codec : built_in_codecs()) {
    SCOPED_TRACE(block_codec_name(codec));
    for (const auto& nodes : {regular_nodes(300), random_nodes}) {
      for (const size_t room : {size_t(0), size_t(1) << 30}) {
        std::vector<uint8_t> copied;
        auto work = nodes;
        size_t elided_copied = 0, elided_viewed = 0;
        fast_compress(work, copied, codec, room, &elided_copied);
        work = nodes;
        const auto view = fast_compress_view(work, codec, room, &elided_viewed);
        ASSERT_EQ(std::vector<uint8_t>(view.begin(), view.end()), copied);
        EXPECT_EQ(elided_viewed, elided_copied);
        // The filtered variant from nodes interleaved by hand: the same bytes again.
        auto filtered = nodes;
        interleave(std::span<superinfo_t>(filtered));
        const std::vector<uint8_t> kept(view.begin(), view.end());
        const auto again = fast_compress_filtered_view(filtered, codec, room);
        EXPECT_EQ(std::vector<uint8_t>(again.begin(), again.end()), kept);
        std::vector<superinfo_t> back(nodes.size());
        fast_uncompress(kept, back);
        EXPECT_EQ(back, nodes);
      }
    }
  }
}

TEST(fast_compress, every_codec_rejects_corrupt_and_truncated_data) {
  const auto nodes = regular_nodes(300);
  for (const block_codec_t codec : built_in_codecs()) {
    SCOPED_TRACE(block_codec_name(codec));
    std::vector<uint8_t> good(fast_compress_bound(nodes.size()));
    good.resize(fast_compress(std::span<const superinfo_t>(nodes), good, codec));
    std::vector<superinfo_t> out(nodes.size()), wrong(nodes.size() - 1);
    EXPECT_THROW(fast_uncompress(good, wrong), pentago::pentago_error_t);
    auto bad = good;
    bad.resize(good.size() / 2);
    EXPECT_THROW(fast_uncompress(bad, out), pentago::pentago_error_t);
    bad.resize(2);
    EXPECT_THROW(fast_uncompress(bad, out), pentago::pentago_error_t);
    // Flipped bytes: never a crash; most are caught (the codecs do not all checksum).
    int caught = 0;
    for (size_t i = 1; i < good.size(); i++) {
      bad = good;
      bad[i] ^= 0x5a;
      try {
        fast_uncompress(bad, out);
      } catch (const pentago::pentago_error_t&) {
        caught++;
      }
    }
    EXPECT_GT(caught, 0);
  }
}

TEST(fast_compress, codec_names) {
  EXPECT_EQ(parse_block_codec("snappy"), block_codec_t::snappy);
  EXPECT_THROW(parse_block_codec("gzip"), usage_error_t);
  EXPECT_THROW(parse_block_codec(""), usage_error_t);
  for (const block_codec_t c : {block_codec_t::zstd, block_codec_t::lz4}) {
    if (block_codec_available(c)) {
      EXPECT_EQ(parse_block_codec(block_codec_name(c)), c);
    } else {
      EXPECT_THROW(parse_block_codec(block_codec_name(c)), usage_error_t);
    }
  }
}

TEST(fast_compress, speed) {
  // Informational: filter and compression throughput on solver-like data, per SIMD level.
  test::simd_level_guard_t guard;
  const auto nodes = regular_nodes(4096);
  std::vector<superinfo_t> work = nodes;
  std::vector<uint8_t> out;
  const int reps = 100;
  using clock_type_t = std::chrono::steady_clock;
  const double mb = 64.0 * nodes.size() * reps / 1e6;
  auto rate = [&](auto a, auto b) { return mb / std::chrono::duration<double>(b - a).count(); };
  for (auto level : test::supported_simd_levels()) {
    set_simd_level(level);
    auto t0 = clock_type_t::now();
    for (int r = 0; r < reps; r++) interleave(work), uninterleave(work);
    auto t1 = clock_type_t::now();
    for (int r = 0; r < reps; r++) {
      std::copy(nodes.begin(), nodes.end(), work.begin());
      fast_compress(work, out, block_codec_t::snappy);
    }
    auto t2 = clock_type_t::now();
    for (int r = 0; r < reps; r++) fast_uncompress(out, work);
    auto t3 = clock_type_t::now();
    std::printf(
        "%-8s interleave+uninterleave %6.0f MB/s, copy+compress %5.0f MB/s, uncompress %5.0f "
        "MB/s, ratio %.3f\n",
        simd_name(level), rate(t0, t1), rate(t1, t2), rate(t2, t3),
        double(out.size()) / (64.0 * nodes.size()));
    EXPECT_EQ(work, nodes);
  }
}

TEST(lzma, round_trip_and_format) {
  std::vector<uint8_t> data(100000);
  for (size_t i = 0; i < data.size(); i++) data[i] = uint8_t(i * i >> 7);
  const auto xz = compress_block_lzma(data);
  ASSERT_GE(xz.size(), 6u);
  const uint8_t magic[6] = {0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00};
  EXPECT_EQ(std::memcmp(xz.data(), magic, 6), 0);
  EXPECT_LT(xz.size(), data.size());
  EXPECT_EQ(uncompress_block(xz, data.size(), "test"), data);
  // The check type (byte 7 of the stream flags) is CRC64.
  EXPECT_EQ(xz[7], 0x04);
  // Deterministic output, and presets differ only in size.
  EXPECT_EQ(compress_block_lzma(data), xz);
  EXPECT_EQ(uncompress_block(compress_block_lzma(data, 0), data.size(), "p0"), data);
  EXPECT_EQ(uncompress_block(compress_block_lzma({}, 6), 0, "empty"), std::vector<uint8_t>{});
  EXPECT_THROW(compress_block_lzma(data, 10), pentago::pentago_error_t);
}

// Encoders whose memory a writer's workspaces hand out again (not zeroed, possibly filled by
// another preset or size) write the same streams as fresh ones, from several threads at once.
TEST(lzma, workspaces_change_no_output) {
  std::vector<std::vector<uint8_t>> blocks;
  for (const size_t size : {size_t(262144), size_t(70000), size_t(262144), size_t(1), size_t(0)}) {
    std::vector<uint8_t> data(size);
    for (size_t i = 0; i < size; i++) data[i] = uint8_t((i * (blocks.size() + 3)) >> 5 ^ rng() % 3);
    blocks.push_back(std::move(data));
  }
  xz_workspaces_t workspaces;
  std::vector<std::thread> threads;
  std::atomic<int> mismatches{0};
  for (int t = 0; t < 3; t++)
    threads.emplace_back([&, t] {
      for (int round = 0; round < 2; round++)
        for (const int preset : {0, 6, 1})
          for (size_t b = 0; b < blocks.size(); b++) {
            const auto& data = blocks[(b + size_t(t)) % blocks.size()];
            std::vector<uint8_t> out;
            compress_block_lzma(data, out, preset, &workspaces);
            if (out != compress_block_lzma(data, preset)) mismatches++;
          }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(mismatches, 0);
}

TEST(lzma, rejects_bad_input) {
  std::vector<uint8_t> data(5000);
  for (size_t i = 0; i < data.size(); i++) data[i] = uint8_t(i % 251);
  const auto xz = compress_block_lzma(data);
  EXPECT_THROW(uncompress_block(xz, data.size() - 1, "short"), pentago::pentago_error_t);
  EXPECT_THROW(uncompress_block(xz, data.size() + 1, "long"), pentago::pentago_error_t);
  auto truncated = xz;
  truncated.pop_back();
  EXPECT_THROW(uncompress_block(truncated, data.size(), "truncated"), pentago::pentago_error_t);
  auto trailing = xz;
  trailing.push_back(0);
  EXPECT_THROW(uncompress_block(trailing, data.size(), "trailing"), pentago::pentago_error_t);
  // zlib data (78 9c ...) is not supported.
  const std::vector<uint8_t> zlib = {0x78, 0x9c, 0x63, 0x60, 0x00, 0x00, 0x00, 0x02, 0x00, 0x01};
  try {
    uncompress_block(zlib, 2, "zlib block");
    ADD_FAILURE() << "no error";
  } catch (const pentago::pentago_error_t& e) {
    EXPECT_NE(std::string(e.what()).find("zlib block"), std::string::npos);
  }
  EXPECT_THROW(uncompress_block({}, 0, "empty"), pentago::pentago_error_t);
  // Every single-byte corruption is caught (headers, data or one of the checksums).
  for (size_t i = 0; i < xz.size(); i++) {
    auto bad = xz;
    bad[i] ^= 0x10;
    EXPECT_THROW(uncompress_block(bad, data.size(), "flip"), pentago::pentago_error_t) << i;
  }
}

}  // namespace
