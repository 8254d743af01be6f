// The .pentago slice file (docs/formats.md, "Files", a bit-exact contract): section headers, xz
// blocks of interleaved (black wins, white wins) pairs, per-section block indexes, a
// validating reader, a serial writer built from pieces the MPI writer reuses, and the
// .pentago.index sidecar.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "pentago/base/super.h"
#include "pentago/data/file.h"
#include "pentago/layout/blocks.h"
#include "pentago/layout/section.h"

namespace pentago {

class xz_workspaces_t;  // compress.h

// ---- Format constants ---------------------------------------------------------------------
constexpr char supertensor_magic[] = "pentago supertensor\n";  // 20 bytes, no terminator
constexpr char sections_magic[] = "pentago sections   \n";
constexpr char slice_index_magic[] = "pentago index      \n";
constexpr uint64_t magic_size = 20;
constexpr uint32_t supertensor_version = 3;
constexpr uint64_t supertensor_header_size = 85;  // one section header
constexpr uint64_t sections_header_size = 32;     // magic, version, count, header size
constexpr uint64_t blob_size = 24;                // one block index entry
constexpr uint64_t slice_index_header_size = 24;  // magic, slice
constexpr uint64_t slice_index_entry_size = 12;
constexpr int default_xz_preset = 6;  // the production level 26 = xz preset 6

// The file name of slice n in a run directory or database: "slice-<n>.pentago".
std::string slice_file_name(int n);

// Bytes before the data of a multi-section file with `sections` headers.
constexpr uint64_t slice_headers_size(uint64_t sections) {
  return sections_header_size + supertensor_header_size * sections;
}

// Value conventions (docs/formats.md, "Supers"): store (we win, we win or tie) for the player to
// move versus disk (black wins, white wins). turn = slice & 1 (0 = black to move).
superinfo_t store_to_disk(const superinfo_t& store, int turn);
superinfo_t disk_to_store(const superinfo_t& disk, int turn);

// Where a compressed item lies: sizes and absolute file offset (24 bytes, little endian).
struct blob_t {
  uint64_t uncompressed_size = 0, compressed_size = 0, offset = 0;
  bool operator==(const blob_t&) const = default;
};

// One 85-byte section header.
struct supertensor_header_t {
  uint32_t version = supertensor_version;
  bool valid = true;
  uint32_t stones = 0;
  section_t section;
  std::array<uint16_t, 4> shape{};
  uint32_t block_size = ::pentago::block_size;
  std::array<uint16_t, 4> blocks{};
  uint32_t filter = 1;  // 0 none, 1 interleave
  blob_t index;

  supertensor_header_t() = default;
  // The header this solver writes for `s` (version 3, valid, block size 8, filter 1).
  explicit supertensor_header_t(const section_t& s, const blob_t& index = {});

  void pack(std::span<uint8_t, supertensor_header_size> out) const;
  // Decodes the fields without validating them.
  static supertensor_header_t unpack(std::span<const uint8_t, supertensor_header_size> in);
  // Throws pentago::error prefixed by `what` unless every field is consistent: version 2
  // or 3, valid, counts <= 9 per quadrant, stones = their sum, shape = section shape,
  // block size 8, blocks = ceil(shape / 8), filter 0 or 1, index size = 24 * blocks.
  void validate(const std::string& what) const;
  uint64_t block_count() const;  // product of blocks
};

// ---- Writer pieces (shared with the MPI writer) ---------------------------------------------
// (a) The file header and all section headers (32 + 85 * sections bytes).
std::vector<uint8_t> slice_file_headers(std::span<const section_t> sections,
                                        std::span<const blob_t> index_blobs);
// (b) One block: disk-format nodes in C order -> interleaved little-endian bytes -> xz.
// With `workspaces`, xz's memory comes from one of them.
void compress_disk_block(std::span<const superinfo_t> nodes, std::vector<uint8_t>& out,
                         int preset = default_xz_preset, xz_workspaces_t* workspaces = nullptr);
std::vector<uint8_t> compress_disk_block(std::span<const superinfo_t> nodes,
                                         int preset = default_xz_preset);
// Inverse of (b): exactly nodes.size() nodes; filter 0 skips the un-interleave.
void uncompress_disk_block(std::span<const uint8_t> compressed, std::span<superinfo_t> nodes,
                           const std::string& what, uint32_t filter = 1);
// (c) A section's block index (C-order blobs) as one xz stream, and its inverse. The inverse
// checks the decoded size (24 * blocks) but not the blob contents.
std::vector<uint8_t> compress_block_index(std::span<const blob_t> blobs,
                                          int preset = default_xz_preset);
std::vector<blob_t> uncompress_block_index(std::span<const uint8_t> compressed, uint64_t blocks,
                                           const std::string& what);

// Fills `nodes` (block_nodes(section, block) of them) with disk-format values in C order.
using block_filler_t = std::function<void(int section_index, const section_t& section,
                                          const block_t& block, std::span<superinfo_t> nodes)>;
// Writes a whole slice file from one process: headers, then every block of every section
// (sections in the given order, which must be ascending sig; blocks in C order), then the
// indexes. Blocks are compressed on `threads` threads (0 = hardware concurrency) but
// `fill` is always called from the calling thread.
void write_slice_file(const std::string& path, std::span<const section_t> sections,
                      const block_filler_t& fill, int preset = default_xz_preset, int threads = 1);

// ---- Reader -----------------------------------------------------------------------------------
// Opens a multi-section file (or a single-section "pentago supertensor" file) and validates
// every header at construction. Block indexes are loaded and validated on first use (every
// blob's uncompressed size = 64 * block nodes, its bytes inside the file and after the
// headers). All methods are thread safe.
class supertensor_reader_t {
 public:
  explicit supertensor_reader_t(const std::string& path);
  explicit supertensor_reader_t(std::shared_ptr<const input_file_t> file);
  ~supertensor_reader_t();

