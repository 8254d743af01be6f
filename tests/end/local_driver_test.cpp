// End-to-end tests of the in-process solver: published counts, samples against forward
// search, meaningless mode against forward search with the same leaves, and thread-count
// independence of every output byte.
#include "pentago/end/local_driver.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "pentago/data/npy.h"
#include "pentago/end/meaningless.h"
#include "pentago/end/slice_report.h"
#include "pentago/search/super_search.h"
#include "run_record_expect.h"

using namespace pentago;
namespace fs = std::filesystem;

namespace {

std::string fresh_dir(const std::string& name) {
  const fs::path dir = fs::path(PENTAGO_BINARY_DIR) / "test-runs" / name;
  fs::remove_all(dir);
  fs::create_directories(dir.parent_path());
  return dir.string();
}

std::string run(const std::string& root, int threads, const std::string& name, int meaningless = 0,
                block_codec_t codec = block_codec_t::snappy, uint64_t memory = uint64_t(12) << 30,
                bool codec_auto = false, bool recompute_34 = false) {
  local_options_t o;
  o.root = section_t::parse(root);
  o.threads = threads;
  o.dir = fresh_dir(name);
  o.meaningless = meaningless;
  o.echo = false;
  o.memory = memory;
  o.codec = codec;
  o.codec_auto = codec_auto;
  o.recompute_34 = recompute_34;
  run_local(o);
  return o.dir;
}

std::vector<uint8_t> file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), {});
}

// Every row of every counts file equals the published row with the same section id.
int check_published_counts(const std::string& dir, int lo, int hi) {
  int rows = 0;
  for (int n = lo; n <= hi; n++) {
    const auto ours = read_npy(dir + "/counts-" + std::to_string(n) + ".npy");
    const auto published =
        read_npy(std::string(PENTAGO_SHARED_DATA) + "/counts-" + std::to_string(n) + ".npy");
    std::map<uint64_t, size_t> row_of;
    for (size_t r = 0; r < published.rows; r++) row_of[published(r, 0)] = r;
    for (size_t r = 0; r < ours.rows; r++) {
      auto it = row_of.find(ours(r, 0));
      EXPECT_NE(it, row_of.end()) << "slice " << n << ": unknown section";
      if (it == row_of.end()) continue;
      for (int c = 1; c < 4; c++)
        EXPECT_EQ(ours(r, c), published(it->second, c))
            << "slice " << n << " section " << section_t::from_sig(ours(r, 0)).str() << " col "
            << c;
      rows++;
    }
  }
  return rows;
}

// Every sparse sample equals the forward search value (leaf: optional meaningless slice).
int check_samples(const std::string& dir, int lo, int hi, int leaf_slice = -1) {
  super_search_options_t options;
  if (leaf_slice >= 0) {
    options.leaf_stones = leaf_slice;
    options.leaf = meaningless_value;
  }
  super_searcher_t searcher(options);
  int checked = 0;
  for (int n = lo; n <= hi; n++) {
    const auto sparse = read_npy(dir + "/sparse-" + std::to_string(n) + ".npy");
    EXPECT_EQ(sparse.cols, 9u);
    for (size_t r = 0; r < sparse.rows; r++) {
      const board_t board = sparse(r, 0);
      superinfo_t expected;
      if (leaf_slice == n) {
        expected = to_black_white(meaningless_value(board), n & 1);
      } else {
        expected = searcher.black_white(board);
      }
      for (int w = 0; w < 4; w++) {
        EXPECT_EQ(sparse(r, 1 + w), expected.win.w[w]) << "slice " << n << " board " << board;
        EXPECT_EQ(sparse(r, 5 + w), expected.notlose.w[w]) << "slice " << n << " board " << board;
      }
      checked++;
    }
  }
  return checked;
}

}  // namespace

TEST(local_driver, root_44444554_matches_published_counts_and_search) {
  const auto dir = run("44444554", 2, "local-44444554");
  EXPECT_GT(check_published_counts(dir, 34, 35), 1);
  EXPECT_GT(check_samples(dir, 34, 35), 256);
}

