// The slice database of check and the query path: local files, remote files found through
// their .index sidecars (each sidecar checked against its file, header and block records),
// block reads (re-fetching a remote block that arrives corrupt) and the shared block cache.
#include "pentago/db/lookup.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>
#include <tuple>
#include <unordered_map>

#include "pentago/db/run_directory.h"
#include "pentago/util/error.h"
#include "pentago/util/parallel_for.h"

namespace pentago {

namespace {

bool is_url(const std::string& s) {
  return s.rfind("http://", 0) == 0 || s.rfind("https://", 0) == 0;
}

std::string block_text(const block_t& b) {
  return "(" + std::to_string(b[0]) + "," + std::to_string(b[1]) + "," + std::to_string(b[2]) +
         "," + std::to_string(b[3]) + ")";
}

// The block of a location, and the node's offset inside the block (C order).
std::pair<block_t, int> block_and_offset(const section_t& section,
                                         const std::array<int, 4>& index) {
  block_t block;
  for (int q = 0; q < 4; q++) block[q] = uint8_t(index[q] / block_size);
  const auto shape = block_shape(section, block);
  int offset = 0;
  for (int q = 0; q < 4; q++) offset = offset * shape[q] + index[q] % block_size;
  return {block, offset};
}

}  // namespace

superinfo_t transform_pair(symmetry_t s, const superinfo_t& pair) {
  return {transform_super(s, pair.win), transform_super(s, pair.notlose)};
}

// One slice file: local, or remote with the sidecar that found it.
struct slice_database_t::source_t {
  std::string name;  // path or URL of the .pentago file
  int slice = -1;
  std::shared_ptr<const supertensor_reader_t> reader;
  // Remote files only: the sidecar, the first record of each section in it, and whether a
  // section's records were found equal to the file's own block index (checked on first use).
  std::shared_ptr<const input_file_t> sidecar;
  std::vector<uint64_t> first_record;
  std::unique_ptr<std::once_flag[]> checked;
  int attempts = 1;  // fetches of a remote block that arrives corrupt

  // Throws unless the sidecar's records of section s equal the file's block index.
  void check_sidecar(int s) const {
    const std::span<const blob_t> blobs = reader->block_index(s);
    const auto bytes =
        sidecar->read(slice_index_header_size + slice_index_entry_size * first_record[size_t(s)],
                      slice_index_entry_size * blobs.size(), "index records");
    const section_t& section = reader->sections()[size_t(s)];
    for (size_t k = 0; k < blobs.size(); k++) {
      const uint8_t* r = bytes.data() + slice_index_entry_size * k;
      const uint64_t offset = uint64_t(load_le<uint32_t>(r)) | uint64_t(load_le<uint32_t>(r + 4))
                                                                   << 32;
      const uint32_t size = load_le<uint32_t>(r + 8);
      if (offset != blobs[k].offset || size != blobs[k].compressed_size)
        throw pentago_error_t(sidecar->name() + " disagrees with its slice file: section " +
                              section.str() + " block " + block_text(block_from_index(section, k)) +
                              " is at offset " + std::to_string(offset) + " (" +
                              std::to_string(size) + " bytes) in the sidecar but at offset " +
                              std::to_string(blobs[k].offset) + " (" +
                              std::to_string(blobs[k].compressed_size) + " bytes) in " + name);
    }
  }

