// Run plan tests: the lowest slice of a run that does not save it is planned as its incomplete
// blocks only, each root's compression ratios are scaled by its sampled slice 35, and the arena
// from a slice down shrinks with how the slice above compressed.
#include "pentago/end/run_plan.h"

#include <gtest/gtest.h>
#include <lzma.h>

#include <algorithm>

#include "pentago/layout/section.h"

using namespace pentago;

namespace {

run_request_t request(const std::string& root, int save) {
  run_request_t r;
  r.root = section_t::parse(root);
  r.ranks = 2;
  r.memory = uint64_t(8) << 30;
  r.save = save;
  return r;
}

}  // namespace

TEST(run_plan, unsaved_lowest_slice_holds_only_incomplete_blocks) {
  const auto slices = descendant_sections(section_t::parse("44444454"), 35);
  const run_plan_t dropped = make_run_plan(request("44444454", -1), slices);
  const run_plan_t saved = make_run_plan(request("44444454", 33), slices);
  ASSERT_EQ(dropped.slices.size(), 3u);
  ASSERT_EQ(saved.slices.size(), 3u);
  for (int i = 0; i < 3; i++) {
    const auto& d = dropped.slices[i];
    const auto& s = saved.slices[i];
    EXPECT_EQ(d.nodes, s.nodes);
    // Slice 35 is saved by neither, so both recompute it and hold none of it.
    EXPECT_EQ(d.recomputed, d.slice == 35);
    EXPECT_EQ(s.recomputed, s.slice == 35);
    EXPECT_EQ(s.held_nodes, s.recomputed ? 0 : s.nodes);
    EXPECT_FALSE(s.dropped);
    EXPECT_EQ(d.dropped, d.slice == 33);
    if (d.dropped) {
      EXPECT_GT(d.held_nodes, 0u);
      EXPECT_LT(double(d.held_nodes), 0.6 * double(d.nodes));
      EXPECT_LT(double(d.rank_store_bytes), 0.6 * double(s.rank_store_bytes));
    } else {
      EXPECT_EQ(d.rank_store_bytes, s.rank_store_bytes);
    }
  }
  for (const auto& line : format_run_plan(dropped)) std::printf("%s\n", line.c_str());
  EXPECT_LT(dropped.needed, saved.needed);
  EXPECT_LT(dropped.store_peak, saved.store_peak);
  // Saving slice 35 stores it whole, and slice 34's pair then holds it as input.
  const run_plan_t stored = make_run_plan(request("44444454", 35), slices);
  ASSERT_EQ(stored.slices.size(), 3u);
  EXPECT_FALSE(stored.slices[0].recomputed);
  EXPECT_EQ(stored.slices[0].held_nodes, stored.slices[0].nodes);
  EXPECT_GT(stored.slices[1].pair_bytes, saved.slices[1].pair_bytes);
}

TEST(run_plan, compression_ratios_scale_with_the_sampled_slice_35) {
  const auto compressible = descendant_sections(section_t::parse("25263480"), 35);
  const auto calibrated = descendant_sections(section_t::parse("44444554"), 35);
  const run_plan_t a = make_run_plan(request("25263480", -1), compressible);
  const run_plan_t b = make_run_plan(request("44444554", -1), calibrated);
  // 44444554 is one of the calibration roots; 25263480 compresses to about 0.25 (its logs).
  EXPECT_NEAR(b.top_ratio, store_ratio(35), 0.03);
  EXPECT_NEAR(b.ratio_scale, 1, 0.1);
  EXPECT_GT(a.top_ratio, 0.15);
  EXPECT_LT(a.top_ratio, 0.32);
  EXPECT_LT(a.ratio_scale, 0.9);
  // A dropped slice holds its incomplete blocks in the partial codec.
  for (const auto& s : a.slices)
    EXPECT_DOUBLE_EQ(
        s.ratio,
        a.ratio_scale * store_ratio(s.slice) *
            (s.dropped ? codec_ratio_factor(a.partial_codec) / codec_ratio_factor(a.codec) : 1));
  // The sample is deterministic, so every rank plans the same.
  EXPECT_EQ(sample_top_slice(compressible[35], 32).ratio, a.top_ratio);
  EXPECT_EQ(sample_top_slice({}, 32).ratio, 0);
}