// The arena and partial pool on huge pages, on base pages, or on what the probe found cheaper
// change no output byte; the run record names the pages and, where chosen, the probe.
TEST(local_driver, page_size_changes_no_output) {
  std::vector<std::string> dirs;
  for (const std::string mode : {"on", "off", "auto"}) {
    SCOPED_TRACE(mode);
    local_options_t o;
    o.root = section_t::parse("44444554");
    o.threads = 2;
    o.dir = fresh_dir("pages-" + mode);
    o.echo = false;
    o.memory = uint64_t(12) << 30;
    if (mode != "auto") o.pages = mode == "on" ? page_size_t::huge : page_size_t::base;
    run_local(o);
    dirs.push_back(o.dir);
    const auto records = pentago::testing::expect_run_record(o.dir, "pentago-endgame-local");
    const auto& header = records.at(0);
    EXPECT_EQ(header.at("options").at("huge_pages"), mode);
    EXPECT_EQ(header.at("page_probe").is_null(), mode != "auto");
    if (mode == "auto") {
      const auto& probe = header.at("page_probe");
      EXPECT_GT(probe.at("base_seconds_per_gib").get<double>(), 0);
      EXPECT_GT(probe.at("huge_seconds_per_gib").get<double>(), 0);
    } else {
      EXPECT_EQ(header.at("pages"), mode == "on" ? "huge" : "base");
    }
  }
  for (const std::string file : {"/counts-34.npy", "/counts-35.npy", "/sparse-34.npy"})
    for (size_t i = 1; i < dirs.size(); i++)
      EXPECT_EQ(file_bytes(dirs[0] + file), file_bytes(dirs[i] + file)) << dirs[i] << file;
}

// At 3G slice 34 (the one stored slice: 35 is recomputed, 33 dropped) keeps some of its
// complete blocks uncompressed and the rest elided (no codec), as the plan's room holds them;
// before slice 33 the arena lends what the store leaves of its plan to the partial pool (the
// two sum to the plan's in every slice), and no write takes it back.
TEST(local_driver, root_44444454_matches_published_counts_and_search) {
  const auto dir =
      run("44444454", 2, "local-44444454", 0, block_codec_t::snappy, uint64_t(3) << 30);
  EXPECT_GT(check_published_counts(dir, 33, 35), 3);
  EXPECT_GT(check_samples(dir, 33, 35), 512);
  const auto records = pentago::testing::expect_run_record(dir, "pentago-endgame-local");
  ASSERT_EQ(records.size(), 5u);  // header, slices 35, 34, 33, done
  const auto& plan = records[0].at("plan");
  const uint64_t arena = plan.at("arena_bytes"), pool = plan.at("partial_bytes");
  for (int i = 1; i <= 3; i++) {
    const auto& memory = records[size_t(i)].at("memory");
    const uint64_t limit = memory.at("arena_bytes"), budget = memory.at("partial_plan_bytes");
    EXPECT_EQ(memory.at("arena_limit_raises").get<uint64_t>(), 0u);
    EXPECT_NEAR(double(limit + budget), double(arena + pool), 64) << i;  // (64-byte aligned heap)
    if (i <= 2) {
      EXPECT_EQ(budget, pool);  // slices 35 and 34 have no store above them to measure
    } else {
      EXPECT_GE(budget, pool) << i;
      EXPECT_GE(limit, memory.at("arena_touched").get<uint64_t>()) << i;
    }
  }
  EXPECT_GT(plan.at("raw_bytes").get<uint64_t>(), 0u);
  const auto& slice34 = records[2];
  EXPECT_EQ(slice34.at("slice").get<int>(), 34);
  // Which blocks end uncompressed and which elided depends on the order they complete in (the
  // elided ones may take the room first): together they are some, and not all raw.
  const uint64_t raw = slice34.at("memory").at("raw_block_bytes");
  const uint64_t elided = slice34.at("memory").at("elided_block_bytes");
  EXPECT_GT(raw + elided, 0u) << "3G keeps complete blocks out of the codec";
  EXPECT_LT(slice34.at("compression").get<double>(), 0.99) << "3G holds not all of it raw";
}