  block_cache_t::block_data_t read_block(int s, const block_t& b) const {
    if (!sidecar) return reader->read_block(s, b);
    std::call_once(checked[size_t(s)], [&] { check_sidecar(s); });
    for (int attempt = 1;; attempt++) {
      try {
        return reader->read_block(s, b);
      } catch (const fetch_error_t&) {
        throw;  // the network: already retried
      } catch (const pentago_error_t& e) {
        if (attempt >= attempts)
          throw pentago_error_t(std::string(e.what()) + " (the same after " +
                                std::to_string(attempts) + " fetches)");
      }
    }
  }
};

slice_database_t::slice_database_t(uint64_t cache_bytes, const http_options_t& http)
    : http_options_(http), cache_(std::make_unique<block_cache_t>(cache_bytes)) {}
slice_database_t::~slice_database_t() = default;

void slice_database_t::add_source(std::unique_ptr<source_t> s, bool shared_slice) {
  auto& list = slices_[s->slice];
  if (!shared_slice && !list.empty())
    throw pentago_error_t(s->name + ": slice " + std::to_string(s->slice) +
                          " is already open from " + list.front()->name);
  list.push_back(std::move(s));
}

int slice_database_t::add_directory(const std::string& dir) {
  const auto file_count = [&] {
    size_t count = 0;
    for (const auto& [n, list] : slices_) count += list.size();
    return count;
  };
  const size_t before = file_count();
  add_files(dir, false);
  names_.push_back(dir);
  return int(file_count() - before);
}

void slice_database_t::add_file(const std::string& path) {
  add_reader(std::make_shared<const supertensor_reader_t>(path));
}

void slice_database_t::add_reader(std::shared_ptr<const supertensor_reader_t> reader) {
  auto s = std::make_unique<source_t>();
  s->name = reader->name();
  s->slice = reader->slice();
  if (s->slice < 0) throw pentago_error_t(s->name + ": slice file has no sections");
  s->reader = std::move(reader);
  add_source(std::move(s), false);
}

// A directory (or, for the query path, one file) of slice files. Check notes a meaningless
// marker; the query path refuses it (its values are not real).
void slice_database_t::add_files(const std::string& path, bool query) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<std::pair<int, std::string>> files;
  if (query && fs::is_regular_file(path, ec)) {
    files.push_back({-1, path});
  } else if (!query || fs::is_directory(path, ec)) {
    const run_directory_listing_t listing = scan_run_directory(path);
    for (const int k : listing.meaningless_markers) {
      if (query)
        throw pentago_error_t(path + ": a test run with meaningless values (meaningless-" +
                              std::to_string(k) + "), not a database of real values");
      if (meaningless_ && meaningless_ != k)
        throw pentago_error_t(path + ": more than one meaningless slice marker");
      meaningless_ = k;
    }
    for (const auto& [n, f] : listing.slices)
      if (!f.slice.empty()) files.push_back({n, f.slice});
    if (query && files.empty()) throw pentago_error_t(path + ": no slice-N.pentago files");
  } else {
    throw usage_error_t("database " + path + ": no such directory, file or http(s) URL");
  }
  for (const auto& [n, file] : files) {
    auto s = std::make_unique<source_t>();
    s->name = file;
    s->reader = std::make_shared<const supertensor_reader_t>(file);
    s->slice = s->reader->slice();
    if (s->slice < 0) throw pentago_error_t(file + ": slice file has no sections");
    if (n >= 0 && n != s->slice)
      throw pentago_error_t(file + ": holds slice " + std::to_string(s->slice) + ", not " +
                            std::to_string(n));
    add_source(std::move(s), query);
  }
}

void slice_database_t::add_database(const std::string& database) {
  if (is_url(database))
    add_url(database);
  else
    add_files(database, true);
  names_.push_back(database);
}

void slice_database_t::add_url(const std::string& url) {
  if (!http_) http_ = std::make_unique<http_client_t>(http_options_);
  std::string base = url;
  while (base.size() > 8 && base.back() == '/') base.pop_back();
  std::vector<std::unique_ptr<source_t>> found(36);
  auto probe = [&](int n) {
    const std::string index_url = base + "/" + slice_file_name(n) + ".index";
    const auto head = http_->get_range(index_url, 0, slice_index_header_size, true);
    if (!head) return;
    if (std::memcmp(head->bytes.data(), slice_index_magic, magic_size) ||
        load_le<uint32_t>(head->bytes.data() + 20) != uint32_t(n))
      throw pentago_error_t(index_url + ": not the pentago index of slice " + std::to_string(n));
    auto s = std::make_unique<source_t>();
    s->slice = n;
    s->name = base + "/" + slice_file_name(n);
    s->attempts = http_options_.attempts;
    s->sidecar = http_->open(index_url, head->total_size);
    const auto magic = http_->get_range(s->name, 0, magic_size);
    if (std::memcmp(magic->bytes.data(), sections_magic, magic_size))
      throw pentago_error_t(s->name + ": not a pentago slice file (bad magic)");
    s->reader =
        std::make_shared<const supertensor_reader_t>(http_->open(s->name, magic->total_size));
    if (s->reader->slice() != n)
      throw pentago_error_t(s->name + ": holds slice " + std::to_string(s->reader->slice()) +
                            ", not " + std::to_string(n));
    // The sidecar's size says its layout: the 2013 one (every section of slice n) or the
    // partial one (the file's sections); either way its sections must be the file's, in order.
    const slice_index_reader_t index(s->sidecar, &s->reader->sections());
    if (s->reader->sections() != index.sections())
      throw pentago_error_t(index_url + " does not match " + s->name + ": the sidecar is for the " +
                            std::to_string(index.sections().size()) + " sections of slice " +
                            std::to_string(n) + ", the file holds " +
                            std::to_string(s->reader->sections().size()));
    uint64_t record = 0;
    for (const auto& section : index.sections()) {
      s->first_record.push_back(record);
      record += section_block_count(section);
    }
    s->checked = std::make_unique<std::once_flag[]>(index.sections().size());
    found[size_t(n)] = std::move(s);
  };
  probe(0);  // one request first: an unreachable host fails once, not 36 times
  parallel_for(6, 35, [&](uint64_t i) { probe(int(i) + 1); });
  int count = 0;
  for (auto& s : found)
    if (s) add_source(std::move(s), true), count++;
  if (!count)
    throw pentago_error_t(url + ": no slice-N.pentago.index files (a remote database needs them)");
}

