// Local and remote slice databases behind one look-up: directory scans, remote probing of the
// .index sidecars, block reads (re-fetching a remote block that arrives corrupt) and the
// shared block cache.
#include "database.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>
#include <filesystem>
#include <set>
#include <thread>

#include "pentago/data/supertensor.h"
#include "pentago/db/lookup.h"
#include "pentago/db/run_directory.h"
#include "pentago/layout/line_mapping.h"
#include "pentago/util/error.h"
#include "pentago/util/parallel_for.h"

namespace pentago {

namespace {

bool is_url(const std::string& s) {
  return s.rfind("http://", 0) == 0 || s.rfind("https://", 0) == 0;
}

}  // namespace

// One slice file of one database.
struct slice_databases::source {
  std::string name;  // path or URL of the .pentago file
  int slice = 0;
  std::shared_ptr<const supertensor_reader> local;
  std::shared_ptr<const input_file> remote;  // the .pentago file, read through `index`
  std::unique_ptr<const slice_index_reader> index;
  int attempts = 1;  // fetches of a remote block that arrives corrupt

  int section_index(const section_t& s) const {
    return local ? local->section_index(s) : index->section_index(s);
  }
  const section_t& section(int i) const {
    return local ? local->sections()[size_t(i)] : index->sections()[size_t(i)];
  }
  block_cache::block_data read_block(int s, const block_t& b) const {
    if (local) return local->read_block(s, b);
    for (int attempt = 1;; attempt++) {
      try {
        return index->read_block(*remote, s, b);
      } catch (const fetch_error&) {
        throw;  // the network: already retried
      } catch (const error& e) {
        if (attempt >= attempts)
          throw error(std::string(e.what()) + " (the same after " + std::to_string(attempts) +
                      " fetches)");
      }
    }
  }
};

slice_databases::slice_databases(const std::vector<std::string>& databases, uint64_t cache_bytes,
                                 const http_options& http)
    : http_options_(http), cache_(cache_bytes) {
  if (databases.empty()) throw usage_error("no database given (--db DIR or URL)");
  for (const auto& db : databases) {
    names_.push_back(db);
    if (is_url(db))
      add_url(db);
    else
      add_directory(db);
  }
}

slice_databases::~slice_databases() = default;

void slice_databases::add(std::unique_ptr<source> s) { slices_[s->slice].push_back(std::move(s)); }

void slice_databases::add_directory(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<std::pair<int, std::string>> files;
  if (fs::is_regular_file(path, ec)) {
    files.push_back({-1, path});
  } else if (fs::is_directory(path, ec)) {
    const run_directory_listing listing = scan_run_directory(path);
    if (!listing.meaningless_markers.empty())
      throw error(path + ": a test run with meaningless values (meaningless-" +
                  std::to_string(listing.meaningless_markers[0]) +
                  "), not a database of real values");
    for (const auto& [n, f] : listing.slices)
      if (!f.slice.empty()) files.push_back({n, f.slice});
    if (files.empty()) throw error(path + ": no slice-N.pentago files");
  } else {
    throw usage_error("database " + path + ": no such directory, file or http(s) URL");
  }
  for (const auto& [n, file] : files) {
    auto s = std::make_unique<source>();
    s->name = file;
    s->local = std::make_shared<const supertensor_reader>(file);
    s->slice = s->local->slice();
    if (s->slice < 0) throw error(file + ": slice file has no sections");
    if (n >= 0 && n != s->slice)
      throw error(file + ": holds slice " + std::to_string(s->slice) + ", not " +
                  std::to_string(n));
    add(std::move(s));
  }
}

void slice_databases::add_url(const std::string& url) {
  if (!http_) http_ = std::make_unique<http_client>(http_options_);
  std::string base = url;
  while (base.size() > 8 && base.back() == '/') base.pop_back();
  std::vector<std::unique_ptr<source>> found(36);
  auto probe = [&](int n) {
    const std::string index_url = base + "/" + slice_file_name(n) + ".index";
    const auto head = http_->get_range(index_url, 0, slice_index_header_size, true);
    if (!head) return;
    if (std::memcmp(head->bytes.data(), slice_index_magic, magic_size) ||
        load_le<uint32_t>(head->bytes.data() + 20) != uint32_t(n))
      throw error(index_url + ": not the pentago index of slice " + std::to_string(n));
    auto s = std::make_unique<source>();
    s->slice = n;
    s->name = base + "/" + slice_file_name(n);
    s->attempts = http_options_.attempts;
    s->index = std::make_unique<const slice_index_reader>(http_->open(index_url, head->total_size));
    const auto magic = http_->get_range(s->name, 0, magic_size);
    if (std::memcmp(magic->bytes.data(), sections_magic, magic_size))
      throw error(s->name + ": not a pentago slice file (bad magic)");
    s->remote = http_->open(s->name, magic->total_size);
    found[size_t(n)] = std::move(s);
  };
  probe(0);  // one request first: an unreachable host fails once, not 36 times
  parallel_for(6, 35, [&](uint64_t i) { probe(int(i) + 1); });
  int count = 0;
  for (auto& s : found)
    if (s) add(std::move(s)), count++;
  if (!count) throw error(url + ": no slice-N.pentago.index files (a remote database needs them)");
}

std::vector<int> slice_databases::slices() const {
  std::vector<int> result;
  for (const auto& [n, sources] : slices_) result.push_back(n);
  return result;
}

const slice_databases::source* slice_databases::locate(board_t board, int* section_index) const {
  const auto it = slices_.find(count_stones(board));
  if (it == slices_.end()) return nullptr;
  const section_t section = board_section(board).standardize();
  for (const auto& s : it->second) {
    const int i = s->section_index(section);
    if (i >= 0) {
      *section_index = i;
      return s.get();
    }
  }
  return nullptr;
}

bool slice_databases::covers(board_t board) const {
  int i;
  return locate(board, &i) != nullptr;
}

std::optional<superinfo_t> slice_databases::find(board_t board) const {
  int s;
  const source* src = locate(board, &s);
  if (!src) return std::nullopt;
  const board_location loc = locate_board(board);
  const section_t& section = src->section(s);
  PENTAGO_CHECK(section == loc.section, "section of board " + std::to_string(board));
  block_t block;
  for (int q = 0; q < 4; q++) block[q] = uint8_t(loc.index[q] / block_size);
  const auto shape = block_shape(section, block);
  int offset = 0;
  for (int q = 0; q < 4; q++) offset = offset * shape[q] + loc.index[q] % block_size;
  const auto data = cache_.get(block_key{src, s, block_index(section, block)},
                               [&] { return src->read_block(s, block); });
  return transform_pair(loc.symmetry, (*data)[size_t(offset)]);
}

void slice_databases::prefetch(const std::vector<board_t>& boards) const {
  struct job {
    const source* src;
    int section;
    block_t block;
  };
  std::set<std::tuple<const source*, int, uint64_t>> seen;
  std::vector<job> jobs;
  for (const board_t board : boards) {
    int s;
    const source* src = locate(board, &s);
    if (!src) continue;
    const board_location loc = locate_board(board);
    block_t block;
    for (int q = 0; q < 4; q++) block[q] = uint8_t(loc.index[q] / block_size);
    if (seen.insert({src, s, block_index(src->section(s), block)}).second)
      jobs.push_back({src, s, block});
  }
  if (jobs.size() < 2) return;
  parallel_for(8, jobs.size(), [&](uint64_t i) {
    const job& j = jobs[size_t(i)];
    cache_.get(block_key{j.src, j.section, block_index(j.src->section(j.section), j.block)},
               [&] { return j.src->read_block(j.section, j.block); });
  });
}

std::string slice_databases::describe() const {
  std::string s;
  for (const auto& n : names_) s += (s.empty() ? "" : ", ") + n;
  std::string list;
  for (const int n : slices()) list += (list.empty() ? "" : " ") + std::to_string(n);
  return s + " (slices " + (list.empty() ? "none" : list) + ")";
}

}  // namespace pentago
