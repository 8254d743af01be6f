// Board values from saved slices: the slice database of a run directory.
#include "pentago/db/lookup.h"

#include <algorithm>

#include "pentago/db/run_directory.h"
#include "pentago/util/error.h"

namespace pentago {

superinfo_t transform_pair(symmetry_t s, const superinfo_t& pair) {
  return {transform_super(s, pair.win), transform_super(s, pair.notlose)};
}

// ---- slice_database ---------------------------------------------------------------------

slice_database::slice_database(uint64_t cache_bytes)
    : cache_(std::make_unique<block_cache>(cache_bytes)) {}
slice_database::~slice_database() = default;

int slice_database::add_directory(const std::string& dir) {
  const run_directory_listing listing = scan_run_directory(dir);
  for (const int k : listing.meaningless_markers) {
    if (meaningless_ && meaningless_ != k)
      throw error(dir + ": more than one meaningless slice marker");
    meaningless_ = k;
  }
  int added = 0;
  for (const auto& [n, files] : listing.slices)
    if (!files.slice.empty()) add_file(files.slice), added++;
  return added;
}

void slice_database::add_file(const std::string& path) {
  add_reader(std::make_shared<const supertensor_reader>(path));
}

void slice_database::add_reader(std::shared_ptr<const supertensor_reader> reader) {
  const int n = reader->slice();
  if (n < 0) throw error(reader->name() + ": slice file has no sections");
  if (readers_.count(n))
    throw error(reader->name() + ": slice " + std::to_string(n) + " is already open from " +
                readers_[n]->name());
  readers_[n] = std::move(reader);
}

std::vector<int> slice_database::slices() const {
  std::vector<int> result;
  for (const auto& [n, r] : readers_) result.push_back(n);
  return result;
}

const supertensor_reader& slice_database::reader(int n) const {
  const auto it = readers_.find(n);
  if (it == readers_.end()) throw error("slice " + std::to_string(n) + " is not saved");
  return *it->second;
}

superinfo_t slice_database::stored(const supertensor_reader& reader, int section_index,
                                   const std::array<int, 4>& index) const {
  const section_t& section = reader.sections().at(size_t(section_index));
  block_t block;
  for (int q = 0; q < 4; q++) block[q] = uint8_t(index[q] / block_size);
  const auto shape = block_shape(section, block);
  int offset = 0;
  for (int q = 0; q < 4; q++) offset = offset * shape[q] + index[q] % block_size;
  const auto data = cache_->get(reader, section_index, block);
  return (*data)[size_t(offset)];
}

std::optional<superinfo_t> slice_database::find(board_t board) const {
  const auto it = readers_.find(count_stones(board));
  if (it == readers_.end()) return std::nullopt;
  const board_location loc = locate_board(board);
  const int s = it->second->section_index(loc.section);
  if (s < 0) return std::nullopt;
  return transform_pair(loc.symmetry, stored(*it->second, s, loc.index));
}

superinfo_t slice_database::black_white(board_t board) const {
  const int n = count_stones(board);
  if (!has_slice(n))
    throw error("board " + std::to_string(board) + ": slice " + std::to_string(n) +
                " is not saved");
  const auto v = find(board);
  if (!v)
    throw error("board " + std::to_string(board) + ": section " +
                locate_board(board).section.name() + " is not in " + reader(n).name());
  return *v;
}

leaf_function cached_leaf(std::function<superinfo_t(board_t)> value, size_t max_entries) {
  struct memory {
    std::mutex mutex;
    std::unordered_map<board_t, superinfo_t> values;
  };
  auto m = std::make_shared<memory>();
  return equivariant_leaf([m, value = std::move(value), max_entries](board_t standard) {
    {
      std::lock_guard<std::mutex> lock(m->mutex);
      const auto it = m->values.find(standard);
      if (it != m->values.end()) return it->second;
    }
    const superinfo_t v = value(standard);
    std::lock_guard<std::mutex> lock(m->mutex);
    if (m->values.size() >= max_entries) m->values.clear();
    m->values.emplace(standard, v);
    return v;
  });
}

std::string cell_name(int x, int y) {
  return std::string(1, char('a' + (5 - y))) + std::string(1, char('1' + x));
}

}  // namespace pentago
