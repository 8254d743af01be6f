// The run-directory scanner shared by the database tools and the query path.
#include "pentago/db/run_directory.h"

#include <algorithm>
#include <regex>

#include "pentago/util/error.h"

namespace pentago {

run_directory_listing_t scan_run_directory(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw pentago_error_t(dir + ": not a directory");
  static const std::regex pattern(
      R"((counts|sparse)-(\d{1,2})\.npy|slice-(\d{1,2})\.pentago(\.index)?|meaningless-(\d{1,2}))");
  std::vector<fs::directory_entry> entries;
  for (const auto& entry : fs::directory_iterator(dir, ec)) entries.push_back(entry);
  if (ec) throw pentago_error_t(dir + ": cannot list the directory: " + ec.message());
  std::sort(entries.begin(), entries.end());
  run_directory_listing_t listing;
  for (const auto& entry : entries) {
    const std::string name = entry.path().filename().string(), path = entry.path().string();
    std::smatch m;
    if (!entry.is_regular_file(ec) || !std::regex_match(name, m, pattern)) {
      listing.others.push_back(entry);
      continue;
    }
    if (m[1].matched) {
      const int n = std::stoi(m[2].str());
      if (n > 36) {
        listing.others.push_back(entry);
      } else {
        auto& files = listing.slices[n];
        (m[1].str() == "counts" ? files.counts : files.sparse) = path;
      }
    } else if (m[3].matched) {
      const int n = std::stoi(m[3].str());
      if (n > 36) {
        listing.others.push_back(entry);
      } else {
        auto& files = listing.slices[n];
        (m[4].matched ? files.index : files.slice) = path;
      }
    } else {
      const int k = std::stoi(m[5].str());
      if (k >= 1 && k <= 35)
        listing.meaningless_markers.push_back(k);
      else
        listing.others.push_back(entry);
    }
  }
  return listing;
}

}  // namespace pentago