// Where elision leaves little of slice 35's bytes (25263480: about 0.38), complete blocks are
// kept elided, and the arena's room for them is the stores' growth to that share, not all
// that the pool leaves; the pool keeps the rest. Where it leaves most (44444454: about 0.8),
// they stay uncompressed in all of it, as before. The admission figure does not move.
TEST(run_plan, complete_blocks_kept_elided_where_elision_leaves_little) {
  const auto elides = descendant_sections(section_t::parse("25263480"), 35);
  const auto dense = descendant_sections(section_t::parse("44444454"), 35);
  run_request_t r = request("25263480", -1);
  r.memory = uint64_t(1) << 30;
  const run_plan_t a = make_run_plan(r, elides);
  const top_sample_t sample = sample_top_slice(elides[35], 32);
  EXPECT_EQ(a.top_elided_share, sample.elided_share);
  EXPECT_GT(sample.elided_share, sample.ratio);
  EXPECT_LT(sample.elided_share, 0.5);
  ASSERT_TRUE(a.fits);
  EXPECT_TRUE(a.elided_first);
  const double growth = sample.elided_share / (a.ratio_scale * store_ratio(35)) - 1;
  EXPECT_EQ(a.raw_bytes, uint64_t(double(a.store_peak) * growth));
  // The same plan without the cap: the pool's whole surplus became arena room.
  run_request_t bigger = r;
  bigger.memory = uint64_t(3) << 30;
  const run_plan_t b = make_run_plan(bigger, elides);
  EXPECT_EQ(b.raw_bytes, a.raw_bytes);
  EXPECT_GT(b.partial_bytes, a.partial_bytes + (uint64_t(1) << 30));
  EXPECT_EQ(b.needed, a.needed);
  run_request_t d = request("44444454", -1);
  d.memory = uint64_t(3) << 30;
  const run_plan_t c = make_run_plan(d, dense);
  EXPECT_GT(c.top_elided_share, 0.5);
  EXPECT_FALSE(c.elided_first);
  EXPECT_GT(c.raw_bytes, uint64_t(1) << 30);
}

// Another codec scales the (Snappy) calibration by its factor before the sampled scale.
TEST(run_plan, codec_scales_the_ratios) {
  if (!block_codec_available(block_codec_t::zstd)) GTEST_SKIP() << "zstd not built in";
  // 44444454's slice 34 is stored in the codec (35 is recomputed, 33 dropped).
  const auto slices = descendant_sections(section_t::parse("44444454"), 35);
  run_request_t r = request("44444454", -1);
  const run_plan_t snappy = make_run_plan(r, slices);
  r.codec = block_codec_t::zstd;
  const run_plan_t zstd = make_run_plan(r, slices);
  EXPECT_LT(zstd.top_ratio, 0.8 * snappy.top_ratio);
  EXPECT_NEAR(zstd.ratio_scale / codec_ratio_factor(block_codec_t::zstd), snappy.ratio_scale, 0.15);
  EXPECT_LT(zstd.store_peak, snappy.store_peak);
  EXPECT_EQ(codec_ratio_factor(block_codec_t::snappy), 1);
}

// --codec auto takes the least-CPU codec whose plan fits (LZ4, else Snappy); where only zstd
// fits, it plans slice 34 computed again by slice 33 instead of stored, and the codecs again.
TEST(run_plan, codec_auto_takes_zstd_only_where_snappy_does_not_fit) {
  if (!block_codec_available(block_codec_t::zstd)) GTEST_SKIP() << "zstd not built in";
  const auto slices = descendant_sections(section_t::parse("44444454"), 35);
  run_request_t r = request("44444454", -1);
  r.ranks = 2;
  r.codec_auto = true;
  r.memory = uint64_t(3) << 30;
  const run_plan_t roomy = make_run_plan(r, slices);
  EXPECT_TRUE(roomy.fits);
  EXPECT_TRUE(roomy.codec_auto);
  const block_codec_t fastest =
      block_codec_available(block_codec_t::lz4) ? block_codec_t::lz4 : block_codec_t::snappy;
  EXPECT_EQ(roomy.codec, fastest);
  // Between the needs: the LZ4 and Snappy plans refuse, zstd's fits.
  run_request_t fixed = r;
  fixed.codec_auto = false;
  fixed.codec = block_codec_t::snappy;
  const uint64_t snappy_need = make_run_plan(fixed, slices).needed;
  EXPECT_LE(snappy_need, roomy.needed);  // LZ4's blocks are larger
  fixed.codec = block_codec_t::zstd;
  fixed.memory = snappy_need;  // the zstd need is smaller, and independent of the memory given
  const uint64_t zstd_need = make_run_plan(fixed, slices).needed;
  ASSERT_LT(zstd_need, snappy_need);
  r.memory = (snappy_need + zstd_need) / 2;
  const run_plan_t tight = make_run_plan(r, slices);
  EXPECT_TRUE(tight.fits);
  EXPECT_EQ(tight.codec, block_codec_t::zstd);
  EXPECT_FALSE(tight.slice_plan(34)->recomputed);
  // On one rank there only zstd fits with slice 34 stored, and it leaves no room for blocks
  // outside it: slice 33 computes slice 34's blocks again instead, and without that store the
  // least-CPU codec fits, in less memory. A codec named on the command line keeps slice 34
  // stored.
  r.ranks = 1;
  fixed.ranks = 1;
  fixed.codec = block_codec_t::snappy;
  fixed.memory = uint64_t(3) << 30;
  const uint64_t snappy_need_1 = make_run_plan(fixed, slices).needed;
  fixed.codec = block_codec_t::zstd;
  fixed.memory = snappy_need_1;
  const uint64_t zstd_need_1 = make_run_plan(fixed, slices).needed;
  ASSERT_LT(zstd_need_1, snappy_need_1);
  r.memory = (snappy_need_1 + zstd_need_1) / 2;
  const run_plan_t one = make_run_plan(r, slices);
  EXPECT_TRUE(one.fits);
  ASSERT_NE(one.slice_plan(34), nullptr);
  EXPECT_TRUE(one.slice_plan(34)->recomputed);
  EXPECT_EQ(one.codec, fastest);
  EXPECT_LT(one.needed, zstd_need_1);
  fixed.memory = r.memory;
  const run_plan_t named = make_run_plan(fixed, slices);
  EXPECT_TRUE(named.fits);
  EXPECT_FALSE(named.slice_plan(34)->recomputed);
  EXPECT_EQ(named.raw_bytes, 0u);
  r.ranks = 2;
  // Neither fits: the refusal names zstd's (smaller) need.
  r.memory = zstd_need / 2;
  const run_plan_t refused = make_run_plan(r, slices);
  EXPECT_FALSE(refused.fits);
  EXPECT_EQ(refused.codec, block_codec_t::zstd);
  EXPECT_EQ(refused.needed, zstd_need);
}

