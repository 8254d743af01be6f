// Tests of run prediction: exact per-rank loads on small runs add up to the slice, sampled
// ranks and sampled lines stay close to the exact answer, tiny memory and oversized outputs
// fail with a reason, bad options are usage errors, and the full game at 16384 ranks is quick.
#include "pentago/plan/predict.h"

#include <gtest/gtest.h>

#include "pentago/data/compress.h"
#include "pentago/end/partition.h"
#include "pentago/end/run_plan.h"
#include "pentago/util/error.h"

using namespace pentago;

namespace {

predict_options_t small(const std::string& root, int ranks, uint64_t memory) {
  predict_options_t o;
  o.root = section_t::parse(root);
  o.ranks = ranks;
  o.threads = 3;
  o.memory = memory;
  o.jobs = 2;
  return o;
}

predict_options_t parse(std::vector<std::string> args) {
  args.insert(args.begin(), "pentago-predict");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return parse_predict_options(int(argv.size()), argv.data());
}

}  // namespace

TEST(predict, small_root_fits_and_loads_add_up) {
  auto o = small("44444554", 2, uint64_t(4) << 30);
  o.save = 34;
  const prediction_t p = predict(o);
  EXPECT_TRUE(p.fits) << p.reason;
  ASSERT_EQ(p.slices.size(), 2u);
  EXPECT_EQ(p.slices[0].slice, 35);
  EXPECT_EQ(p.slices[1].slice, 34);
  for (const auto& s : p.slices) {
    // Two ranks examined exactly: min + max is the whole slice.
    EXPECT_EQ(s.ranks_examined, 2);
    EXPECT_FALSE(s.lines_sampled);
    EXPECT_EQ(uint64_t(s.rank_lines.min + s.rank_lines.max), s.lines);
    EXPECT_EQ(uint64_t(s.rank_blocks.min + s.rank_blocks.max), s.blocks);
    EXPECT_EQ(uint64_t(s.rank_block_nodes.min + s.rank_block_nodes.max), s.nodes);
    EXPECT_LE(s.rank_lines.max - s.rank_lines.min, 1);
    // Memory figures are the engine plan's, slice by slice.
    const slice_plan_t* e = p.engine.slice_plan(s.slice);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(s.rank_store_bytes, e->rank_store_bytes);
    EXPECT_EQ(s.pair_bytes, e->pair_bytes);
    EXPECT_GT(s.max_line_bytes, 0u);
    EXPECT_GT(s.seconds, 0);
  }
  EXPECT_EQ(p.slices[0].output_bytes, 0u);  // slice 35 is not saved
  EXPECT_EQ(p.slices[1].output_bytes, 64 * p.slices[1].nodes);
  EXPECT_GT(p.engine.needed, 0u);
  // The arena is sized by the stores it holds, within the plan (not twice the plan).
  EXPECT_GE(p.engine.arena_bytes, p.slices[1].pair_bytes);
  EXPECT_LT(p.engine.arena_bytes, o.memory);
  const std::string text = format_prediction(o, p);
  EXPECT_NE(text.find("fits in"), std::string::npos) << text;
}

TEST(predict, tiny_memory_does_not_fit) {
  const prediction_t p = predict(small("44444554", 2, uint64_t(1) << 20));
  EXPECT_FALSE(p.fits);
  EXPECT_NE(p.reason.find("--memory"), std::string::npos) << p.reason;
  EXPECT_EQ(p.reason.find('\n'), std::string::npos);
}

TEST(predict, sampled_ranks_bracket_the_exact_loads) {
  auto exact = small("00000000", 300, uint64_t(8) << 30);
  exact.slices_lo = exact.slices_hi = 12;
  exact.rank_samples = 0;
  auto sampled = exact;
  sampled.rank_samples = 16;
  const auto e = predict(exact).slices.at(0), s = predict(sampled).slices.at(0);
  EXPECT_EQ(e.ranks_examined, 300);
  EXPECT_EQ(s.ranks_examined, 16);
  EXPECT_GE(s.rank_blocks.min, e.rank_blocks.min);
  EXPECT_LE(s.rank_blocks.max, e.rank_blocks.max);
  EXPECT_GE(s.rank_blocks.projected_max, s.rank_blocks.max);
  EXPECT_NEAR(s.rank_blocks.mean, e.rank_blocks.mean, 0.1 * e.rank_blocks.mean);
  EXPECT_NEAR(s.rank_block_nodes.projected_max, e.rank_block_nodes.max,
              0.1 * e.rank_block_nodes.max);
}

