// Position values from saved slices: block cache, slice database and move evaluation.
#include "pentago/db/lookup.h"

#include <algorithm>
#include <filesystem>
#include <regex>

#include "pentago/end/meaningless.h"
#include "pentago/util/error.h"

namespace pentago {

superinfo_t transform_pair(symmetry_t s, const superinfo_t& pair) {
  return {transform_super(s, pair.win), transform_super(s, pair.notlose)};
}

// ---- block_cache --------------------------------------------------------------------------

size_t block_cache::key_hash::operator()(const key_t& k) const {
  uint64_t h = uint64_t(reinterpret_cast<uintptr_t>(k.reader));
  h = h * 0x9e3779b97f4a7c15ULL ^ uint64_t(k.section);
  h = h * 0x9e3779b97f4a7c15ULL ^ k.block;
  return size_t(h ^ h >> 29);
}

block_cache::block_cache(uint64_t memory_limit) : limit_(memory_limit) {}

block_cache::block_ptr block_cache::get(const supertensor_reader& reader, int section_index,
                                        const block_t& block) {
  const section_t& section = reader.sections().at(size_t(section_index));
  const key_t key{&reader, section_index, block_index(section, block)};
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = where_.find(key);
    if (it != where_.end()) {
      stats_.hits++;
      lru_.splice(lru_.begin(), lru_, it->second);
      return it->second->second;
    }
    stats_.misses++;
  }
  // Decode outside the lock; a racing thread may decode the same block, and the first to
  // insert wins.
  auto data =
      std::make_shared<const std::vector<superinfo_t>>(reader.read_block(section_index, block));
  const uint64_t bytes = data->size() * sizeof(superinfo_t);
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = where_.find(key);
  if (it != where_.end()) return it->second->second;
  lru_.emplace_front(key, data);
  where_[key] = lru_.begin();
  stats_.bytes += bytes;
  while (stats_.bytes > limit_ && lru_.size() > 1) {
    const auto& victim = lru_.back();
    stats_.bytes -= victim.second->size() * sizeof(superinfo_t);
    where_.erase(victim.first);
    lru_.pop_back();
    stats_.evictions++;
  }
  stats_.peak_bytes = std::max(stats_.peak_bytes, stats_.bytes);
  return data;
}

block_cache::stats_t block_cache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

// ---- slice_database ---------------------------------------------------------------------

slice_database::slice_database(uint64_t cache_bytes)
    : cache_(std::make_unique<block_cache>(cache_bytes)) {}
slice_database::~slice_database() = default;

int slice_database::add_directory(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw error(dir + ": not a directory");
  static const std::regex slice_name(R"(slice-(\d+)\.pentago)"), marker(R"(meaningless-(\d+))");
  std::vector<std::string> paths;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    std::smatch m;
    if (std::regex_match(name, m, slice_name)) {
      paths.push_back(entry.path().string());
    } else if (std::regex_match(name, m, marker)) {
      const int k = std::stoi(m[1].str());
      if (meaningless_ && meaningless_ != k)
        throw error(dir + ": more than one meaningless slice marker");
      meaningless_ = k;
    }
  }
  if (ec) throw error(dir + ": cannot list directory: " + ec.message());
  std::sort(paths.begin(), paths.end());
  for (const auto& p : paths) add_file(p);
  return int(paths.size());
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

// ---- position_evaluator -----------------------------------------------------------------

position_evaluator::position_evaluator(const slice_database& db, const evaluator_options& options)
    : db_(db), options_(options) {
  if (options.threads < 1) throw usage_error("search threads must be at least 1");
  if (options.max_search_depth < 0) throw usage_error("maximum search depth must be >= 0");
}
position_evaluator::~position_evaluator() = default;

super_searcher& position_evaluator::searcher(int leaf_slice) {
  auto& engine = searchers_[leaf_slice];
  if (!engine) {
    super_search_options o;
    o.threads = options_.threads;
    o.table_bits = options_.table_bits;
    if (leaf_slice >= 0) {
      o.leaf_stones = leaf_slice;
      if (!db_.has_slice(leaf_slice) && leaf_slice == db_.meaningless()) {
        o.leaf = cached_leaf(meaningless_value);
      } else {
        const slice_database* db = &db_;
        o.leaf = [db, leaf_slice](board_t b) {
          return disk_to_store(db->black_white(b), leaf_slice & 1);
        };
      }
    }
    engine = std::make_unique<super_searcher>(o);
  }
  return *engine;
}

