// Block store tests: contributions merged in random orders (from several threads, without,
// with a small (evicting) and with a large uncompressed partial budget, keeping or dropping
// complete blocks, given computed or written where the store asks) give the same blocks,
// counts and samples; input reads through the cache give the blocks as stored.
#include "pentago/end/block_store.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <random>
#include <thread>

#include "pentago/end/arena_lending.h"
#include "pentago/end/line_compute.h"
#include "pentago/util/error.h"

using namespace pentago;

namespace {

struct contribution_t {
  int flat, dimension;
  std::vector<superinfo_t> values;
};

superinfo_t random_pair(std::mt19937_64& rng) {
  superinfo_t v;
  for (int i = 0; i < 4; i++) {
    // Sparse bits, so OR of several contributions is not all ones.
    v.win.w[i] = rng() & rng() & rng();
    v.notlose.w[i] = v.win.w[i] | (rng() & rng());
  }
  return v;
}

// Every block of every section, in section order then block order.
std::vector<block_key_t> all_block_keys(const std::vector<section_t>& sections) {
  std::vector<block_key_t> keys;
  for (int s = 0; s < int(sections.size()); s++)
    for (uint64_t b = 0; b < section_block_count(sections[s]); b++)
      keys.push_back({s, block_from_index(sections[s], b)});
  return keys;
}

// One random contribution per (block, open dimension) of `keys`, and each block's expected OR.
std::vector<contribution_t> random_contributions(const std::vector<section_t>& sections,
                                                 const std::vector<block_key_t>& keys,
                                                 std::mt19937_64& rng,
                                                 std::vector<std::vector<superinfo_t>>& expected) {
  std::vector<contribution_t> contributions;
  expected.assign(keys.size(), {});
  for (int f = 0; f < int(keys.size()); f++) {
    const section_t& s = sections[keys[f].section];
    const int nodes = block_nodes(s, keys[f].block);
    expected[f].resize(nodes);
    for (int d = 0; d < 4; d++) {
      if (s.quadrant_full(d)) continue;
      contribution_t c{f, d, std::vector<superinfo_t>(nodes)};
      for (int i = 0; i < nodes; i++) {
        c.values[i] = random_pair(rng);
        expected[f][i].win |= c.values[i].win;
        expected[f][i].notlose |= c.values[i].notlose;
      }
      contributions.push_back(std::move(c));
    }
  }
  return contributions;
}

// Every block of slice 5 with its random contributions and expected values, and the generator
// that drew them (for the test's further draws).
struct random_slice_t {
  std::vector<section_t> sections;
  std::vector<block_key_t> keys;
  std::vector<std::vector<superinfo_t>> expected;
  std::vector<contribution_t> contributions;
  std::mt19937_64 rng;
};

random_slice_t make_random_slice(uint64_t seed) {
  random_slice_t r{slice_sections(5), {}, {}, {}, std::mt19937_64(seed)};
  r.keys = all_block_keys(r.sections);
  r.contributions = random_contributions(r.sections, r.keys, r.rng, r.expected);
  return r;
}

// A random slice whose nodes repeat their first 64-bit word (as a node's values over rotations
// mostly do): granule elision keeps about a quarter of their bytes.
random_slice_t make_repeating_slice(uint64_t seed) {
  random_slice_t r = make_random_slice(seed);
  const auto repeat_words = [](superinfo_t& v) {
    for (int w = 1; w < 4; w++) v.win.w[w] = v.win.w[0], v.notlose.w[w] = v.notlose.w[0];
  };
  for (auto& c : r.contributions)
    for (auto& v : c.values) repeat_words(v);
  for (auto& e : r.expected)
    for (auto& v : e) repeat_words(v);
  return r;
}

// Sets every block of `store` to random nodes, freezes it and expects `reads` reads of each
// block; returns the nodes set.
std::vector<std::vector<superinfo_t>> fill_and_freeze(block_store_t& store, std::mt19937_64& rng,
                                                      int reads) {
  std::vector<std::vector<superinfo_t>> stored;
  for (int f = 0; f < store.blocks(); f++) {
    std::vector<superinfo_t> values(store.nodes(f));
    for (auto& v : values) v = random_pair(rng);
    stored.push_back(values);
    store.set(f, values);
  }
  store.freeze();
  std::vector<int> readers(store.sections().size(), reads);
  store.expect_reads(readers);
  return stored;
}

}  // namespace