// A saved slice's writing is in the plan, with liblzma's own encoder figure
// per worker for the preset, and (pentago-endgame) the rank's compressed part of the file.
TEST(run_plan, saved_slices_count_their_writing) {
  const auto slices = descendant_sections(section_t::parse("44444554"), 35);
  run_request_t r = request("44444554", -1);
  r.stop_after = 35;
  const run_plan_t unsaved = make_run_plan(r, slices);
  EXPECT_EQ(unsaved.write_bytes, 0u);
  r.save = 35;
  const run_plan_t level6 = make_run_plan(r, slices);
  r.level = 0;
  const run_plan_t level0 = make_run_plan(r, slices);
  r.holds_file = false;
  const run_plan_t batched = make_run_plan(r, slices);
  const uint64_t rank_store = level6.slice_plan(35)->rank_store_bytes;
  EXPECT_EQ(level6.write_bytes, slice_write_bytes(r.workers, 6, true, rank_store));
  EXPECT_EQ(level6.needed - level0.needed, level6.write_bytes - level0.write_bytes);
  EXPECT_EQ(level6.write_bytes - level0.write_bytes,
            uint64_t(r.workers) * (lzma_easy_encoder_memusage(6) - lzma_easy_encoder_memusage(0)));
  EXPECT_GT(lzma_easy_encoder_memusage(6), uint64_t(80) << 20);
  EXPECT_EQ(level0.write_bytes - batched.write_bytes, rank_store + slice_write_piece_bytes);
  EXPECT_NE(format_run_plan(level6)[0].find("writing "), std::string::npos);
}

// A dropped slice's first incomplete blocks sit in the partial pool, uncompressed, so
// its store estimate leaves them out, the arena shrinks and the pool grows; the admission
// figure stays the one without a pool, and every part still fits within --memory.
TEST(run_plan, dropped_slice_plans_its_partial_blocks_in_the_pool) {
  const auto slices = descendant_sections(section_t::parse("44444454"), 35);
  run_request_t r = request("44444454", -1);
  r.memory = uint64_t(3) << 30;
  const run_plan_t roomy = make_run_plan(r, slices);
  ASSERT_TRUE(roomy.fits);
  const slice_plan_t& bottom = roomy.slices.back();
  ASSERT_TRUE(bottom.dropped);
  EXPECT_GT(roomy.pooled_bytes, 0u);
  EXPECT_LE(roomy.pooled_bytes, roomy.partial_bytes);  // assumes no more than it hands out
  // Without the pool its store would be the compressed size of every incomplete node.
  const double unpooled = bottom.ratio * 64 * double(bottom.held_nodes);
  EXPECT_LT(double(bottom.store_bytes), 0.8 * unpooled);
  EXPECT_LE(roomy.fixed_bytes + roomy.arena_bytes + roomy.line_bytes + roomy.partial_bytes,
            roomy.memory);
  // The admission figure does not depend on --memory: at exactly that much the run fits, with
  // a smaller pool and so a larger arena than with room to spare.
  r.memory = roomy.needed;
  const run_plan_t tight = make_run_plan(r, slices);
  EXPECT_TRUE(tight.fits) << tight.reason;
  EXPECT_EQ(tight.needed, roomy.needed);
  EXPECT_LT(tight.partial_bytes, roomy.partial_bytes);
  EXPECT_GE(tight.arena_bytes - tight.raw_bytes, roomy.arena_bytes - roomy.raw_bytes);
  EXPECT_LE(tight.fixed_bytes + tight.arena_bytes + tight.line_bytes + tight.partial_bytes,
            tight.memory);
  r.memory = roomy.needed - 1;
  EXPECT_FALSE(make_run_plan(r, slices).fits);
  // The rest of the incomplete blocks take LZ4 where they fit, and the run's codec (here
  // Snappy) where memory is tight.
  if (block_codec_available(block_codec_t::lz4)) {
    EXPECT_EQ(roomy.partial_codec, block_codec_t::lz4);
    EXPECT_EQ(tight.partial_codec, block_codec_t::snappy);
    EXPECT_GT(bottom.ratio, roomy.ratio_scale * store_ratio(33));
  }
}