superinfo_t position_evaluator::black_white(board_t board, value_source* source) {
  check_board(board);
  const int n = count_stones(board);
  if (const auto v = db_.find(board)) {
    if (source) *source = value_source::saved_slice;
    return *v;
  }
  if (n == 36) {
    // Rule 1, else a tie: nobody moves on a full board.
    const super_t black = super_wins(unpack(board, 0)), white = super_wins(unpack(board, 1));
    if (source) *source = value_source::full_board;
    return {black & ~white, white & ~black};
  }
  if (n == db_.meaningless()) {
    if (source) *source = value_source::meaningless;
    return to_black_white(meaningless_value(board), n & 1);
  }
  // Forward search down to the nearest slice above with known values.
  int leaf = -1;
  for (const int m : db_.slices())
    if (m > n) {
      leaf = m;
      break;
    }
  if (db_.meaningless() > n && (leaf < 0 || db_.meaningless() < leaf)) leaf = db_.meaningless();
  const int depth = (leaf < 0 ? 36 : leaf) - n;
  if (depth > options_.max_search_depth)
    throw error("board " + std::to_string(board) + ": slice " + std::to_string(n) +
                " is not saved and a forward search over " + std::to_string(depth) +
                " stones exceeds the limit of " + std::to_string(options_.max_search_depth) +
                (leaf < 0 ? " (no saved slice above it)"
                          : " (nearest known slice " + std::to_string(leaf) + ")"));
  searches_++;
  if (source) *source = value_source::search;
  return searcher(leaf).black_white(board);
}

game_value position_evaluator::value(board_t board, value_source* source) {
  const superinfo_t v = black_white(board, source);
  const bool black = v.win(0), white = v.notlose(0);
  PENTAGO_CHECK(!(black && white), "both players win board " + std::to_string(board));
  if (!black && !white) return game_value::tie;
  return (black == (board_turn(board) == 0)) ? game_value::win : game_value::loss;
}

std::vector<move_value_t> position_evaluator::moves(board_t board) {
  check_board(board);
  std::vector<move_value_t> result;
  if (terminal_value(board) != 2) return result;
  const int turn = board_turn(board);
  for (int y = 5; y >= 0; y--)
    for (int x = 0; x < 6; x++) {
      const side_t bit = cell_bit(x, y);
      if (!(empty_cells(board) & bit)) continue;
      const int index = __builtin_ctzll(bit);
      const board_t placed = place_stone(board, turn, index / 16, index % 16);
      move_value_t m;
      m.x = x, m.y = y;
      if (won(unpack(placed, turn))) {
        m.child = placed;
        m.value = game_value::win;
        m.source = value_source::full_board;  // decided by the rules, not looked up
        result.push_back(m);
        continue;
      }
      for (int q = 0; q < 4; q++)
        for (const int dir : {+1, -1}) {
          m.quadrant = q, m.direction = dir;
          m.child = rotate_board(placed, q, dir);
          m.value = game_value(-int(value(m.child, &m.source)));
          result.push_back(m);
        }
    }
  return result;
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

const char* source_name(value_source source) {
  switch (source) {
    case value_source::saved_slice:
      return "saved slice";
    case value_source::full_board:
      return "rules";
    case value_source::meaningless:
      return "meaningless";
    case value_source::search:
      return "search";
  }
  return "?";
}

std::string cell_name(int x, int y) {
  return std::string(1, char('a' + (5 - y))) + std::string(1, char('1' + x));
}

std::string move_name(const move_value_t& move) {
  std::string s = cell_name(move.x, move.y);
  if (move.direction)
    s += " q" + std::to_string(move.quadrant) + (move.direction > 0 ? " ccw" : " cw");
  return s;
}

}  // namespace pentago