TEST(block_store, random_merge_orders_give_the_same_blocks) {
  random_slice_t slice = make_random_slice(99);
  auto& [sections, keys, expected, contributions, rng] = slice;
  std::vector<section_counts_t> first_counts;
  std::vector<sample_t> first_samples;
  for (int trial = 0; trial < 9; trial++) {
    compacting_store_t heap(64 << 20);
    // No partial budget, room for every block, or room for three blocks: then buffers freed
    // by completed blocks are taken by blocks at their second or later contribution.
    const uint64_t budget = trial % 3 == 0   ? 0
                            : trial % 3 == 1 ? uint64_t(1) << 30
                                             : 3 * buffer_pool_t::block_bytes;
    block_store_t store(sections, keys, {64}, heap, budget);
    // Trials 6 to 8 drop complete blocks (the lowest slice of a run that is not saved): the
    // same counts and samples, and nothing left in the heap.
    const bool drop = trial >= 6;
    if (drop) store.drop_complete_blocks();
    auto order = contributions;
    std::shuffle(order.begin(), order.end(), rng);
    // Odd trials hand contributions over as the engine's kernel writes them, where the store
    // asks (accumulate_computed): here written node by node, merged where it says.
    auto give = [&](auto& c) {
      if (trial % 2 == 0) return store.accumulate(c.flat, c.dimension, c.values);
      const std::vector<superinfo_t> value = c.values;
      store.accumulate_computed(c.flat, c.dimension, c.values, [&](const line_output_t& out) {
        for (size_t i = 0; i < value.size(); i++) {
          superinfo_t v = value[i];
          if (out.merge_with)
            v.win |= out.merge_with[i].win, v.notlose |= out.merge_with[i].notlose;
          out.nodes[i] = v;
        }
      });
    };
    std::vector<std::thread> threads;
    for (int t = 0; t < 3; t++)
      threads.emplace_back([&, t] {
        for (size_t i = t; i < order.size(); i += 3) give(order[i]);
      });
    for (auto& t : threads) t.join();
    EXPECT_EQ(store.missing_contributions(), 0u);
    // With three buffers, blocks needed sooner take the buffers of blocks needed later.
    if (trial % 3 == 2) {
      EXPECT_GT(store.partial_evictions(), 0u);
    } else {
      EXPECT_EQ(store.partial_evictions(), 0u);
    }
    // A second contribution along a dimension is an error, not a silent merge.
    std::vector<superinfo_t> extra(store.nodes(0));
    int open = 0;
    while (sections[keys[0].section].quadrant_full(open)) open++;
    EXPECT_THROW(store.accumulate(0, open, extra), pentago_error_t);
    store.freeze();
    if (drop) {
      EXPECT_EQ(store.compressed_bytes(), 0u);
      EXPECT_EQ(heap.stats().live_bytes, 0u);
      if (!budget) {
        EXPECT_GT(store.peak_held_bytes(), 0u);  // incomplete blocks were held
      }
      std::vector<superinfo_t> got(store.nodes(0));
      EXPECT_THROW(store.read(0, got), pentago_error_t);
    } else {
      EXPECT_GT(store.compressed_bytes(), 0u);
      EXPECT_LE(store.compressed_bytes(), store.peak_held_bytes());
      for (int f = 0; f < store.blocks(); f++) {
        std::vector<superinfo_t> got(store.nodes(f));
        store.read(f, got);
        ASSERT_EQ(got, expected[f]) << "block " << f << " trial " << trial;
      }
    }
    const auto counts = store.counts();
    const auto samples = store.samples();
    EXPECT_EQ(samples.size(), 64 * sections.size());
    if (trial == 0) {
      first_counts = counts;
      first_samples = samples;
      // Counts equal count_block over the expected blocks.
      std::vector<section_counts_t> direct(sections.size(), section_counts_t{0, 0, 0});
      for (int f = 0; f < int(keys.size()); f++) {
        const auto c = count_block(sections[keys[f].section], keys[f].block, expected[f]);
        for (int i = 0; i < 3; i++) direct[keys[f].section][i] += c[i];
      }
      EXPECT_EQ(counts, direct);
    } else {
      EXPECT_EQ(counts, first_counts);
      ASSERT_EQ(samples.size(), first_samples.size());
      for (size_t i = 0; i < samples.size(); i++) {
        EXPECT_EQ(samples[i].board, first_samples[i].board);
        EXPECT_EQ(samples[i].value, first_samples[i].value);
      }
    }
  }
}