  const input_file_t& file() const { return *file_; }
  const std::string& name() const { return file_->name(); }
  int slice() const { return slice_; }  // -1 for a file with no sections
  const std::vector<section_t>& sections() const { return sections_; }
  const std::vector<supertensor_header_t>& headers() const { return headers_; }
  int section_index(const section_t& s) const;         // -1 if absent
  uint64_t data_start() const { return data_start_; }  // end of the headers

  // The validated block index of section `index`, C order over its blocks.
  std::span<const blob_t> block_index(int index) const;
  // Loads every index (reads no block data).
  void load_indexes() const;
  blob_t block_blob(int index, const block_t& block) const;
  std::vector<uint8_t> read_compressed_block(int index, const block_t& block) const;
  // Decodes a block into disk-format nodes (nodes.size() must equal its node count).
  void read_block(int index, const block_t& block, std::span<superinfo_t> nodes) const;
  std::vector<superinfo_t> read_block(int index, const block_t& block) const;

 private:
  std::shared_ptr<const input_file_t> file_;
  int slice_ = -1;
  uint64_t data_start_ = 0;
  std::vector<section_t> sections_;
  std::vector<supertensor_header_t> headers_;
  mutable std::mutex index_mutex_;
  mutable std::vector<std::unique_ptr<const std::vector<blob_t>>> indexes_;

  void check_section(int index) const;
  std::string block_name(int index, const block_t& block) const;
};

// ---- .pentago.index sidecar --------------------------------------------------------------------
// One record per block: u32 offset low, u32 offset high, u32 compressed size.
struct slice_index_entry_t {
  uint64_t offset = 0;
  uint32_t compressed_size = 0;
  bool operator==(const slice_index_entry_t&) const = default;
};

// The sidecar image of a slice file (filter 1): for a complete slice the 2013 layout, records
// of every section of slice_sections(slice) in that order; for a partial slice (a run from
// another root) this project's partial layout, records of the file's sections in file order.
// Both: the 24-byte header, then 12 bytes per block in row-major order within a section.
std::vector<uint8_t> slice_index_bytes(const supertensor_reader_t& reader);
void write_slice_index(const supertensor_reader_t& reader, const std::string& path);

// Reads a sidecar: validates the magic, the slice and the exact size: 24 + 12 * blocks of the
// complete slice (the 2013 layout), or, given the sections of its slice file, 24 + 12 * blocks
// of those (the partial layout, records in that order); gives O(1) access to any block's record.
class slice_index_reader_t {
 public:
  explicit slice_index_reader_t(const std::string& path);
  explicit slice_index_reader_t(std::shared_ptr<const input_file_t> file,
                                const std::vector<section_t>* file_sections = nullptr);

  const std::string& name() const { return file_->name(); }
  int slice() const { return slice_; }
  // slice_sections(slice), or the file's sections for a partial sidecar.
  const std::vector<section_t>& sections() const { return sections_; }
  bool partial() const { return partial_; }
  uint64_t total_blocks() const { return first_block_.back(); }
  int section_index(const section_t& s) const;  // -1 if absent
  slice_index_entry_t entry(int section_index, const block_t& block) const;
  slice_index_entry_t entry(uint64_t record) const;
  // Reads and decodes a block of `pentago` (the matching slice file) through this index.
  std::vector<superinfo_t> read_block(const input_file_t& pentago, int section_index,
                                      const block_t& block) const;

 private:
  std::shared_ptr<const input_file_t> file_;
  int slice_ = 0;
  bool partial_ = false;
  std::vector<section_t> sections_;
  std::vector<uint64_t> first_block_;  // per section, then the total
};

}  // namespace pentago
