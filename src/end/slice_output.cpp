// Writing counts-N.npy and sparse-N.npy, and creating run directories.
#include "pentago/end/slice_output.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "pentago/data/npy.h"
#include "pentago/util/error.h"

namespace pentago {

std::vector<uint64_t> counts_rows(int slice, std::span<const section_t> sections,
                                  std::span<const section_counts_t> counts) {
  std::vector<uint64_t> rows;
  rows.reserve(4 * sections.size());
  for (size_t i = 0; i < sections.size(); i++) {
    const uint64_t win = counts[i][0], notlose = counts[i][1], total = counts[i][2];
    const uint64_t mover = win, other = total - notlose;
    rows.push_back(sections[i].sig());
    rows.push_back(slice % 2 == 0 ? mover : other);
    rows.push_back(slice % 2 == 0 ? other : mover);
    rows.push_back(total);
  }
  return rows;
}

std::vector<uint64_t> sparse_rows(int slice, std::span<const sample_t> samples) {
  std::vector<uint64_t> rows;
  rows.reserve(9 * samples.size());
  for (const auto& s : samples) {
    const superinfo_t disk = store_to_disk(s.value, slice & 1);
    rows.push_back(s.board);
    for (uint64_t w : disk.win.w) rows.push_back(w);
    for (uint64_t w : disk.notlose.w) rows.push_back(w);
  }
  return rows;
}

void write_counts(const std::string& dir, int slice, std::span<const section_t> sections,
                  std::span<const section_counts_t> counts) {
  const auto rows = counts_rows(slice, sections, counts);
  write_npy(dir + "/counts-" + std::to_string(slice) + ".npy", sections.size(), 4, rows);
}

void write_sparse(const std::string& dir, int slice, std::span<const sample_t> samples) {
  const auto rows = sparse_rows(slice, samples);
  write_npy(dir + "/sparse-" + std::to_string(slice) + ".npy", samples.size(), 9, rows);
}

void create_run_directory(const std::string& dir) {
  if (mkdir(dir.c_str(), 0777) != 0) {
    if (errno == EEXIST)
      throw usage_error_t("output directory " + dir +
                          " already exists; refusing to overwrite (choose a new --dir)");
    throw pentago_error_t("cannot create output directory " + dir + ": " + std::strerror(errno));
  }
}

}  // namespace pentago