// Complete blocks are kept uncompressed while the arena has room beyond the rest of the store
// at the reserve ratio and the margin (16 MiB in arenas under 256 MiB): all of them in a large
// arena, some in a smaller one, none with a zero ratio; every block reads back the same. (These
// random nodes have no repeats for granule elision: no block is kept elided.)
TEST(block_store, complete_blocks_stay_uncompressed_where_the_arena_has_room) {
  const random_slice_t slice = make_random_slice(7);
  const auto& [sections, keys, expected, contributions, rng] = slice;
  uint64_t all_raw = 0;
  for (const auto& e : expected) all_raw += raw_block_bytes(e.size());
  const size_t margin = size_t(16) << 20;
  std::vector<section_counts_t> first_counts;
  for (const auto& [arena, ratio] :
       {std::pair{margin + 2 * all_raw + (1 << 20), 0.3}, std::pair{margin + all_raw / 2, 0.1},
        std::pair{margin + 2 * all_raw + (1 << 20), 0.0}}) {
    SCOPED_TRACE("arena " + std::to_string(arena) + " ratio " + std::to_string(ratio));
    compacting_store_t heap(arena);
    block_store_options_t options;
    options.raw_reserve_ratio = ratio;
    block_store_t store(sections, keys, options, heap, uint64_t(0));
    for (auto c : contributions) store.accumulate(c.flat, c.dimension, c.values);
    store.freeze();
    uint64_t raw = 0, coded = 0, coded_nodes = 0;
    for (int f = 0; f < store.blocks(); f++) {
      const auto bytes = store.compressed(f);
      if (bytes[0] == raw_block_flag) {
        raw += bytes.size();
      } else {
        EXPECT_TRUE(bytes[0] == 0 || bytes[0] == uint8_t(block_codec_t::snappy));
        coded += bytes.size();
        coded_nodes += uint64_t(store.nodes(f));
      }
      std::vector<superinfo_t> got(store.nodes(f));
      store.read(f, got);
      ASSERT_EQ(got, expected[f]) << "block " << f;
    }
    EXPECT_EQ(store.raw_bytes(), raw);
    EXPECT_EQ(store.elided_bytes(), 0u);
    EXPECT_EQ(store.compressed_bytes(), raw + coded);
    if (coded_nodes) {
      EXPECT_DOUBLE_EQ(store.codec_ratio(), double(coded) / (64 * double(coded_nodes)));
    } else {
      EXPECT_EQ(store.codec_ratio(), 0);
    }
    if (ratio == 0.3) {
      EXPECT_EQ(raw, all_raw);
    } else if (ratio > 0) {
      EXPECT_GT(raw, 0u);
      EXPECT_LT(raw, all_raw);
    } else {
      EXPECT_EQ(raw, 0u);
    }
    if (first_counts.empty()) first_counts = store.counts();
    EXPECT_EQ(store.counts(), first_counts);
  }
}

// Nodes whose 64-bit words repeat (as a node's values over rotations mostly do) elide to about
// a quarter of their bytes. In an arena with room for all of them elided but not uncompressed,
// the first block goes elided (nothing measured yet), then blocks go uncompressed while the rest
// still fits elided, and the others elided; the codec takes at most the last few (the
// incomplete blocks, held compressed in this store without a pool, take room the estimate does
// not see), and every block reads back the same.
TEST(block_store, complete_blocks_take_the_elided_tier_before_the_codec) {
  const random_slice_t slice = make_repeating_slice(11);
  const auto& [sections, keys, expected, contributions, rng] = slice;
  uint64_t all_raw = 0;
  for (const auto& e : expected) all_raw += raw_block_bytes(e.size());
  compacting_store_t heap((size_t(16) << 20) + all_raw * 6 / 10);
  block_store_options_t options;
  options.raw_reserve_ratio = 0.1;
  block_store_t store(sections, keys, options, heap, uint64_t(0));
  for (auto c : contributions) store.accumulate(c.flat, c.dimension, c.values);
  store.freeze();
  uint64_t raw = 0, elided = 0;
  int coded = 0;
  for (int f = 0; f < store.blocks(); f++) {
    const auto bytes = store.compressed(f);
    if (bytes[0] == raw_block_flag)
      raw += bytes.size();
    else if (bytes[0] == elided_flag)
      elided += bytes.size();
    else
      coded++;
    std::vector<superinfo_t> got(store.nodes(f));
    store.read(f, got);
    ASSERT_EQ(got, expected[f]) << "block " << f;
  }
  EXPECT_EQ(store.raw_bytes(), raw);
  EXPECT_EQ(store.elided_bytes(), elided);
  EXPECT_GT(raw, 0u);
  EXPECT_LT(raw, all_raw);
  EXPECT_GT(elided, 0u);
  EXPECT_LT(coded, store.blocks() / 20);
}

