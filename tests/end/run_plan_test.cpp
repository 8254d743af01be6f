// Run plan tests: the lowest slice of a run that does not save it is planned as its incomplete
// blocks only, and each root's compression ratios are scaled by its sampled slice 35.
#include "pentago/end/run_plan.h"

#include <gtest/gtest.h>

#include "pentago/layout/section.h"

using namespace pentago;

namespace {

run_request request(const std::string& root, int save) {
  run_request r;
  r.root = section_t::parse(root);
  r.ranks = 2;
  r.memory = uint64_t(8) << 30;
  r.save = save;
  return r;
}

}  // namespace

TEST(run_plan, unsaved_lowest_slice_holds_only_incomplete_blocks) {
  const auto slices = descendant_sections(section_t::parse("44444454"), 35);
  const run_plan dropped = make_run_plan(request("44444454", -1), slices);
  const run_plan saved = make_run_plan(request("44444454", 33), slices);
  ASSERT_EQ(dropped.slices.size(), 3u);
  ASSERT_EQ(saved.slices.size(), 3u);
  for (int i = 0; i < 3; i++) {
    const auto& d = dropped.slices[i];
    const auto& s = saved.slices[i];
    EXPECT_EQ(d.nodes, s.nodes);
    EXPECT_EQ(s.held_nodes, s.nodes);
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
}

TEST(run_plan, compression_ratios_scale_with_the_sampled_slice_35) {
  const auto compressible = descendant_sections(section_t::parse("25263480"), 35);
  const auto calibrated = descendant_sections(section_t::parse("44444554"), 35);
  const run_plan a = make_run_plan(request("25263480", -1), compressible);
  const run_plan b = make_run_plan(request("44444554", -1), calibrated);
  // 44444554 is one of the calibration roots; 25263480 compresses to about 0.25 (its logs).
  EXPECT_NEAR(b.top_ratio, store_ratio(35), 0.03);
  EXPECT_NEAR(b.ratio_scale, 1, 0.1);
  EXPECT_GT(a.top_ratio, 0.15);
  EXPECT_LT(a.top_ratio, 0.32);
  EXPECT_LT(a.ratio_scale, 0.9);
  for (const auto& s : a.slices) EXPECT_DOUBLE_EQ(s.ratio, a.ratio_scale * store_ratio(s.slice));
  // The sample is deterministic, so every rank plans the same.
  EXPECT_EQ(sampled_top_ratio(compressible[35], 32), a.top_ratio);
  EXPECT_EQ(sampled_top_ratio({}, 32), 0);
}
