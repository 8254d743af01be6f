// A check shared by the driver tests: DIR/run.jsonl parses line by line, starts with the
// header and ends with "done", has one slice object per slice it lists as computed (in
// order), and its numbers agree with the counts files and the files on disk.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pentago/data/npy.h"

namespace pentago::testing {

// Returns the parsed objects (empty on a failure, which is reported).
inline std::vector<nlohmann::json> expect_run_record(const std::string& dir,
                                                     const std::string& program) {
  namespace fs = std::filesystem;
  std::vector<nlohmann::json> records;
  std::ifstream in(dir + "/run.jsonl");
  EXPECT_TRUE(in.good()) << dir << "/run.jsonl";
  std::string line;
  while (std::getline(in, line)) {
    const auto j = nlohmann::json::parse(line, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << "not JSON: " << line;
    if (j.is_discarded()) return {};
    EXPECT_EQ(j.at("version"), 1) << line;
    records.push_back(j);
  }
  if (records.size() < 3) {
    ADD_FAILURE() << dir << ": " << records.size() << " records";
    return {};
  }
  const auto& header = records.front();
  const auto& done = records.back();
  EXPECT_EQ(header.at("record"), "header");
  EXPECT_EQ(header.at("program"), program);
  EXPECT_TRUE(header.at("plan").at("fits").get<bool>());
  EXPECT_EQ(done.at("record"), "done");
  EXPECT_EQ(done.at("status"), "complete");
  // Pages chosen chunk by chunk where --huge-pages is auto: every byte made resident is on
  // one of the two sizes, and the fresh ones timed.
  const auto& first_touch = done.at("first_touch");
  EXPECT_EQ(first_touch.is_null(), header.at("options").at("huge_pages") != "auto");
  if (first_touch.is_object())
    for (const char* size : {"huge", "base"}) {
      const std::string name = size;
      EXPECT_LE(first_touch.at(name + "_fresh_bytes").get<uint64_t>(),
                first_touch.at(name + "_bytes").get<uint64_t>());
      EXPECT_GE(first_touch.at(name + "_seconds").get<double>(), 0);
    }
  const auto computed = done.at("slices").get<std::vector<int>>();
  std::vector<int> reported;
  for (size_t i = 1; i + 1 < records.size(); i++) {
    const auto& r = records[i];
    EXPECT_EQ(r.at("record"), "slice");
    if (r.at("record") != "slice") continue;
    const int n = r.at("slice");
    reported.push_back(n);
    // The counts file has one row per section; sections, blocks and nodes are the plan's.
    const auto counts = read_npy(dir + "/counts-" + std::to_string(n) + ".npy");
    EXPECT_EQ(r.at("sections").get<uint64_t>(), counts.rows) << "slice " << n;
    const auto& plan_slices = header.at("plan").at("slices");
    const auto planned = std::find_if(plan_slices.begin(), plan_slices.end(),
                                      [&](const auto& s) { return s.at("slice") == n; });
    EXPECT_NE(planned, plan_slices.end()) << "slice " << n;
    if (planned != plan_slices.end()) {
      for (const char* field : {"sections", "blocks", "nodes"})
        EXPECT_EQ(r.at(field), planned->at(field)) << "slice " << n << " " << field;
      EXPECT_EQ(r.at("dropped"), planned->at("dropped")) << "slice " << n;
      EXPECT_EQ(r.at("recomputed"), planned->at("recomputed")) << "slice " << n;
    }
    // Sparse samples: the number the record gives.
    for (const auto& f : r.at("files"))
      if (f.contains("samples")) {
        const auto sparse = read_npy(dir + "/" + f.at("name").get<std::string>());
        EXPECT_EQ(f.at("samples").get<uint64_t>(), sparse.rows) << f.at("name");
      }
    EXPECT_GE(r.at("seconds").get<double>(), r.at("compute_seconds").get<double>());
    EXPECT_EQ(r.at("dropped").get<bool>() || r.at("recomputed").get<bool>(),
              r.at("compression").is_null())
        << "slice " << n;
    // Input reads: none in the first slice (unless it reads a restart file) and below a
    // recomputed slice 35 (its blocks are computed again directly; a recomputed slice 34's go
    // through the input cache); the cache serves at most all.
    const uint64_t reads = r.at("input_reads"), hits = r.at("input_cache_hits");
    EXPECT_LE(hits, reads) << "slice " << n;
    const bool recomputed_above = i > 1 && records[i - 1].at("recomputed").get<bool>() &&
                                  records[i - 1].at("slice").get<int>() == 35;
    if ((i == 1 && header.at("restart").is_null()) || recomputed_above) {
      EXPECT_EQ(reads, 0u) << "slice " << n;
    }
    const auto& memory = r.at("memory");
    EXPECT_GT(memory.at("resident_high_water").get<uint64_t>(), 0u);
    EXPECT_EQ(memory.at("limit"), header.at("memory"));
    // Every file it names exists, with the size it gives.
    for (const auto& f : r.at("files")) {
      const std::string path = dir + "/" + f.at("name").get<std::string>();
      EXPECT_TRUE(fs::exists(path)) << path;
      if (f.contains("bytes") && fs::exists(path)) {
        EXPECT_EQ(f.at("bytes").get<uint64_t>(), fs::file_size(path)) << path;
      }
    }
    // A slice <= --save (the synthesized one too) has its slice file listed.
    bool listed = false;
    for (const auto& f : r.at("files"))
      listed |= f.at("name") == "slice-" + std::to_string(n) + ".pentago";
    EXPECT_EQ(listed, n <= header.at("save").get<int>()) << "slice " << n;
  }
  EXPECT_EQ(reported, computed);
  // Every slice of the plan that is computed has its object.
  for (const auto& s : header.at("plan").at("slices")) {
    if (s.at("computed").get<bool>()) {
      EXPECT_NE(std::find(computed.begin(), computed.end(), s.at("slice").get<int>()),
                computed.end())
          << "slice " << s.at("slice");
    }
  }
  return records;
}

}  // namespace pentago::testing
