// Test helper: writes DIR/run.jsonl (the run record schema of docs/tools.md) describing the
// counts, sparse and slice files already in DIR as one finished run, for test directories
// whose files were made or completed by hand.
#pragma once
#include <filesystem>
#include <fstream>
#include <string>

#include "pentago/data/npy.h"
#include "pentago/layout/section.h"

namespace pentago::test_runs {

inline void write_run_record(const std::string& dir, const std::string& root, int save = -1,
                             int meaningless = 0, int samples = 256) {
  namespace fs = std::filesystem;
  std::string slices, order;
  int top = -1, bottom = -1;
  for (int n = 35; n >= 0; n--) {
    const std::string counts = "counts-" + std::to_string(n) + ".npy";
    if (!fs::exists(fs::path(dir) / counts)) continue;
    const npy_array_t rows = read_npy(dir + "/" + counts);
    uint64_t nodes = 0;
    for (uint64_t r = 0; r < rows.rows; r++) nodes += section_t::from_sig(rows(r, 0)).size();
    std::string files = "{\"name\":\"" + counts + "\"}";
    const std::string sparse = "sparse-" + std::to_string(n) + ".npy";
    if (fs::exists(fs::path(dir) / sparse))
      files += ",{\"name\":\"" + sparse + "\",\"samples\":" + std::to_string(samples) + "}";
    for (const std::string& name : {"slice-" + std::to_string(n) + ".pentago",
                                    "slice-" + std::to_string(n) + ".pentago.index"})
      if (fs::exists(fs::path(dir) / name))
        files += ",{\"name\":\"" + name +
                 "\",\"bytes\":" + std::to_string(fs::file_size(fs::path(dir) / name)) + "}";
    slices += "{\"record\":\"slice\",\"version\":1,\"slice\":" + std::to_string(n) +
              ",\"sections\":" + std::to_string(rows.rows) + ",\"nodes\":" + std::to_string(nodes) +
              ",\"dropped\":false,\"files\":[" + files + "]}\n";
    order += (order.empty() ? "" : ",") + std::to_string(n);
    if (top < 0) top = n;
    bottom = n;
  }
  std::ofstream out(dir + "/run.jsonl", std::ios::trunc);
  out << "{\"record\":\"header\",\"version\":1,\"program\":\"pentago-endgame-local\",\"root\":\""
      << root << "\",\"top\":" << top << ",\"bottom\":" << bottom << ",\"save\":" << save
      << ",\"samples\":" << samples << ",\"meaningless\":" << meaningless << ",\"restart\":null}\n"
      << slices << "{\"record\":\"done\",\"version\":1,\"status\":\"complete\",\"seconds\":1,"
      << "\"slices\":[" << order << "]}\n";
}

}  // namespace pentago::test_runs