std::vector<int> slice_database_t::slices() const {
  std::vector<int> result;
  for (const auto& [n, list] : slices_) result.push_back(n);
  return result;
}

const supertensor_reader_t& slice_database_t::reader(int n) const {
  const auto it = slices_.find(n);
  if (it == slices_.end()) throw pentago_error_t("slice " + std::to_string(n) + " is not saved");
  return *it->second.front()->reader;
}

const slice_database_t::source_t* slice_database_t::locate(board_t board,
                                                           int* section_index) const {
  const auto it = slices_.find(count_stones(board));
  if (it == slices_.end()) return nullptr;
  const section_t section = board_section(board).standardize();
  for (const auto& s : it->second) {
    const int i = s->reader->section_index(section);
    if (i >= 0) {
      *section_index = i;
      return s.get();
    }
  }
  return nullptr;
}

bool slice_database_t::covers(board_t board) const {
  int i;
  return locate(board, &i) != nullptr;
}

std::optional<superinfo_t> slice_database_t::find(board_t board) const {
  int s;
  const source_t* src = locate(board, &s);
  if (!src) return std::nullopt;
  const board_location_t loc = locate_board(board);
  const section_t& section = src->reader->sections()[size_t(s)];
  PENTAGO_CHECK(section == loc.section, "section of board " + std::to_string(board));
  const auto [block, offset] = block_and_offset(section, loc.index);
  const auto data = cache_->get(block_cache_key_t{src, s, block_index(section, block)},
                                [&] { return src->read_block(s, block); });
  return transform_pair(loc.symmetry, (*data)[size_t(offset)]);
}

superinfo_t slice_database_t::black_white(board_t board) const {
  const int n = count_stones(board);
  if (!has_slice(n))
    throw pentago_error_t("board " + std::to_string(board) + ": slice " + std::to_string(n) +
                          " is not saved");
  const auto v = find(board);
  if (!v)
    throw pentago_error_t("board " + std::to_string(board) + ": section " +
                          locate_board(board).section.name() + " is not in " + reader(n).name());
  return *v;
}

void slice_database_t::prefetch(const std::vector<board_t>& boards) const {
  struct job_t {
    const source_t* src;
    int section;
    block_t block;
  };
  std::set<std::tuple<const source_t*, int, uint64_t>> seen;
  std::vector<job_t> jobs;
  for (const board_t board : boards) {
    int s;
    const source_t* src = locate(board, &s);
    if (!src) continue;
    const section_t& section = src->reader->sections()[size_t(s)];
    const block_t block = block_and_offset(section, locate_board(board).index).first;
    if (seen.insert({src, s, block_index(section, block)}).second) jobs.push_back({src, s, block});
  }
  if (jobs.size() < 2) return;
  parallel_for(8, jobs.size(), [&](uint64_t i) {
    const job_t& j = jobs[size_t(i)];
    const section_t& section = j.src->reader->sections()[size_t(j.section)];
    cache_->get(block_cache_key_t{j.src, j.section, block_index(section, j.block)},
                [&] { return j.src->read_block(j.section, j.block); });
  });
}

std::string slice_database_t::describe() const {
  std::string s;
  for (const auto& n : names_) s += (s.empty() ? "" : ", ") + n;
  std::string list;
  for (const int n : slices()) list += (list.empty() ? "" : " ") + std::to_string(n);
  return s + " (slices " + (list.empty() ? "none" : list) + ")";
}

leaf_function_t cached_leaf(std::function<superinfo_t(board_t)> value, size_t max_entries) {
  struct memory_t {
    std::mutex mutex;
    std::unordered_map<board_t, superinfo_t> values;
  };
  auto m = std::make_shared<memory_t>();
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

}  // namespace pentago