// Accumulates every contribution of a repeating slice into a store whose plan keeps blocks
// elided first (or not), in an arena with room for every block uncompressed and with `pool`
// (may be null), freezes it, expects every block to read back, and hands the store and the
// slice's raw bytes to `check`.
void with_elided_first_store(uint64_t seed, bool elided_first, buffer_pool_t* pool,
                             const std::function<void(const block_store_t&, uint64_t)>& check) {
  const random_slice_t slice = make_repeating_slice(seed);
  const auto& [sections, keys, expected, contributions, rng] = slice;
  uint64_t all_raw = 0;
  for (const auto& e : expected) all_raw += raw_block_bytes(e.size());
  compacting_store_t heap((size_t(16) << 20) + 2 * all_raw);
  block_store_options_t options;
  options.raw_reserve_ratio = 0.1;
  options.elided_first = elided_first;
  block_store_t store(sections, keys, options, heap, pool);
  for (auto c : contributions) store.accumulate(c.flat, c.dimension, c.values);
  store.freeze();
  for (int f = 0; f < store.blocks(); f++) {
    std::vector<superinfo_t> got(store.nodes(f));
    store.read(f, got);
    ASSERT_EQ(got, expected[f]) << "block " << f;
  }
  check(store, all_raw);
}

// Where the plan keeps complete blocks elided first, none is kept uncompressed, even in an
// arena with room for all of them so: they go elided, and every block reads back the same.
TEST(block_store, elided_first_keeps_no_block_uncompressed) {
  for (const bool elided_first : {false, true}) {
    SCOPED_TRACE(elided_first ? "elided first" : "uncompressed first");
    with_elided_first_store(11, elided_first, nullptr,
                            [&](const block_store_t& store, uint64_t all_raw) {
                              int elided = 0;
                              for (int f = 0; f < store.blocks(); f++)
                                elided += store.compressed(f)[0] == elided_flag;
                              if (elided_first) {
                                EXPECT_EQ(store.raw_bytes(), 0u);
                                EXPECT_GT(elided, store.blocks() * 9 / 10);
                              } else {
                                EXPECT_GT(store.raw_bytes(), all_raw / 2);
                              }
                            });
  }
}

// Where the plan keeps blocks elided first, an incomplete block is held elided in the arena
// while it has room, rather than in fresh pages of the pool (which take three times the bytes);
// otherwise the pool takes it. Both read back exactly.
TEST(block_store, elided_first_keeps_incomplete_blocks_out_of_fresh_pool_pages) {
  for (const bool elided_first : {false, true}) {
    SCOPED_TRACE(elided_first ? "elided first" : "uncompressed first");
    buffer_pool_t pool(uint64_t(64) << 20);
    with_elided_first_store(12, elided_first, &pool, [&](const block_store_t& store, uint64_t) {
      if (elided_first) {
        EXPECT_GT(store.partial_elided(), 0u);
        EXPECT_EQ(store.partial_elided(), store.partial_recompressions());
        EXPECT_EQ(pool.carved_bytes(), 0u);
      } else {
        EXPECT_EQ(store.partial_elided(), 0u);
        EXPECT_GT(pool.carved_bytes(), 0u);
      }
    });
  }
}

TEST(block_store, incomplete_slice_cannot_freeze) {
  const auto sections = slice_sections(2);
  std::vector<block_key_t> keys{{0, block_from_index(sections[0], 0)}};
  compacting_store_t heap(1 << 20);
  block_store_t store(sections, keys, {}, heap);
  EXPECT_THROW(store.freeze(), pentago_error_t);
}

