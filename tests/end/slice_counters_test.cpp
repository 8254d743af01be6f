// The slice counters' table: one row per field, the reduction's packing, and the log line and
// run record it feeds (their text pinned, since tools and existing runs read both).
#include "pentago/end/slice_counters.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "pentago/end/run_record.h"
#include "pentago/end/slice_report.h"
#include "pentago/util/error.h"

using namespace pentago;
namespace fs = std::filesystem;

namespace {

// Each counter a different value: 1000 times its row number plus one.
slice_counters_t numbered() {
  slice_counters_t c;
  uint64_t k = 1;
  for (const auto& f : slice_counter_fields) c.*f.value = 1000 * k++;
  return c;
}

// A report of a computed slice of pentago-endgame, every field set.
slice_report_t full_report() {
  slice_report_t r;
  r.slice = 34;
  r.sections = 7;
  r.blocks = 11;
  r.nodes = 123456789;
  r.seconds = 1.5;
  r.compute_seconds = 1.25;
  r.io_seconds = 0.25;
  r.elapsed = 9.5;
  r.eta = 3.25;
  r.nodes_per_second_per_core = 1.5e6;
  r.compression = 0.375;
  r.worker_seconds = {1, 2, 3, 4, 5, 6};
  r.idle_fraction = 0.125;
  r.mpi = true;
  auto& c = r.counters;
  c.traffic_bytes_in = 1004;
  c.output_blocks_sent = 77;
  c.shared_memory_blocks = 70;
  c.input_reads = 500;
  c.input_cache_hits = 123;
  c.resident_high_water = uint64_t(300) << 20;
  c.store_bytes = 3900000;
  c.arena_live = 1111111;
  c.arena_touched = 2222222;
  c.arena_bytes = 3333333;
  c.arena_limit_raises = 5;
  c.partial_bytes = 4444444;
  c.partial_plan_bytes = 5555555;
  c.arena_lent_in_slice = 6666666;
  c.partial_recompressions = 12;
  c.partial_evictions = 13;
  c.partial_elided = 11;
  c.raw_block_bytes = 14680064;
  c.elided_block_bytes = 3145728;
  c.line_bytes = 7777777;
  r.memory.limit = uint64_t(200) << 20;
  r.memory.plan_store_bytes = 4000000;
  r.memory.plan_ratio = 0.4;
  r.memory.line_plan_bytes = 8888888;
  slice_report_t::load_balance_t lb;
  for (int i = 0; i < 5; i++) lb.ranges[i] = {i, 2 * i + 1};
  r.load_balance = lb;
  r.files.push_back({"counts-30.npy", {}, {}, {}});
  r.files.push_back({"slice-30.pentago", {}, 999, 0.5});
  r.per_rank_worker_seconds = {{1, 2, 3, 4, 5, 6}, {6, 5, 4, 3, 2, 1}};
  return r;
}

// The slice object run_record writes for `r`.
std::string record_line(const slice_report_t& r, const std::string& name) {
  const fs::path path = fs::path(PENTAGO_BINARY_DIR) / "test-runs" / (name + ".jsonl");
  fs::create_directories(path.parent_path());
  fs::remove(path);
  {
    run_record_t record;
    record.open(path.string());
    record.slice(r);
  }
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

}  // namespace

TEST(slice_counters, every_field_has_one_row_with_its_own_name) {
  std::set<std::string> names;
  for (const auto& f : slice_counter_fields) EXPECT_TRUE(names.insert(f.name).second) << f.name;
  // A distinct value in every field reads back through its row alone.
  const slice_counters_t c = numbered();
  std::set<uint64_t> values;
  for (const auto& f : slice_counter_fields) values.insert(c.*f.value);
  EXPECT_EQ(values.size(), slice_counter_fields.size());
  EXPECT_STREQ(slice_counter_field(&slice_counters_t::arena_lent_in_slice).name,
               "arena_lent_in_slice");
  EXPECT_STREQ(slice_counter_field(&slice_counters_t::compressed_bytes).name, "compressed_bytes");
}

TEST(slice_counters, values_by_combine_round_trip) {
  const slice_counters_t c = numbered();
  const auto sums = counter_values(c, counter_combine_t::sum);
  const auto maxes = counter_values(c, counter_combine_t::max);
  EXPECT_EQ(sums.size() + maxes.size(), slice_counter_fields.size());
  // Sums and maxima as the table says: partial evictions add up, the resident set does not.
  EXPECT_EQ(slice_counter_field(&slice_counters_t::partial_evictions).combine,
            counter_combine_t::sum);
  EXPECT_EQ(slice_counter_field(&slice_counters_t::resident_high_water).combine,
            counter_combine_t::max);
  slice_counters_t back;
  set_counter_values(back, counter_combine_t::sum, sums);
  set_counter_values(back, counter_combine_t::max, maxes);
  for (const auto& f : slice_counter_fields) EXPECT_EQ(back.*f.value, c.*f.value) << f.name;
  EXPECT_THROW(set_counter_values(back, counter_combine_t::sum,
                                  std::span<const uint64_t>(sums).first(sums.size() - 1)),
               pentago_error_t);
  std::vector<uint64_t> more = maxes;
  more.push_back(1);
  EXPECT_THROW(set_counter_values(back, counter_combine_t::max, more), pentago_error_t);
}

TEST(slice_counters, record_holds_each_counter_at_its_place_or_null) {
  for (const bool mpi : {false, true})
    for (const bool synthesized : {false, true}) {
      slice_report_t r;
      r.counters = numbered();
      r.mpi = mpi;
      r.synthesized = synthesized;
      const auto j = nlohmann::json::parse(record_line(r, "slice-counters-place"));
      for (const auto& f : slice_counter_fields) {
        const auto& object = f.place == counter_place_t::memory ? j.at("memory") : j;
        if (f.place == counter_place_t::none) {
          EXPECT_FALSE(j.contains(f.name) || j.at("memory").contains(f.name)) << f.name;
          continue;
        }
        ASSERT_TRUE(object.contains(f.name)) << f.name;
        if (counter_given(f, mpi, synthesized)) {
          EXPECT_EQ(object.at(f.name).get<uint64_t>(), r.counters.*f.value) << f.name;
        } else {
          EXPECT_TRUE(object.at(f.name).is_null()) << f.name;
        }
      }
      // Of MPI's counters: the lines' memory on every slice, the traffic on computed ones.
      EXPECT_EQ(j.at("memory").at("line_bytes").is_null(), !mpi);
      EXPECT_EQ(j.at("traffic_bytes_in").is_null(), !mpi || synthesized);
    }
}

// The log's words of a counter come when it is not zero.
TEST(slice_counters, log_words_only_when_not_zero) {
  slice_report_t r = full_report();
  const auto plan_line = [&] { return format_slice_report(r).at(3); };
  EXPECT_NE(plan_line().find("; the lent arena's limit raised back 5 times;"), std::string::npos);
  r.counters.arena_limit_raises = 0;
  EXPECT_EQ(plan_line().find("raised back"), std::string::npos);
  r.mpi = false;
  EXPECT_EQ(plan_line().find("; lines "), std::string::npos);
}

// The exact text of a full report in the log and the record, as tools and earlier runs have it.
TEST(slice_counters, log_and_record_text) {
  const auto lines = format_slice_report(full_report());
  ASSERT_EQ(lines.size(), 8u);
  EXPECT_EQ(lines[0],
            "slice 34 load balance (min max ratio):  lines = 0 1 (inf);  line blocks = 1 3 (3);"
            "  line nodes = 2 5 (2.5);  blocks = 3 7 (2.333);  block nodes = 4 9 (2.25);");
  EXPECT_EQ(lines[1],
            "slice 34: 7 sections, 123456789 nodes in 1.5 s (compute 1.2 s, io 0.2 s), 1.5e+06 "
            "nodes/s/core, compression 0.375, memory high water 300.00 MiB/rank, elapsed 9.5 s, "
            "eta 3.2 s");
  EXPECT_EQ(lines[2],
            "  worker time: compute 1.00s compress 2.00s decompress 3.00s accumulate 4.00s io "
            "5.00s idle 6.00s, idle 12.5%, input cache 123 of 500 reads, traffic 1004 B in, 77 "
            "output blocks sent, 70 blocks through shared memory");
  EXPECT_EQ(
      lines[3],
      "  plan vs measured (max over ranks): store 3.81 MiB vs 3.72 MiB, ratio 0.40 vs "
      "0.375; arena live 1.06 MiB, touched 2.12 MiB of 3.18 MiB; partial blocks 4.24 MiB "
      "of 5.30 MiB (12 compressed while incomplete, 13 evicted); resident 300.00 MiB of "
      "--memory 200.00 MiB; 6.36 MiB of the pool lent by the arena during the slice; the "
      "lent arena's limit raised back 5 times; 11 incomplete blocks elided, no codec; complete "
      "blocks 14.00 MiB uncompressed; complete blocks 3.00 MiB elided, no codec; lines 7.42 MiB "
      "of 8.48 MiB");
  EXPECT_EQ(lines[4], "  warning: slice 34: resident 300.00 MiB exceeds --memory 200.00 MiB");
  EXPECT_EQ(
      record_line(full_report(), "slice-counters-text"),
      R"({"record":"slice","version":1,"slice":34,"sections":7,"blocks":11,"nodes":123456789,)"
      R"("synthesized":false,"seconds":1.5,"compute_seconds":1.25,"io_seconds":0.25,)"
      R"("elapsed":9.5,"eta":3.25,"nodes_per_second_per_core":1500000.0,"compression":0.375,)"
      R"("dropped":false,"recomputed":false,"worker_seconds":{"compute":1.0,"compress":2.0,)"
      R"("decompress":3.0,"accumulate":4.0,"io":5.0,"idle":6.0},"idle_fraction":0.125,)"
      R"("traffic_bytes_in":1004,"output_blocks_sent":77,)"
      R"("shared_memory_blocks":70,"input_reads":500,)"
      R"("input_cache_hits":123,"memory":{"resident_high_water":314572800,"limit":209715200,)"
      R"("over_limit":true,"plan_store_bytes":4000000,"store_bytes":3900000,"plan_ratio":0.4,)"
      R"("arena_live":1111111,"arena_touched":2222222,"arena_bytes":3333333,)"
      R"("arena_limit_raises":5,"partial_bytes":4444444,"partial_plan_bytes":5555555,)"
      R"("arena_lent_in_slice":6666666,"partial_recompressions":12,"partial_evictions":13,)"
      R"("partial_elided":11,)"
      R"("raw_block_bytes":14680064,"elided_block_bytes":3145728,)"
      R"("line_bytes":7777777,"line_plan_bytes":8888888},"load_balance":{"lines":[0,1],)"
      R"("line_blocks":[1,3],"line_nodes":[2,5],"blocks":[3,7],"nodes":[4,9]},"files":[)"
      R"({"name":"counts-30.npy"},{"name":"slice-30.pentago","bytes":999,"seconds":0.5}],)"
      R"("per_rank_worker_seconds":[[1.0,2.0,3.0,4.0,5.0,6.0],[6.0,5.0,4.0,3.0,2.0,1.0]]})");
}
