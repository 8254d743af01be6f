// Tests of the staged plan (pentago-predict --stages): the imbalance model against the exact
// partition, the per-slice memory model against the engine's own plan of a whole stage, and
// the plan itself (contiguous stages, each admitted by the engine, checkpoints saved, never
// more node-hours than the best single job); bad options are one-line usage errors.
#include "pentago/plan/stages.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "pentago/end/partition.h"
#include "pentago/end/rank_overhead.h"
#include "pentago/end/run_plan.h"
#include "pentago/util/error.h"

using namespace pentago;

namespace {

stage_options_t parse(std::vector<std::string> args) {
  args.insert(args.begin(), "pentago-predict");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return parse_stage_options(int(argv.size()), argv.data());
}

// A node of 2 cores with room for two ranks of 25263480 (peak ~0.42 GiB per rank on 2 ranks).
// Snappy unless `codec` says otherwise (the default, auto, plans with the densest codec).
stage_options_t small_nodes(const std::string& memory, const std::string& codec = "snappy") {
  return parse({"--stages", "--node-memory", memory, "--node-reserve", "64M", "--cores-per-node",
                "2", "--threads", "2", "--jobs", "2", "--job-seconds", "1", "--slice-seconds",
                "0.1", "--codec", codec, "25263480"});
}

}  // namespace

// The model's largest rank (line nodes over the mean) against the exact partition.
TEST(stages, imbalance_model_matches_partition) {
  const stage_plan_t plan = plan_stages(small_nodes("2G"));
  const auto sections = descendant_sections(section_t::parse("25263480"), 35);
  int compared = 0;
  for (const auto& s : plan.slices) {
    for (const int ranks : {4, 16, 64, 128}) {
      const partition_t part(sections[s.slice], ranks, 17);
      double largest = 0, sum = 0;
      for (int r = 0; r < ranks; r++) {
        const double nodes = double(rank_load(part, r).line_nodes);
        largest = std::max(largest, nodes);
        sum += nodes;
      }
      EXPECT_EQ(uint64_t(sum), s.line_nodes);
      const double exact = largest / (sum / ranks);
      const double model = line_imbalance(s, ranks);
      // Within 15%, or 25% where a rank has fewer than 8 lines (a heavy-tailed sum).
      const double tolerance = double(s.lines) / ranks < 8 ? 0.25 : 0.15;
      EXPECT_NEAR(model, exact, tolerance * exact)
          << "slice " << s.slice << ", " << ranks << " ranks";
      std::printf(
          "slice %d, %3d ranks, %5.1f lines/rank: largest rank %.3f of the mean, model %.3f\n",
          s.slice, ranks, double(s.lines) / ranks, exact, model);
      compared++;
    }
  }
  EXPECT_EQ(compared, 24);
  EXPECT_EQ(line_imbalance(plan.slices[0], 1), 1.0);
}

// need = fixed + per_rank / ranks from single-slice plans, against the engine's plan of the
// whole run and of a two-slice stage after a restart, with Snappy and with the default (auto: a
// plan that fits nowhere is the densest codec's).
TEST(stages, need_model_matches_engine_plan) {
  for (const std::string codec : {"snappy", "auto"}) {
    SCOPED_TRACE(codec);
    const stage_plan_t plan = plan_stages(small_nodes("2G", codec));
    const auto sections = descendant_sections(section_t::parse("25263480"), 35);
    for (const int ranks : {3, 8, 64}) {
      for (const auto& [top, bottom] : std::vector<std::pair<int, int>>{{35, 30}, {33, 32}}) {
        run_request_t r;
        r.codec_auto = codec == "auto";
        r.root = section_t::parse("25263480");
        r.ranks = ranks;
        r.workers = 1;
        r.memory = 1;
        r.stop_after = bottom;
        r.restart_slice = top < 35 ? top + 1 : -1;
        r.save = bottom == 30 ? -1 : bottom;
        r.plan_writing = false;  // the stage model leaves out writing restart files
        const double engine = double(make_run_plan(r, sections).needed);
        const double model = stage_need(plan.slices, top, bottom, bottom == 30, ranks) -
                             double(rank_count_bytes(ranks));
        EXPECT_NEAR(model, engine, 0.05 * engine)
            << "slices " << top << "-" << bottom << ", " << ranks << " ranks";
      }
    }
  }
}