TEST(local_driver, thread_count_independence) {
  const auto one = run("44444554", 1, "threads-1");
  for (int threads : {2, 4}) {
    const auto other = run("44444554", threads, "threads-" + std::to_string(threads));
    for (int n = 34; n <= 35; n++)
      for (const char* kind : {"counts", "sparse"}) {
        const std::string name = std::string("/") + kind + "-" + std::to_string(n) + ".npy";
        EXPECT_EQ(file_bytes(one + name), file_bytes(other + name)) << threads << name;
      }
  }
}

// The in-core codec changes bytes in memory only: counts and samples are the same with each,
// at a memory that leaves few partial buffers (so merges go through the codec too). 54454443
// (two full quadrants) is a small root whose slice 34 is stored in the codec and read by 33.
TEST(local_driver, codec_independence) {
  const uint64_t memory = uint64_t(1220) << 20;  // LZ4's plan needs 1.09 GiB, Snappy's 1.04
  const auto snappy = run("54454443", 2, "codec-snappy", 0, block_codec_t::snappy, memory);
  for (const block_codec_t codec : {block_codec_t::zstd, block_codec_t::lz4}) {
    if (!block_codec_available(codec)) continue;
    const std::string name = block_codec_name(codec);
    const auto other = run("54454443", 2, "codec-" + name, 0, codec, memory);
    for (int n = 33; n <= 35; n++)
      for (const char* kind : {"counts", "sparse"}) {
        const std::string file = std::string("/") + kind + "-" + std::to_string(n) + ".npy";
        EXPECT_EQ(file_bytes(snappy + file), file_bytes(other + file)) << name << file;
      }
    std::ifstream record(other + "/run.jsonl");
    std::string header;
    std::getline(record, header);
    EXPECT_NE(header.find("\"codec\":\"" + name + "\""), std::string::npos) << header;
  }
  // --codec auto below Snappy's need (1.04 GiB; LZ4's is larger; zstd's 0.72 GiB) takes zstd,
  // and says so in the record.
  if (block_codec_available(block_codec_t::zstd)) {
    const auto chosen =
        run("54454443", 2, "codec-auto", 0, block_codec_t::snappy, uint64_t(900) << 20, true);
    EXPECT_EQ(file_bytes(snappy + "/counts-33.npy"), file_bytes(chosen + "/counts-33.npy"));
    std::ifstream record(chosen + "/run.jsonl");
    std::string header;
    std::getline(record, header);
    EXPECT_NE(header.find("\"codec\":\"zstd\",\"codec_auto\":true"), std::string::npos) << header;
  }
}

// Slice 34 computed again by slice 33 instead of stored (--recompute-34) changes no output
// byte; the plan holds only its incomplete blocks, and the run record says it was recomputed.
TEST(local_driver, recomputed_slice_34_changes_no_output) {
  const uint64_t memory = uint64_t(1220) << 20;
  const auto stored = run("54454443", 2, "recompute-stored", 0, block_codec_t::snappy, memory);
  const auto again =
      run("54454443", 2, "recompute-again", 0, block_codec_t::snappy, memory, false, true);
  for (int n = 33; n <= 35; n++)
    for (const char* kind : {"counts", "sparse"}) {
      const std::string file = std::string("/") + kind + "-" + std::to_string(n) + ".npy";
      EXPECT_EQ(file_bytes(stored + file), file_bytes(again + file)) << file;
    }
  const auto records = pentago::testing::expect_run_record(again, "pentago-endgame-local");
  ASSERT_EQ(records.size(), 5u);  // header, slices 35, 34, 33, done
  EXPECT_EQ(records[2].at("slice").get<int>(), 34);
  EXPECT_TRUE(records[2].at("recomputed").get<bool>());
  const auto stored_records = pentago::testing::expect_run_record(stored, "pentago-endgame-local");
  EXPECT_LT(records[0].at("plan").at("needed").get<uint64_t>(),
            stored_records[0].at("plan").at("needed").get<uint64_t>());
}