// Incomplete blocks without a partial buffer are held in the partial codec (LZ4 for
// a dropped slice where it fits), complete blocks in the run's codec, both as the store's
// options name them; both read back exactly.
TEST(block_store, incomplete_blocks_take_the_partial_codec) {
  const block_codec_t other = block_codec_available(block_codec_t::lz4)    ? block_codec_t::lz4
                              : block_codec_available(block_codec_t::zstd) ? block_codec_t::zstd
                                                                           : block_codec_t::snappy;
  if (other == block_codec_t::snappy) GTEST_SKIP() << "neither LZ4 nor zstd is built in";
  // A whole 8^4 block of a section with three open quadrants, with values drawn from a small
  // palette, so that every codec compresses them (each in its own way).
  const std::vector<section_t> sections{section_t::parse("44444454").standardize()};
  const section_t& section = sections[0];
  ASSERT_EQ(section.open_quadrant_count(), 3);
  const std::vector<block_key_t> keys{{0, block_from_index(section, 0)}};
  for (const auto& [complete_codec, partial] :
       {std::pair{block_codec_t::snappy, other}, std::pair{other, block_codec_t::snappy}}) {
    SCOPED_TRACE(std::string("complete ") + block_codec_name(complete_codec) + ", partial " +
                 block_codec_name(partial));
    std::mt19937_64 rng(5);
    std::vector<superinfo_t> palette(6);
    for (auto& v : palette) v = random_pair(rng);
    compacting_store_t heap(16 << 20);
    block_store_t store(sections, keys, {0, complete_codec, partial}, heap, uint64_t(0));
    const int nodes = store.nodes(0);
    std::vector<superinfo_t> expected(nodes);
    bool first = true;
    for (int d = 0; d < 4; d++) {
      if (section.quadrant_full(d)) continue;
      std::vector<superinfo_t> values(nodes);
      for (auto& v : values) v = palette[rng() % palette.size()];
      for (int i = 0; i < nodes; i++) {
        expected[i].win |= values[i].win;
        expected[i].notlose |= values[i].notlose;
      }
      store.accumulate(0, d, values);
      auto copy = expected;
      std::vector<uint8_t> bytes;
      const bool complete = store.missing_contributions() == 0;
      // A complete block is stored after the recurrence's last step.
      if (complete) finish_block(section, keys[0].block, copy);
      fast_compress(std::span<superinfo_t>(copy), bytes, complete ? complete_codec : partial);
      EXPECT_EQ(store.compressed_bytes(), bytes.size())
          << (complete ? "complete" : "incomplete") << " block after dimension " << d;
      if (first) {
        // The other codec's size differs, so the check above tells the codecs apart.
        auto again = expected;
        std::vector<uint8_t> other_bytes;
        fast_compress(std::span<superinfo_t>(again), other_bytes, complete_codec);
        EXPECT_NE(other_bytes.size(), bytes.size());
        first = false;
      }
    }
    store.freeze();
    std::vector<superinfo_t> got(nodes);
    store.read(0, got);
    finish_block(section, keys[0].block, expected);
    EXPECT_EQ(got, expected);
    const uint8_t elided = block_codec_info(complete_codec).may_elide() ? elided_flag : 0;
    EXPECT_EQ(store.compressed(0)[0], uint8_t(complete_codec) | elided);  // the flag byte
  }
}

// A codec that is not built in is refused when the store is made, not at its first write.
TEST(block_store, refuses_a_codec_not_built_in) {
  const std::vector<section_t> sections{section_t::parse("44444454").standardize()};
  const std::vector<block_key_t> keys{{0, block_from_index(sections[0], 0)}};
  compacting_store_t heap(1 << 20);
  for (const block_codec_row_t& row : block_codecs()) {
    if (row.built_in) continue;
    EXPECT_THROW(block_store_t(sections, keys, {0, row.id, block_codec_t::snappy}, heap),
                 pentago_error_t);
    EXPECT_THROW(block_store_t(sections, keys, {0, block_codec_t::snappy, row.id}, heap),
                 pentago_error_t);
  }
  EXPECT_THROW(block_store_t(sections, keys, {0, block_codec_t(9), block_codec_t::snappy}, heap),
               pentago_error_t);
}