TEST(stages, plan_is_contiguous_admitted_and_no_worse_than_one_job) {
  // Nodes too small for the whole run on one node: the single job needs several.
  const stage_options_t o = small_nodes("560M");
  const stage_plan_t plan = plan_stages(o);
  ASSERT_TRUE(plan.fits) << plan.reason;
  ASSERT_FALSE(plan.stages.empty());
  ASSERT_EQ(plan.single.size(), 1u);
  EXPECT_GT(plan.single[0].nodes, 1);
  EXPECT_LE(plan.node_hours, plan.single_node_hours * (1 + 1e-9));
  const auto sections = descendant_sections(section_t::parse("25263480"), 35);
  for (const auto* stages : {&plan.stages, &plan.single}) {
    int next = 35;
    for (size_t k = 0; k < stages->size(); k++) {
      const stage_t& s = (*stages)[k];
      EXPECT_EQ(s.top, next);
      EXPECT_EQ(s.restart_slice, k ? next + 1 : -1);
      EXPECT_EQ(s.ranks, s.nodes * plan.ranks_per_node);
      if (k + 1 < stages->size()) {
        EXPECT_GE(s.save, s.bottom);  // the next stage's restart file
      }
      // The engine admits the stage at its --memory, with the per-peer term kept free.
      run_request_t r;
      r.root = section_t::parse("25263480");
      r.ranks = s.ranks;
      r.workers = 1;
      r.memory = s.memory - rank_count_bytes(s.ranks);
      r.stop_after = s.bottom;
      r.restart_slice = s.restart_slice;
      r.save = s.save;
      EXPECT_TRUE(make_run_plan(r, sections).fits) << "stage " << s.top << "-" << s.bottom;
      next = s.bottom - 1;
    }
    EXPECT_EQ(next, 29);
  }
  const std::string text = format_stage_plan(o, plan);
  EXPECT_NE(text.find("saving: "), std::string::npos) << text;
  EXPECT_NE(text.find("job 1: --nodes "), std::string::npos) << text;
}

TEST(stages, bad_options_are_usage_errors) {
  EXPECT_THROW(parse({"--stages", "--cores-per-node", "8", "25263480"}), usage_error_t);
  EXPECT_THROW(parse({"--stages", "--node-memory", "8G", "25263480"}), usage_error_t);
  EXPECT_THROW(parse({"--stages", "--node-memory", "8G", "--cores-per-node", "8", "--ranks", "4",
                      "25263480"}),
               usage_error_t);
  EXPECT_THROW(parse({"--stages", "--node-memory", "8G", "--cores-per-node", "8", "--max-stages",
                      "0", "25263480"}),
               usage_error_t);
  EXPECT_THROW(parse({"--stages", "--node-memory", "8G", "--cores-per-node", "8"}), usage_error_t);
  EXPECT_THROW(plan_stages(parse({"--stages", "--node-memory", "8G", "--cores-per-node", "4",
                                  "--threads", "8", "25263480"})),
               usage_error_t);
  EXPECT_THROW(
      plan_stages(parse({"--stages", "--node-memory", "2G", "--cores-per-node", "8", "25263480"})),
      usage_error_t);  // nothing left after the 4 GiB reserve
  // Nodes that cannot hold even one line of slice 32 do not fit at any count.
  const stage_plan_t tiny = plan_stages(small_nodes("80M"));
  EXPECT_FALSE(tiny.fits);
  EXPECT_FALSE(tiny.reason.empty());
}
