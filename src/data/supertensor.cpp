// The .pentago slice file: header packing and validation, block and index compression, the
// serial writer, the validating reader and the .pentago.index sidecar.
#include "pentago/data/supertensor.h"

#include <lzma.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>
#include <thread>

#include "pentago/data/compress.h"
#include "pentago/util/error.h"
#include "pentago/util/parallel_for.h"

namespace pentago {

std::string slice_file_name(int n) { return "slice-" + std::to_string(n) + ".pentago"; }

namespace {

std::string str_block(const block_t& b) {
  return std::to_string(b[0]) + "," + std::to_string(b[1]) + "," + std::to_string(b[2]) + "," +
         std::to_string(b[3]);
}

// Counts as text without assuming they are valid ("33333333"; digits above 9 as "(n)").
std::string str_counts(const section_t& s) {
  std::string r;
  for (auto& q : s.counts)
    for (int c : q) r += c <= 9 ? std::string(1, char('0' + c)) : "(" + std::to_string(c) + ")";
  return r;
}

std::span<uint8_t> as_bytes(std::span<superinfo_t> nodes) {
  return {reinterpret_cast<uint8_t*>(nodes.data()), 64 * nodes.size()};
}

// The largest xz stream a block of `size` bytes can legitimately need.
uint64_t compressed_bound(uint64_t size) { return lzma_stream_buffer_bound(size); }

// Visits the blocks of a section with the given block counts and shape in C order, passing
// the block and its node count.
template <class F>
void for_each_block(const std::array<uint16_t, 4>& shape, const std::array<uint16_t, 4>& blocks,
                    F&& f) {
  auto extent = [&](int i, int b) {
    return std::min<int>(shape[i], block_size * (b + 1)) - block_size * b;
  };
  block_t b;
  for (int b0 = 0; b0 < blocks[0]; b0++)
    for (int b1 = 0; b1 < blocks[1]; b1++)
      for (int b2 = 0; b2 < blocks[2]; b2++)
        for (int b3 = 0; b3 < blocks[3]; b3++) {
          b = {uint8_t(b0), uint8_t(b1), uint8_t(b2), uint8_t(b3)};
          f(b, uint64_t(extent(0, b0)) * extent(1, b1) * extent(2, b2) * extent(3, b3));
        }
}

}  // namespace

superinfo_t store_to_disk(const superinfo_t& store, int turn) {
  return turn ? superinfo_t{~store.notlose, store.win} : superinfo_t{store.win, ~store.notlose};
}

superinfo_t disk_to_store(const superinfo_t& disk, int turn) {
  return turn ? superinfo_t{disk.notlose, ~disk.win} : superinfo_t{disk.win, ~disk.notlose};
}

// ---- Headers ---------------------------------------------------------------------------------

supertensor_header_t::supertensor_header_t(const section_t& s, const blob_t& index_blob)
    : stones(uint32_t(s.sum())), section(s), index(index_blob) {
  const auto sh = s.shape();
  const auto bl = section_blocks(s);
  for (int i = 0; i < 4; i++) shape[i] = uint16_t(sh[i]), blocks[i] = uint16_t(bl[i]);
}

uint64_t supertensor_header_t::block_count() const {
  return uint64_t(blocks[0]) * blocks[1] * blocks[2] * blocks[3];
}

void supertensor_header_t::pack(std::span<uint8_t, supertensor_header_size> out) const {
  uint8_t* p = out.data();
  std::memcpy(p, supertensor_magic, magic_size);
  store_le<uint32_t>(p + 20, version);
  p[24] = valid ? 1 : 0;
  store_le<uint32_t>(p + 25, stones);
  for (int i = 0; i < 8; i++) p[29 + i] = section.counts[i / 2][i % 2];
  for (int i = 0; i < 4; i++) store_le<uint16_t>(p + 37 + 2 * i, shape[i]);
  store_le<uint32_t>(p + 45, block_size);
  for (int i = 0; i < 4; i++) store_le<uint16_t>(p + 49 + 2 * i, blocks[i]);
  store_le<uint32_t>(p + 57, filter);
  store_le<uint64_t>(p + 61, index.uncompressed_size);
  store_le<uint64_t>(p + 69, index.compressed_size);
  store_le<uint64_t>(p + 77, index.offset);
}

supertensor_header_t supertensor_header_t::unpack(
    std::span<const uint8_t, supertensor_header_size> in) {
  const uint8_t* p = in.data();
  supertensor_header_t h;
  h.version = load_le<uint32_t>(p + 20);
  h.valid = p[24] == 1;
  h.stones = load_le<uint32_t>(p + 25);
  for (int i = 0; i < 8; i++) h.section.counts[i / 2][i % 2] = p[29 + i];
  for (int i = 0; i < 4; i++) h.shape[i] = load_le<uint16_t>(p + 37 + 2 * i);
  h.block_size = load_le<uint32_t>(p + 45);
  for (int i = 0; i < 4; i++) h.blocks[i] = load_le<uint16_t>(p + 49 + 2 * i);
  h.filter = load_le<uint32_t>(p + 57);
  h.index.uncompressed_size = load_le<uint64_t>(p + 61);
  h.index.compressed_size = load_le<uint64_t>(p + 69);
  h.index.offset = load_le<uint64_t>(p + 77);
  return h;
}

void supertensor_header_t::validate(const std::string& what) const {
  auto fail = [&](const std::string& why) { throw pentago_error_t(what + ": " + why); };
  if (version != 2 && version != 3)
    fail("unsupported supertensor version " + std::to_string(version) + " (expected 2 or 3)");
  if (!valid) fail("section header not marked valid (unfinished write?)");
  uint32_t sum = 0;
  for (int q = 0; q < 4; q++) {
    if (section.quadrant_sum(q) > 9)
      fail("section " + str_counts(section) + " has more than 9 stones in quadrant " +
           std::to_string(q));
    sum += uint32_t(section.quadrant_sum(q));
  }
  if (stones != sum)
    fail("stones " + std::to_string(stones) + " does not match section " + section.str());
  if (block_size != uint32_t(::pentago::block_size))
    fail("block size " + std::to_string(block_size) + " is not supported (only " +
         std::to_string(::pentago::block_size) + ")");
  const supertensor_header_t expected(section);
  if (shape != expected.shape) fail("shape does not match section " + section.str());
  if (blocks != expected.blocks) fail("block counts do not match section " + section.str());
  if (filter > 1) fail("unknown filter " + std::to_string(filter));
  if (index.uncompressed_size != blob_size * block_count())
    fail("block index size " + std::to_string(index.uncompressed_size) + " is not " +
         std::to_string(blob_size) + " x " + std::to_string(block_count()) + " blocks");
}

// ---- Writer pieces ---------------------------------------------------------------------------

std::vector<uint8_t> slice_file_headers(std::span<const section_t> sections,
                                        std::span<const blob_t> index_blobs) {
  PENTAGO_CHECK(sections.size() == index_blobs.size(), "one index blob per section");
  PENTAGO_CHECK(sections.size() <= UINT32_MAX, "too many sections");
  std::vector<uint8_t> out(slice_headers_size(sections.size()));
  std::memcpy(out.data(), sections_magic, magic_size);
  store_le<uint32_t>(out.data() + 20, supertensor_version);
  store_le<uint32_t>(out.data() + 24, uint32_t(sections.size()));
  store_le<uint32_t>(out.data() + 28, uint32_t(supertensor_header_size));
  for (size_t s = 0; s < sections.size(); s++)
    supertensor_header_t(sections[s], index_blobs[s])
        .pack(std::span<uint8_t, supertensor_header_size>(
            out.data() + sections_header_size + supertensor_header_size * s,
            supertensor_header_size));
  return out;
}

void compress_disk_block(std::span<const superinfo_t> nodes, std::vector<uint8_t>& out, int preset,
                         xz_workspaces_t* workspaces) {
  std::vector<superinfo_t> filtered(nodes.size());
  interleave(nodes, filtered);
  compress_block_lzma(as_bytes(filtered), out, preset, workspaces);
}

std::vector<uint8_t> compress_disk_block(std::span<const superinfo_t> nodes, int preset) {
  std::vector<uint8_t> out;
  compress_disk_block(nodes, out, preset);
  return out;
}

void uncompress_disk_block(std::span<const uint8_t> compressed, std::span<superinfo_t> nodes,
                           const std::string& what, uint32_t filter) {
  uncompress_block(compressed, as_bytes(nodes), what);
  if (filter == 1)
    uninterleave(nodes);
  else if (filter != 0)
    throw pentago_error_t(what + ": unknown filter " + std::to_string(filter));
}

std::vector<uint8_t> compress_block_index(std::span<const blob_t> blobs, int preset) {
  std::vector<uint8_t> raw(blob_size * blobs.size());
  for (size_t i = 0; i < blobs.size(); i++) {
    store_le<uint64_t>(raw.data() + blob_size * i, blobs[i].uncompressed_size);
    store_le<uint64_t>(raw.data() + blob_size * i + 8, blobs[i].compressed_size);
    store_le<uint64_t>(raw.data() + blob_size * i + 16, blobs[i].offset);
  }
  return compress_block_lzma(raw, preset);
}

std::vector<blob_t> uncompress_block_index(std::span<const uint8_t> compressed, uint64_t blocks,
                                           const std::string& what) {
  const auto raw = uncompress_block(compressed, blob_size * blocks, what);
  std::vector<blob_t> blobs(blocks);
  for (uint64_t i = 0; i < blocks; i++) {
    blobs[i].uncompressed_size = load_le<uint64_t>(raw.data() + blob_size * i);
    blobs[i].compressed_size = load_le<uint64_t>(raw.data() + blob_size * i + 8);
    blobs[i].offset = load_le<uint64_t>(raw.data() + blob_size * i + 16);
  }
  return blobs;
}

// ---- Serial writer -----------------------------------------------------------------------------

void write_slice_file(const std::string& path, std::span<const section_t> sections,
                      const block_filler_t& fill, int preset, int threads) {
  for (size_t s = 0; s < sections.size(); s++) {
    const auto& section = sections[s];
    for (int q = 0; q < 4; q++)
      if (section.quadrant_sum(q) > 9)
        throw pentago_error_t(path + ": cannot write invalid section " + str_counts(section));
    if (s && !(sections[s - 1].sig() < section.sig()))
      throw pentago_error_t(path + ": sections must be distinct and in ascending sig order");
    if (s && section.sum() != sections[0].sum())
      throw pentago_error_t(path + ": sections of different slices in one file");
  }
  if (threads <= 0) threads = int(std::max(1u, std::thread::hardware_concurrency()));

  output_file_t out(path);
  uint64_t offset = slice_headers_size(sections.size());
  std::vector<blob_t> index_blobs(sections.size());
  std::vector<std::vector<blob_t>> block_blobs(sections.size());

  // Blocks are filled serially in batches, compressed in parallel, written in order.
  struct job_t {
    int section;
    block_t block;
    std::vector<superinfo_t> nodes;
    std::vector<uint8_t> compressed;
  };
  std::vector<job_t> batch;
  const size_t batch_limit = 4 * size_t(threads);
  worker_pool_t pool(threads - 1);  // one pool for all batches; the caller compresses too
  xz_workspaces_t workspaces;
  auto flush = [&] {
    parallel_for(pool, batch.size(), [&](uint64_t j) {
      compress_disk_block(batch[j].nodes, batch[j].compressed, preset, &workspaces);
    });
    for (auto& job : batch) {
      out.write_at(offset, job.compressed);
      const uint64_t raw = 64 * job.nodes.size();
      block_blobs[job.section][block_index(sections[job.section], job.block)] = {
          raw, job.compressed.size(), offset};
      offset += job.compressed.size();
    }
    batch.clear();
  };

  for (size_t s = 0; s < sections.size(); s++) {
    const auto& section = sections[s];
    block_blobs[s].resize(section_block_count(section));
    for (uint64_t k = 0; k < block_blobs[s].size(); k++) {
      job_t job{int(s), block_from_index(section, k), {}, {}};
      job.nodes.resize(size_t(block_nodes(section, job.block)));
      fill(int(s), section, job.block, job.nodes);
      batch.push_back(std::move(job));
      if (batch.size() >= batch_limit) flush();
    }
  }
  if (!batch.empty()) flush();

  for (size_t s = 0; s < sections.size(); s++) {
    const auto index = compress_block_index(block_blobs[s], preset);
    out.write_at(offset, index);
    index_blobs[s] = {blob_size * block_blobs[s].size(), index.size(), offset};
    offset += index.size();
  }
  // Headers last: a file cut short by a crash then fails the magic check.
  out.write_at(0, slice_file_headers(sections, index_blobs));
  out.close();
}

// ---- Reader -------------------------------------------------------------------------------------

supertensor_reader_t::supertensor_reader_t(const std::string& path)
    : supertensor_reader_t(std::make_shared<const input_file_t>(path)) {}

supertensor_reader_t::~supertensor_reader_t() = default;

supertensor_reader_t::supertensor_reader_t(std::shared_ptr<const input_file_t> file)
    : file_(std::move(file)) {
  const input_file_t& f = *file_;
  const std::string& name = f.name();
  if (f.size() < magic_size)
    throw pentago_error_t(name + ": too small to be a pentago file (" + std::to_string(f.size()) +
                          " bytes)");
  uint8_t magic[magic_size];
  f.read(0, magic, "magic");

  std::vector<uint8_t> raw;  // the section headers, back to back
  uint64_t count = 0;
  if (!std::memcmp(magic, sections_magic, magic_size)) {
    uint8_t head[sections_header_size];
    f.read(0, head, "file header");
    const uint32_t version = load_le<uint32_t>(head + 20);
    if (version != supertensor_version)
      throw pentago_error_t(name + ": unsupported sections file version " +
                            std::to_string(version) + " (expected 3)");
    count = load_le<uint32_t>(head + 24);
    const uint32_t header_size = load_le<uint32_t>(head + 28);
    if (header_size != supertensor_header_size)
      throw pentago_error_t(name + ": section header size " + std::to_string(header_size) +
                            " (expected 85)");
    if (count > (f.size() - sections_header_size) / supertensor_header_size)
      throw pentago_error_t(name + ": " + std::to_string(count) +
                            " section headers do not fit in the " + std::to_string(f.size()) +
                            "-byte file");
    data_start_ = slice_headers_size(count);
    raw = f.read(sections_header_size, supertensor_header_size * count, "section headers");
  } else if (!std::memcmp(magic, supertensor_magic, magic_size)) {
    count = 1;  // a single-section file: the header is at offset 0
    data_start_ = supertensor_header_size;
    raw = f.read(0, supertensor_header_size, "section header");
  } else {
    throw pentago_error_t(name + ": not a pentago file (bad magic)");
  }

  headers_.reserve(count);
  sections_.reserve(count);
  for (uint64_t s = 0; s < count; s++) {
    const std::string what = name + ": section header " + std::to_string(s);
    const uint8_t* p = raw.data() + supertensor_header_size * s;
    if (std::memcmp(p, supertensor_magic, magic_size))
      throw pentago_error_t(what + ": bad magic (expected \"pentago supertensor\")");
    const auto h = supertensor_header_t::unpack(
        std::span<const uint8_t, supertensor_header_size>(p, supertensor_header_size));
    h.validate(what);
    const blob_t& index = h.index;
    if (index.compressed_size == 0 ||
        index.compressed_size > compressed_bound(index.uncompressed_size))
      throw pentago_error_t(what + ": bad block index compressed size " +
                            std::to_string(index.compressed_size));
    if (index.offset < data_start_)
      throw pentago_error_t(what + ": block index offset " + std::to_string(index.offset) +
                            " lies inside the headers");
    f.check_range(index.offset, index.compressed_size, "block index");
    if (s) {
      if (h.stones != headers_[0].stones)
        throw pentago_error_t(what + ": section " + h.section.str() + " is not in slice " +
                              std::to_string(headers_[0].stones));
      if (!(sections_.back().sig() < h.section.sig()))
        throw pentago_error_t(what + ": sections are not in ascending order (" +
                              sections_.back().str() + " then " + h.section.str() + ")");
    }
    headers_.push_back(h);
    sections_.push_back(h.section);
  }
  slice_ = count ? int(headers_[0].stones) : -1;
  indexes_.resize(count);
}

int supertensor_reader_t::section_index(const section_t& s) const {
  const auto it =
      std::lower_bound(sections_.begin(), sections_.end(), s,
                       [](const section_t& a, const section_t& b) { return a.sig() < b.sig(); });
  return it != sections_.end() && *it == s ? int(it - sections_.begin()) : -1;
}

void supertensor_reader_t::check_section(int index) const {
  if (index < 0 || size_t(index) >= sections_.size())
    throw pentago_error_t(name() + ": section index " + std::to_string(index) + " out of range (" +
                          std::to_string(sections_.size()) + " sections)");
}

std::string supertensor_reader_t::block_name(int index, const block_t& block) const {
  return name() + ": section " + sections_[index].str() + " block " + str_block(block);
}

std::span<const blob_t> supertensor_reader_t::block_index(int index) const {
  check_section(index);
  std::lock_guard<std::mutex> lock(index_mutex_);
  if (!indexes_[index]) {
    const auto& h = headers_[index];
    const std::string what = name() + ": section " + h.section.str() + " block index";
    const auto compressed = file_->read(h.index.offset, h.index.compressed_size, "block index");
    auto blobs = uncompress_block_index(compressed, h.block_count(), what);
    uint64_t k = 0;
    for_each_block(h.shape, h.blocks, [&](const block_t& block, uint64_t nodes) {
      const blob_t& b = blobs[k++];
      const std::string where = what + ": block " + str_block(block);
      if (b.uncompressed_size != 64 * nodes)
        throw pentago_error_t(where + ": uncompressed size " + std::to_string(b.uncompressed_size) +
                              " is not 64 x " + std::to_string(nodes) + " nodes");
      if (b.compressed_size == 0 || b.compressed_size > compressed_bound(b.uncompressed_size))
        throw pentago_error_t(where + ": bad compressed size " + std::to_string(b.compressed_size));
      if (b.offset < data_start_)
        throw pentago_error_t(where + ": offset " + std::to_string(b.offset) +
                              " lies inside the headers");
      if (b.offset > file_->size() || b.compressed_size > file_->size() - b.offset)
        throw pentago_error_t(where + ": data at offset " + std::to_string(b.offset) + " of size " +
                              std::to_string(b.compressed_size) +
                              " extends past the end of the file (size " +
                              std::to_string(file_->size()) + ")");
    });
    indexes_[index] = std::make_unique<const std::vector<blob_t>>(std::move(blobs));
  }
  return *indexes_[index];
}

void supertensor_reader_t::load_indexes() const {
  for (int s = 0; s < int(sections_.size()); s++) block_index(s);
}

blob_t supertensor_reader_t::block_blob(int index, const block_t& block) const {
  check_section(index);
  const auto& h = headers_[index];
  for (int i = 0; i < 4; i++)
    if (block[i] >= h.blocks[i])
      throw pentago_error_t(block_name(index, block) + ": block out of range");
  return block_index(index)[pentago::block_index(h.section, block)];
}

std::vector<uint8_t> supertensor_reader_t::read_compressed_block(int index,
                                                                 const block_t& block) const {
  const blob_t b = block_blob(index, block);
  return file_->read(b.offset, b.compressed_size, "block");
}

void supertensor_reader_t::read_block(int index, const block_t& block,
                                      std::span<superinfo_t> nodes) const {
  const blob_t b = block_blob(index, block);
  if (64 * nodes.size() != b.uncompressed_size)
    throw pentago_error_t(block_name(index, block) + ": output holds " +
                          std::to_string(nodes.size()) + " nodes, the block has " +
                          std::to_string(b.uncompressed_size / 64));
  const auto compressed = file_->read(b.offset, b.compressed_size, "block");
  uncompress_disk_block(compressed, nodes, block_name(index, block), headers_[index].filter);
}

std::vector<superinfo_t> supertensor_reader_t::read_block(int index, const block_t& block) const {
  const blob_t b = block_blob(index, block);
  std::vector<superinfo_t> nodes(b.uncompressed_size / 64);
  read_block(index, block, nodes);
  return nodes;
}

// ---- .pentago.index sidecar ---------------------------------------------------------------------

std::vector<uint8_t> slice_index_bytes(const supertensor_reader_t& reader) {
  if (reader.slice() < 0) throw pentago_error_t(reader.name() + ": no sections to index");
  // A complete slice gets the 2013 layout (every section, in slice_sections order); a partial
  // one gets records for its own sections in file order. The sidecar's size tells a reader
  // which, so a file whose blocks add up to the complete slice's must be that layout.
  const auto& all = slice_sections(reader.slice());
  uint64_t file_blocks = 0, slice_blocks = 0;
  for (const auto& s : reader.sections()) file_blocks += section_block_count(s);
  for (const auto& s : all) slice_blocks += section_block_count(s);
  if (file_blocks == slice_blocks && reader.sections() != all)
    throw pentago_error_t(
        reader.name() + ": the sections of slice " + std::to_string(reader.slice()) +
        " are not in slice order (a complete slice's index lists them in that order)");
  std::vector<uint8_t> out(slice_index_header_size);
  std::memcpy(out.data(), slice_index_magic, magic_size);
  store_le<uint32_t>(out.data() + 20, uint32_t(reader.slice()));
  for (int s = 0; s < int(reader.sections().size()); s++) {
    if (reader.headers()[s].filter != 1)
      throw pentago_error_t(reader.name() + ": section " + reader.sections()[s].str() +
                            " is not interleaved (the index format assumes filter 1)");
    for (const blob_t& b : reader.block_index(s)) {
      if (b.compressed_size > UINT32_MAX)
        throw pentago_error_t(reader.name() + ": block too large for the index format");
      uint8_t record[slice_index_entry_size];
      store_le<uint32_t>(record, uint32_t(b.offset));
      store_le<uint32_t>(record + 4, uint32_t(b.offset >> 32));
      store_le<uint32_t>(record + 8, uint32_t(b.compressed_size));
      out.insert(out.end(), record, record + slice_index_entry_size);
    }
  }
  return out;
}

void write_slice_index(const supertensor_reader_t& reader, const std::string& path) {
  write_file(path, slice_index_bytes(reader));
}

slice_index_reader_t::slice_index_reader_t(const std::string& path)
    : slice_index_reader_t(std::make_shared<const input_file_t>(path)) {}

slice_index_reader_t::slice_index_reader_t(std::shared_ptr<const input_file_t> file,
                                           const std::vector<section_t>* file_sections)
    : file_(std::move(file)) {
  const std::string& name = file_->name();
  if (file_->size() < slice_index_header_size)
    throw pentago_error_t(name + ": too small to be a pentago index (" +
                          std::to_string(file_->size()) + " bytes)");
  uint8_t head[slice_index_header_size];
  file_->read(0, head, "index header");
  if (std::memcmp(head, slice_index_magic, magic_size))
    throw pentago_error_t(name + ": not a pentago index (bad magic)");
  const uint32_t slice = load_le<uint32_t>(head + 20);
  if (slice > 36) throw pentago_error_t(name + ": bad slice " + std::to_string(slice));
  slice_ = int(slice);
  // Records over a list of sections: their first records, then the total; the size they need.
  auto layout = [](const std::vector<section_t>& sections, std::vector<uint64_t>& first) {
    first.clear();
    first.reserve(sections.size() + 1);
    uint64_t total = 0;
    for (const auto& s : sections) {
      first.push_back(total);
      total += section_block_count(s);
    }
    first.push_back(total);
    return slice_index_header_size + slice_index_entry_size * total;
  };
  sections_ = slice_sections(slice_);
  const uint64_t complete = layout(sections_, first_block_);
  if (file_->size() == complete) return;
  std::string partial_text;
  if (file_sections) {
    std::vector<uint64_t> first;
    const uint64_t partial = layout(*file_sections, first);
    if (file_->size() == partial) {
      sections_ = *file_sections;
      first_block_ = std::move(first);
      partial_ = true;
      return;
    }
    partial_text = " nor the " + std::to_string(file_sections->size()) +
                   " sections of its slice file (" + std::to_string(partial) + " bytes)";
  }
  throw pentago_error_t(name + ": size " + std::to_string(file_->size()) +
                        " matches neither slice " + std::to_string(slice_) + " (" +
                        std::to_string(complete) + " bytes)" + partial_text);
}

int slice_index_reader_t::section_index(const section_t& s) const {
  const auto it =
      std::lower_bound(sections_.begin(), sections_.end(), s,
                       [](const section_t& a, const section_t& b) { return a.sig() < b.sig(); });
  return it != sections_.end() && *it == s ? int(it - sections_.begin()) : -1;
}

slice_index_entry_t slice_index_reader_t::entry(uint64_t record) const {
  if (record >= total_blocks())
    throw pentago_error_t(name() + ": record " + std::to_string(record) + " out of range");
  uint8_t bytes[slice_index_entry_size];
  file_->read(slice_index_header_size + slice_index_entry_size * record, bytes, "index record");
  return {uint64_t(load_le<uint32_t>(bytes)) | uint64_t(load_le<uint32_t>(bytes + 4)) << 32,
          load_le<uint32_t>(bytes + 8)};
}

slice_index_entry_t slice_index_reader_t::entry(int section_index, const block_t& block) const {
  if (section_index < 0 || size_t(section_index) >= sections_.size())
    throw pentago_error_t(name() + ": section index " + std::to_string(section_index) +
                          " out of range");
  const auto& section = sections_[section_index];
  const auto blocks = section_blocks(section);
  for (int i = 0; i < 4; i++)
    if (block[i] >= blocks[i])
      throw pentago_error_t(name() + ": section " + section.str() + " block " + str_block(block) +
                            " out of range");
  return entry(first_block_[section_index] + block_index(section, block));
}

std::vector<superinfo_t> slice_index_reader_t::read_block(const input_file_t& pentago,
                                                          int section_index,
                                                          const block_t& block) const {
  const slice_index_entry_t e = entry(section_index, block);
  const auto& section = sections_[section_index];
  const std::string what = pentago.name() + ": section " + section.str() + " block " +
                           str_block(block) + " (via " + name() + ")";
  std::vector<superinfo_t> nodes(size_t(block_nodes(section, block)));
  if (e.compressed_size == 0 || e.compressed_size > compressed_bound(64 * nodes.size()))
    throw pentago_error_t(what + ": bad compressed size " + std::to_string(e.compressed_size));
  if (e.offset > pentago.size() || e.compressed_size > pentago.size() - e.offset)
    throw pentago_error_t(what + ": data at offset " + std::to_string(e.offset) +
                          " extends past the end of the file");
  const auto compressed = pentago.read(e.offset, e.compressed_size, "block");
  uncompress_disk_block(compressed, nodes, what, 1);
  return nodes;
}

}  // namespace pentago