// A dropped slice's pool grows by the arena space its inputs free. Once the slice
// above is released and a collection packed the heap, a pool that runs dry borrows the
// arena's limit down to its live bytes plus the reserve, and the results are unchanged.
TEST(block_store, dropped_slice_borrows_the_arena_its_inputs_free) {
  const auto above_sections = slice_sections(4);
  const auto sections = slice_sections(5);
  std::mt19937_64 rng(7);
  compacting_store_t heap(64 << 20);
  block_store_t above(above_sections, all_block_keys(above_sections), {}, heap, uint64_t(0));
  for (int f = 0; f < above.blocks(); f++) {
    std::vector<superinfo_t> values(above.nodes(f));
    for (auto& v : values) v = random_pair(rng);
    above.set(f, values);
  }
  above.freeze();
  const size_t limit = heap.limit();
  ASSERT_GT(heap.live_bytes(), 0u);

  buffer_pool_t pool(0);  // dry: every buffer must be borrowed
  block_store_t store(sections, all_block_keys(sections), {16}, heap, &pool);
  store.drop_complete_blocks();
  const uint64_t reserve = 1 << 20;
  arena_lending_t lending(heap, pool);
  lending.lend_freed(reserve);
  store.lend_freed_arena(lending);
  // The inputs' last reads release them; a collection packs what is left.
  above.expect_reads(std::vector<int>(above_sections.size(), 1));
  for (int f = 0; f < above.blocks(); f++) above.read_done(f);
  above.check_reads_done();
  heap.collect();

  std::vector<section_counts_t> expected(sections.size(), section_counts_t{0, 0, 0});
  for (int f = 0; f < store.blocks(); f++) {
    const section_t& s = store.section(f);
    std::vector<superinfo_t> whole(store.nodes(f));
    for (int d = 0; d < 4; d++) {
      if (s.quadrant_full(d)) continue;
      std::vector<superinfo_t> values(store.nodes(f));
      for (size_t i = 0; i < values.size(); i++) {
        values[i] = random_pair(rng);
        whole[i].win |= values[i].win;
        whole[i].notlose |= values[i].notlose;
      }
      store.accumulate(f, d, values);
    }
    const auto c = count_block(s, store.key(f).block, whole);
    for (int i = 0; i < 3; i++) expected[store.key(f).section][i] += c[i];
  }
  store.freeze();
  EXPECT_EQ(store.counts(), expected);
  // The arena lent once (one collection), down to the reserve, and the pool got exactly that.
  const uint64_t lent = store.arena_lent_bytes();
  EXPECT_GT(lent, limit / 2);
  EXPECT_EQ(heap.limit(), limit - lent);
  EXPECT_LE(heap.limit(), reserve + 4096);
  EXPECT_EQ(pool.budget(), lent);
  EXPECT_GT(pool.carved_bytes(), 0u);
  EXPECT_EQ(store.partial_recompressions(), 0u);  // every incomplete block found a buffer
}

// read_input: every read of an input block gives its values, later reads of a block on this
// rank come from the input cache (the pool has free buffers), each block is released after
// its last read, and the cache's copies go back to the pool: at the block's last read, or as
// soon as the reads still to come are another rank's (planned elsewhere).
TEST(block_store, input_reads_come_from_the_cache_after_the_first) {
  const auto above_sections = slice_sections(4);
  const std::vector<block_key_t> above_keys = all_block_keys(above_sections);
  const int reads = 3;
  for (const int here : {3, 2}) {
    SCOPED_TRACE(std::to_string(here) + " of " + std::to_string(reads) + " reads here");
    std::mt19937_64 rng(3);
    compacting_store_t heap(64 << 20);
    block_store_t above(above_sections, above_keys, {}, heap, uint64_t(0));
    const auto stored = fill_and_freeze(above, rng, reads);

    buffer_pool_t pool(uint64_t(above.blocks()) * buffer_pool_t::block_bytes);
    // (A store of the same blocks, so that its pool's buffers fit every input block.)
    block_store_t store(above_sections, above_keys, {}, heap, &pool);
    {  // buffers carved at the store's size and given back: the free ones the cache may take
      std::vector<superinfo_t*> taken;
      for (int f = 0; f < above.blocks(); f++) taken.push_back(pool.take());
      for (auto* b : taken) pool.give(b);
    }
    // Block f is read here by the lines at places here * f, here * f + 1, ...
    std::vector<std::pair<int, uint32_t>> plan;
    for (int f = 0; f < above.blocks(); f++)
      for (int round = 0; round < here; round++) plan.push_back({f, uint32_t(here * f + round)});
    store.plan_input_reads(above.blocks(), plan);
    for (int f = 0; f < above.blocks(); f++)
      for (int round = 0; round < here; round++) {
        std::vector<superinfo_t> out(above.nodes(f));
        input_pin_t pin;
        const superinfo_t* got = store.read_input(above, f, out, uint32_t(here * f + round), pin);
        ASSERT_EQ(0, std::memcmp(got, stored[f].data(), out.size() * sizeof(superinfo_t)))
            << "round " << round << ", block " << f;
      }
    EXPECT_EQ(store.input_reads(), uint64_t(here * above.blocks()));
    EXPECT_EQ(store.input_cache_hits(), uint64_t((here - 1) * above.blocks()));
    // After the last reads here every copy's buffer is free again.
    int free_buffers = 0;
    std::vector<superinfo_t*> taken;
    while (superinfo_t* b = pool.take_free()) taken.push_back(b), free_buffers++;
    EXPECT_EQ(free_buffers, above.blocks());
    for (auto* b : taken) pool.give(b);
    // The other rank's reads (served requests).
    for (int f = 0; f < above.blocks(); f++)
      for (int round = here; round < reads; round++)
        if (above.read_done(f) == 0) store.forget_input(f);
    above.check_reads_done();
    EXPECT_EQ(above.compressed_bytes(), 0u);  // all released after their last read
  }
}