// The flow holds every line in buffers of line_buffer_nodes: each of the line's input blocks,
// any compressed form of it (at most one node more) and each output block behind its header
// fits one, and max_line_bytes covers every line of the slice.
TEST(run_plan, line_buffers_hold_every_line_of_a_slice) {
  const auto slices = descendant_sections(section_t::parse("25263480"), 35);
  for (const int n : {35, 33, 31}) {
    const std::span<const section_t> above =
        n < 35 ? std::span<const section_t>(slices[n + 1]) : std::span<const section_t>();
    const size_t nodes = line_buffer_nodes(slices[n], above);
    const uint64_t most = max_line_bytes(slices[n], above);
    const slice_lines_t lines(slices[n]);
    uint64_t largest = 0;
    for (uint64_t i = 0; i < lines.total_lines(); i++) {
      const line_dependency_t dep = line_dependency_of(lines.line(i));
      for (int k = 0; k < dep.output.length(); k++)
        EXPECT_LE(1 + size_t(block_nodes(dep.output.section, dep.output.block(k))), nodes);
      if (n < 35)
        for (int b = 0; b < dep.input.length(); b++) {
          const size_t in = size_t(block_nodes(dep.input.section, dep.input.block(b)));
          EXPECT_LE(64 * in + 1, 64 * nodes);  // fast_compress's largest output
        }
      const uint64_t bytes = 64 * nodes * uint64_t(line_buffers(dep, n < 35));
      EXPECT_LE(bytes, most);
      largest = std::max(largest, bytes);
    }
    EXPECT_EQ(largest, most) << "slice " << n;
  }
}

// While a slice runs, the arena a plan needs is its headroom over that slice's pair of
// stores, rescaled by how the slice above compressed against the plan: all of it at the
// planned ratio for the largest pair, less for smaller pairs, less when the slice above
// compressed better than planned, more (up to all of it) when worse.
TEST(run_plan, arena_for_a_slice_follows_its_pair_and_measured_ratio) {
  const auto slices = descendant_sections(section_t::parse("25263480"), 35);
  const run_plan_t p = make_run_plan(request("25263480", -1), slices);
  ASSERT_TRUE(p.fits);
  EXPECT_GT(p.rank_share, 0.5);
  EXPECT_LT(p.rank_share, 0.6);
  int smaller = 0;
  for (const auto& s : p.slices) {
    if (!s.computed || s.slice == p.first) continue;
    const int n = s.slice;
    for (const double scale : {1.0, 0.8, 0.5}) {
      const double expected =
          double(p.arena_bytes) - 1.05 * (double(p.store_peak) - scale * double(s.pair_bytes));
      EXPECT_NEAR(double(p.arena_bytes_for(n, scale)), expected, 0.01 * double(p.store_peak))
          << n << " " << scale;
    }
    EXPECT_LE(p.arena_bytes_for(n, 3.0), p.arena_bytes);
    EXPECT_GE(p.arena_bytes_for(n, 1.3), p.arena_bytes_for(n, 1));
    if (n == p.peak_slice) {
      EXPECT_EQ(p.arena_bytes_for(n, 1), p.arena_bytes) << n;
    } else {
      EXPECT_LT(p.arena_bytes_for(n, 1), p.arena_bytes) << n;
      smaller++;
    }
    EXPECT_LT(p.arena_bytes_for(n, 0.5), p.arena_bytes_for(n, 0.8)) << n;
  }
  EXPECT_GE(smaller, 2);  // slices above the largest pair lend too
  EXPECT_EQ(p.arena_bytes_for(p.first + 1, 1), p.arena_bytes);  // no such slice
}