TEST(predict, sampled_lines_estimate_a_rank) {
  auto exact = small("00000000", 1, uint64_t(64) << 30);
  exact.slices_lo = exact.slices_hi = 12;
  exact.rank_lines = uint64_t(1) << 30;  // every line of the rank
  auto sampled = exact;
  sampled.rank_lines = 4096;
  const auto e = predict(exact).slices.at(0), s = predict(sampled).slices.at(0);
  EXPECT_FALSE(e.lines_sampled);
  EXPECT_TRUE(s.lines_sampled);
  EXPECT_EQ(uint64_t(e.rank_blocks.max), e.blocks);  // one rank owns every block
  EXPECT_NEAR(s.rank_blocks.max, e.rank_blocks.max, 0.05 * e.rank_blocks.max);
  EXPECT_NEAR(s.rank_block_nodes.max, e.rank_block_nodes.max, 0.05 * e.rank_block_nodes.max);
}

TEST(predict, oversized_outputs_fail) {
  // One rank cannot write its share of slice 18 (MPI counts are ints).
  auto o = small("00000000", 1, uint64_t(1) << 50);
  o.save = 18;
  o.slices_lo = o.slices_hi = 18;
  o.rank_lines = 4096;
  auto p = predict(o);
  EXPECT_FALSE(p.fits);
  EXPECT_NE(p.reason.find("2 GiB"), std::string::npos) << p.reason;
}

// Predict's figure for --ranks 2 --memory 850M --threads 2 44444554 (a run the engine takes) is
// the engine's plan, and it decides "fits" at the same boundary (tests/mpi checks the engine binary
// refuses one byte below it).
TEST(predict, engine_admission_is_the_shared_plan) {
  auto o = parse(
      {"--ranks", "2", "--memory", "850M", "--threads", "2", "--codec", "snappy", "44444554"});
  auto p = predict(o);
  EXPECT_TRUE(p.fits) << p.reason;
  const auto plan = make_run_plan(engine_request(o), descendant_sections(o.root, 35));
  EXPECT_EQ(p.engine.needed, plan.needed);
  EXPECT_EQ(p.engine.arena_bytes, plan.arena_bytes);
  for (const uint64_t memory : {plan.needed - 1, plan.needed}) {
    o.memory = memory;
    p = predict(o);
    EXPECT_EQ(p.fits, memory >= plan.needed) << memory << ": " << p.reason;
  }
  // The arena is sized by the stores it holds (at most 20% headroom plus 32 MiB) and the room
  // for uncompressed complete blocks that the partial pool does not need.
  EXPECT_GT(plan.arena_bytes, plan.store_peak);
  EXPECT_LE(plan.arena_bytes - plan.raw_bytes, plan.store_peak * 120 / 100 + (uint64_t(32) << 20));
}

// Without --codec the plan chooses (auto): predict takes the engine's choice at every memory,
// the least-CPU codec that fits, and admits runs down to the densest codec's need.
TEST(predict, default_codec_is_the_engines_choice) {
  auto o = parse({"--ranks", "2", "--memory", "850M", "--threads", "2", "44444554"});
  ASSERT_TRUE(o.codec_auto);
  const auto sections = descendant_sections(o.root, 35);
  auto snappy = o;
  snappy.codec_auto = false;
  const uint64_t snappy_need = make_run_plan(engine_request(snappy), sections).needed;
  for (const uint64_t memory : {snappy_need - 1, snappy_need, 2 * snappy_need}) {
    o.memory = memory;
    const auto p = predict(o);
    const auto plan = make_run_plan(engine_request(o), sections);
    EXPECT_TRUE(plan.codec_auto);
    EXPECT_EQ(p.fits, plan.fits) << memory;
    EXPECT_EQ(p.engine.codec, plan.codec) << memory;
    EXPECT_EQ(p.engine.needed, plan.needed) << memory;
    if (memory >= snappy_need) {
      EXPECT_TRUE(plan.fits) << memory;
    } else if (block_codec_available(block_codec_t::zstd)) {
      EXPECT_TRUE(plan.fits) << memory;
      EXPECT_EQ(plan.codec, block_codec_t::zstd);
    }
  }
}