TEST(local_driver, meaningless_agrees_with_forward_search) {
  for (int k : {4, 5}) {
    const auto dir = run("00000000", 2, "meaningless-" + std::to_string(k), k);
    EXPECT_GE(check_samples(dir, 0, k, k), 256 * (k + 1));
  }
}

TEST(local_driver, refuses_existing_directory_and_small_memory) {
  const auto dir = fresh_dir("exists");
  fs::create_directories(dir);
  local_options_t o;
  o.root = section_t::parse("44444554");
  o.dir = dir;
  o.echo = false;
  EXPECT_THROW(run_local(o), usage_error_t);
  o.dir = fresh_dir("small-memory");
  o.memory = 1 << 20;
  // A run the memory plan refuses is a usage error (exit 2), as in pentago-endgame.
  EXPECT_THROW(run_local(o), usage_error_t);
  EXPECT_FALSE(fs::exists(o.dir));
}

// The run record: header, one object per slice (the synthesized one too), done; numbers agree
// with the counts files; saved slices of the full game get their .index sidecars.
TEST(local_driver, run_record_describes_the_run) {
  local_options_t o;
  o.root = section_t::parse("00000000");
  o.threads = 2;
  o.dir = fresh_dir("run-record-local");
  o.meaningless = 4;
  o.save = 2;
  o.echo = false;
  o.memory = uint64_t(2) << 30;
  run_local(o);
  const auto records = pentago::testing::expect_run_record(o.dir, "pentago-endgame-local");
  ASSERT_EQ(records.size(), 7u);  // header, slices 4 (synthesized) .. 0, done
  EXPECT_TRUE(records[1].at("synthesized").get<bool>());
  EXPECT_TRUE(records[1].at("traffic_bytes_in").is_null());
  EXPECT_TRUE(records[2].at("load_balance").is_null());
  // Slices 3-0 read their inputs from the store above, all on this one process. With 2 GiB
  // every complete block stays uncompressed, and its read is one copy: the input cache keeps
  // none.
  for (size_t i = 2; i <= 5; i++) {
    EXPECT_GT(records[i].at("input_reads").get<uint64_t>(), 0u) << i;
    EXPECT_EQ(records[i].at("input_cache_hits").get<uint64_t>(), 0u) << i;
    EXPECT_GT(records[i].at("memory").at("raw_block_bytes").get<uint64_t>(), 0u) << i;
  }
  for (int n = 0; n <= 2; n++) {
    EXPECT_TRUE(fs::exists(o.dir + "/slice-" + std::to_string(n) + ".pentago.index")) << n;
  }
  EXPECT_FALSE(fs::exists(o.dir + "/slice-3.pentago"));
  // At the plan's need the blocks go through the codec, and sections that read the same
  // children run together, so later readers find decoded copies.
  o.memory = records[0].at("plan").at("needed").get<uint64_t>();
  o.dir = fresh_dir("run-record-local-need");
  run_local(o);
  const auto tight = pentago::testing::expect_run_record(o.dir, "pentago-endgame-local");
  ASSERT_EQ(tight.size(), 7u);
  uint64_t hits = 0;
  for (size_t i = 2; i <= 5; i++) hits += tight[i].at("input_cache_hits").get<uint64_t>();
  EXPECT_GT(hits, 0u);
}

// A resident set over --memory is a warning in the log and "over_limit" in the record.
TEST(slice_report, resident_over_memory_warns) {
  slice_report_t r;
  r.slice = 34;
  r.memory.limit = 100 << 20;
  r.counters.resident_high_water = 101 << 20;
  const auto lines = format_slice_report(r);
  bool warned = false;
  for (const auto& line : lines)
    warned |= line.find("warning: slice 34: resident") != std::string::npos;
  EXPECT_TRUE(warned);
  r.counters.resident_high_water = 99 << 20;
  for (const auto& line : format_slice_report(r))
    EXPECT_EQ(line.find("warning"), std::string::npos);
}