// A line reads its input blocks where they lie in the input cache: the first of two reads
// decodes into a cache copy (not into the line's buffer), the second is served by that copy,
// and the copy's buffer stays out of the pool until both lines release their pins, though the
// block's last read is done. A block with no later read is decoded into the line's buffer.
TEST(block_store, input_reads_in_place_hold_their_copies_until_released) {
  const auto above_sections = slice_sections(4);
  const std::vector<block_key_t> above_keys = all_block_keys(above_sections);
  std::mt19937_64 rng(5);
  compacting_store_t heap(64 << 20);
  block_store_t above(above_sections, above_keys, {}, heap, uint64_t(0));
  const auto stored = fill_and_freeze(above, rng, 2);
  buffer_pool_t pool(uint64_t(above.blocks()) * buffer_pool_t::block_bytes);
  block_store_t store(above_sections, above_keys, {}, heap, &pool);
  superinfo_t* free_buffer = pool.take();
  ASSERT_NE(free_buffer, nullptr);
  pool.give(free_buffer);  // one free buffer: one copy at a time
  // Block 0 is read at places 0 and 1, block 1 at 2 and 3 (then by nobody here: planned only
  // once here, its other read is another rank's).
  const std::vector<std::pair<int, uint32_t>> plan = {{0, 0}, {0, 1}, {1, 2}};
  store.plan_input_reads(above.blocks(), plan);
  const auto bytes = [&](int f) { return stored[size_t(f)].size() * sizeof(superinfo_t); };
  std::vector<superinfo_t> out0(above.nodes(0)), out1(above.nodes(0)), out2(above.nodes(1));
  input_pin_t first, second, third;
  const superinfo_t* a = store.read_input(above, 0, out0, 0, first);
  EXPECT_EQ(a, free_buffer);  // decoded into the cache's copy
  const superinfo_t* b = store.read_input(above, 0, out1, 1, second);
  EXPECT_EQ(b, a);  // served in place
  EXPECT_EQ(0, std::memcmp(b, stored[0].data(), bytes(0)));
  EXPECT_EQ(store.input_cache_hits(), 1u);
  const superinfo_t* c = store.read_input(above, 1, out2, 2, third);
  EXPECT_EQ(c, out2.data());  // no later read here: into the line's buffer
  EXPECT_EQ(0, std::memcmp(c, stored[1].data(), bytes(1)));
  EXPECT_EQ(pool.take_free(), nullptr);  // block 0's copy is still pinned
  first.reset();
  EXPECT_EQ(pool.take_free(), nullptr);
  second.reset();
  superinfo_t* back = pool.take_free();
  EXPECT_EQ(back, free_buffer);
  if (back) pool.give(back);
  if (above.read_done(1) == 0) store.forget_input(1);  // block 1's other reader
  for (int f = 2; f < above.blocks(); f++) above.read_done(f), above.read_done(f);
  above.check_reads_done();
}