// The whole game at 16,384 ranks (its time is a benchmark matter, not asserted here).
TEST(predict, full_game_at_scale) {
  auto o = parse(
      {"--ranks", "16384", "--memory", "7G", "--save", "18", "--randomize", "17", "00000000"});
  EXPECT_EQ(o.threads, 6);
  const prediction_t p = predict(o);
  ASSERT_EQ(p.slices.size(), 36u);
  EXPECT_EQ(p.slices.front().slice, 35);
  EXPECT_EQ(p.slices.back().slice, 0);
  uint64_t nodes = 0;
  for (const auto& s : p.slices) {
    nodes += s.nodes;
    EXPECT_EQ(s.ranks_examined, 64);
    EXPECT_EQ(s.output_bytes, s.slice <= 18 ? 64 * s.nodes : 0);
  }
  EXPECT_GT(nodes, 0u);
  EXPECT_GT(p.seconds, 0);
  std::printf("%s", format_prediction(o, p).c_str());
}

// Every memory figure predict prints is the engine plan's, so no line may call a slice over
// --memory ("slice 33 needs about 22.87 GiB") while the plan fits ("engine plan: 20.11 GiB ...
// fits").
TEST(predict, prints_only_the_engine_plan) {
  auto o = parse({"--ranks", "1", "--memory", "22G", "--threads", "3", "--stop-after", "33",
                  "--jobs", "2", "00000000"});
  const prediction_t p = predict(o);
  const std::string text = format_prediction(o, p);
  EXPECT_EQ(text.find("needs about"), std::string::npos) << text;
  EXPECT_EQ(text.find("warning"), std::string::npos) << text;
  EXPECT_NE(text.find(format_run_plan(p.engine).front()), std::string::npos) << text;
  EXPECT_EQ(p.fits, p.engine.fits) << text;
}

// The solver programs share one set of defaults: predict plans what pentago-endgame runs.
TEST(predict, defaults_are_the_engine_defaults) {
  const auto o = parse({"--ranks", "2", "--memory", "1G", "00000000"});
  const engine_options_t engine(engine_program_t::endgame);
  EXPECT_EQ(o.save, engine.save);
  EXPECT_EQ(o.save, 18);
  EXPECT_EQ(o.threads, engine.threads);
  EXPECT_EQ(o.samples, engine.samples);
  EXPECT_EQ(o.line_limit, engine.line_limit);
  EXPECT_EQ(o.randomize, engine.randomize);
  EXPECT_EQ(engine_options_t(engine_program_t::local).save, 18);
  // "--opt=value" as well as "--opt value".
  EXPECT_EQ(parse({"--ranks=2", "--memory=1G", "--save=-1", "00000000"}).save, -1);
}

TEST(predict, bad_options_are_usage_errors) {
  EXPECT_THROW(parse({"--memory", "1G", "00000000"}), usage_error_t);      // no --ranks
  EXPECT_THROW(parse({"--ranks", "4", "00000000"}), usage_error_t);        // no --memory
  EXPECT_THROW(parse({"--ranks", "4", "--memory", "1G"}), usage_error_t);  // no root
  EXPECT_THROW(parse({"--ranks", "0", "--memory", "1G", "00000000"}), usage_error_t);
  EXPECT_THROW(parse({"--ranks", "4", "--memory", "1G", "--threads", "1", "00000000"}),
               usage_error_t);
  EXPECT_THROW(parse({"--ranks", "4", "--memory", "1G", "--slices", "9-3", "00000000"}),
               usage_error_t);
  EXPECT_THROW(parse({"--ranks", "4", "--memory", "lots", "00000000"}), usage_error_t);
  EXPECT_THROW(parse({"--ranks", "4", "--memory", "1G", "--bogus", "00000000"}), usage_error_t);
  EXPECT_THROW(parse({"--ranks", "4", "--memory", "1G", "12345678"}), usage_error_t);
  EXPECT_THROW(parse({"--ranks", "4", "--memory", "1G", "--restart", "40", "00000000"}),
               usage_error_t);
  EXPECT_THROW(parse({"--ranks", "4", "--memory", "1G", "--meaningless", "5", "--stop-after", "5",
                      "00000000"}),
               usage_error_t);
  const auto o = parse({"--ranks", "2", "--memory", "1G", "--meaningless", "5", "00000000"});
  EXPECT_EQ(o.meaningless, 5);
  const auto p = predict(o);
  EXPECT_TRUE(p.fits) << p.reason;
  EXPECT_EQ(p.slices.front().slice, 4);
}
