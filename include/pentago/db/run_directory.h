// The files of a run directory by kind: counts-N.npy, sparse-N.npy, slice-N.pentago and its
// .index sidecar per slice, meaningless-K markers, and everything else (for the caller to judge).
#pragma once
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace pentago {

struct slice_files_t {
  std::string counts, sparse, slice, index;  // paths; empty if absent
};

struct run_directory_listing_t {
  std::map<int, slice_files_t> slices;                   // slice 0..36
  std::vector<int> meaningless_markers;                  // K of each meaningless-K (1..35)
  std::vector<std::filesystem::directory_entry> others;  // the rest (non-files too), by name
};

// Lists `dir` (regular files only are classified). Throws pentago::error if it is not a
// directory or cannot be listed.
run_directory_listing_t scan_run_directory(const std::string& dir);

}  // namespace pentago
