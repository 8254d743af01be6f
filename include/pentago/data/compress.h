// Block compression: the interleave filter on pairs of supers (docs/formats.md, "Files"), "fast"
// in-core compression with a flag byte and a byte codec (the same, "In-core blocks"), and xz (LZMA)
// for files.
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "pentago/base/super.h"

namespace pentago {

// ---- Interleave filter -------------------------------------------------------------------
// View a pair (a, b) of supers as one 512-bit little-endian integer whose bit 2i is bit i of a
// and bit 2i+1 is bit i of b: 64-bit word w (0..7) holds bits 32w..32w+31 of both. The
// filtered pair is stored in the same 64 bytes (word w of the result is win.w[w] for w < 4,
// notlose.w[w-4] otherwise). Uses the SIMD level of the super kernels (PENTAGO_SIMD).
superinfo_t interleave(const superinfo_t& pair);
superinfo_t uninterleave(const superinfo_t& filtered);
void interleave(std::span<superinfo_t> nodes);  // in place
void uninterleave(std::span<superinfo_t> nodes);
void interleave(std::span<const superinfo_t> in, std::span<superinfo_t> out);  // same sizes
void uninterleave(std::span<const superinfo_t> in, std::span<superinfo_t> out);

// ---- Fast compression: flag byte, then the raw filtered bytes (0) or a byte codec's stream of
// them, after granule elision where the codec's row asks for it (elided_flag) ------------------
// The byte codec of in-core blocks, which is also the flag byte of its output (a format:
// docs/formats.md, "In-core blocks"). Each has one row in the codec table below; decompression
// follows each buffer's flag, so buffers of every built-in codec can be mixed. A run names its
// codec (--codec, the memory plan); it travels to the stores in their options.
enum class block_codec_t : uint8_t { snappy = 1, zstd = 2, lz4 = 3 };

// One row of the codec table (compress_codecs.cpp): everything the project knows of a codec.
// The functions work on raw bytes (the filter and the flag byte are fast_compress's part) and
// are null where the codec is not built in.
struct block_codec_row_t {
  block_codec_t id;
  const char* name;     // --codec NAME, logs and the run record
  const char* summary;  // for --help: how it compares
  bool built_in;        // its library was found at build time
  // Its compressed size against Snappy's on slice data: the memory plan's factor on the
  // calibrated ratios, which are Snappy's (run_plan.h).
  double planned_ratio;
  // Where --codec auto tries it: 1 first (the least CPU), then 2, ...; the first place is also
  // the codec of a dropped slice's incomplete blocks where they fit (run_plan.h).
  int auto_place;
  // Granule elision goes ahead of it (elided_flag) for a block where elision leaves at most
  // this share of the block's bytes (0: never). Snappy and LZ4 gain even where it removes
  // little (2: always); zstd's own matching finds the same repeats, and its stream comes out
  // larger where elision removes little (docs/design.md, "Granule elision").
  double elision_limit;
  size_t (*bound)(size_t raw_bytes);  // largest output of compress
  // Compresses `size` bytes into out (room for bound(size)); the output size, 0 if it failed.
  size_t (*compress)(const uint8_t* raw, size_t size, uint8_t* out);
  // The decoded size a stream records; throws pentago::error on a corrupt header.
  size_t (*decoded_bytes)(const uint8_t* data, size_t size);
  // Decodes exactly `expected` bytes (its decoded_bytes) into out; throws pentago::error if the
  // stream is corrupt.
  void (*decompress)(const uint8_t* data, size_t size, uint8_t* out, size_t expected);

  bool may_elide() const { return elision_limit > 0; }  // elision goes ahead of some blocks
};
// Every row, built in or not, in flag order.
std::span<const block_codec_row_t> block_codecs();
// The row of a codec (pentago::error for a value no row has).
const block_codec_row_t& block_codec_info(block_codec_t codec);
// The built-in codecs in --codec auto's order.
std::vector<block_codec_t> block_codec_auto_order();
// The row in the first place of the auto order, built in or not.
const block_codec_row_t& least_cpu_block_codec();
bool block_codec_available(block_codec_t codec);
const char* block_codec_name(block_codec_t codec);
// Throws pentago::error ("codec zstd is not built in") unless the codec is available.
void require_block_codec(block_codec_t codec);
// A row's name; throws usage_error for any other name or a codec not built in.
block_codec_t parse_block_codec(const std::string& name);

// Largest possible fast_compress output for `nodes` nodes, whatever the codec.
size_t fast_compress_bound(size_t nodes);
// Interleaves `nodes` in place (destroying them) and compresses them into `out` with `codec`;
// `out` is resized to the compressed size (its capacity is reused across calls). Where granule
// elision runs ahead of the codec (its row's may_elide) and the elided form takes at most
// `elided_room` bytes with its flag and node count, that form is kept without the codec: flag
// elided_flag alone, the node count, the elided bytes. It costs a fraction of a codec's CPU to
// write and to read, in about twice the codec's bytes (the store's middle tier between
// uncompressed blocks and the codec). `*elided_size`, where given, gets the elided form's size
// (0 where elision did not run).
void fast_compress(std::span<superinfo_t> nodes, std::vector<uint8_t>& out, block_codec_t codec,
                   size_t elided_room = 0, size_t* elided_size = nullptr);
// The same, the bytes left where they were made: in this thread's scratch, valid until its next
// fast compression (a store copies them once, into its own memory).
std::span<const uint8_t> fast_compress_view(std::span<superinfo_t> nodes, block_codec_t codec,
                                            size_t elided_room = 0, size_t* elided_size = nullptr);
// Blocks kept uncompressed (where memory allows: no codec CPU to store or read them) have a
// flag of their own: raw_block_flag, 63 bytes of padding, then the nodes as they are (not
// filtered), so that in a 64-byte aligned buffer the nodes are aligned and can be used where
// they lie (raw_block_nodes) or copied out as they are (fast_uncompress).
constexpr uint8_t raw_block_flag = 0xff;
// A codec's flag with this bit set: its stream holds the filtered bytes after granule elision
// (4-byte granules equal to the one 16 bytes before are marked in a bitmap, not repeated), and
// a u32 of the node count sits between the flag and the stream. fast_compress writes these
// where the codec's row lets elision go ahead (`elision_limit`), the plain flag elsewhere; both
// decode. The bit alone (no codec) is followed by the count and the elided bytes themselves.
constexpr uint8_t elided_flag = 0x10;
constexpr size_t raw_block_bytes(size_t nodes) { return 64 * (nodes + 1); }
// Writes that form of `nodes` into out (raw_block_bytes(nodes.size()) bytes, 64-byte aligned).
void fast_store_raw(std::span<const superinfo_t> nodes, uint8_t* out);
// The nodes of `bytes` where they lie, when it is exactly the uncompressed form of `nodes` nodes
// in a 64-byte aligned buffer; null for any other form (then fast_uncompress decodes it).
const superinfo_t* raw_block_nodes(std::span<const uint8_t> bytes, size_t nodes);
// Same without touching the input; `out.size()` must be >= fast_compress_bound. Returns the
// compressed size. Interleaves through a thread-local scratch buffer.
size_t fast_compress(std::span<const superinfo_t> nodes, std::span<uint8_t> out,
                     block_codec_t codec);
// The two halves of fast compression without the filter, for callers that merge in the
// filtered form (max is a bitwise OR, which the filter preserves): compress nodes that are
// already interleaved, and decode to interleaved nodes (exactly `filtered.size()` of them).
void fast_compress_filtered(std::span<const superinfo_t> filtered, std::vector<uint8_t>& out,
                            block_codec_t codec);
std::span<const uint8_t> fast_compress_filtered_view(std::span<const superinfo_t> filtered,
                                                     block_codec_t codec, size_t elided_room = 0,
                                                     size_t* elided_size = nullptr);
void fast_uncompress_filtered(std::span<const uint8_t> compressed, std::span<superinfo_t> filtered);
// The number of nodes a fast-compressed buffer decodes to; throws pentago::error unless the
// flag is valid and the decoded length is a multiple of 64.
size_t fast_uncompressed_nodes(std::span<const uint8_t> compressed);
// Decompresses into exactly `nodes.size()` nodes and un-interleaves them. Throws
// pentago::error on a bad flag, corrupt codec data or a size other than 64 * nodes.size().
void fast_uncompress(std::span<const uint8_t> compressed, std::span<superinfo_t> nodes);

// ---- xz (LZMA) for files -----------------------------------------------------------------
// What liblzma allocates and frees for every block it encodes (the encoder's tables: about
// 1 MiB at preset 0, 94 MiB at preset 6, of which a block touches a part), kept by a writer
// for its next blocks, so that those pages are not faulted in afresh at every block (liblzma
// zeroes what it needs zeroed). Any number of threads encode through one at once, each with a
// workspace of its own; everything is freed with it.
class xz_workspaces_t {
 public:
  struct workspace_t;
  xz_workspaces_t();
  ~xz_workspaces_t();
  xz_workspaces_t(const xz_workspaces_t&) = delete;
  xz_workspaces_t& operator=(const xz_workspaces_t&) = delete;
  // An idle workspace (a new one if none is idle), and back when its encoding is done.
  std::unique_ptr<workspace_t> take();
  void give(std::unique_ptr<workspace_t> workspace);

 private:
  std::mutex mutex_;
  std::vector<std::unique_ptr<workspace_t>> idle_;
};

// A complete .xz stream (lzma_easy_buffer_encode, check CRC64) of `data`. Preset 0..9. With
// `workspaces`, the encoder's memory comes from one of them.
std::vector<uint8_t> compress_block_lzma(std::span<const uint8_t> data, int preset = 6);
void compress_block_lzma(std::span<const uint8_t> data, std::vector<uint8_t>& out, int preset = 6,
                         xz_workspaces_t* workspaces = nullptr);
// Decompresses one xz stream (recognized by the magic FD 37 7A 58 5A 00) into exactly
// out.size() bytes. Anything else (zlib data, a bad checksum, a size mismatch, trailing
// bytes) throws pentago::error; `what` (e.g. "file.pentago: block 0,1,0,0") prefixes it.
void uncompress_block(std::span<const uint8_t> compressed, std::span<uint8_t> out,
                      const std::string& what);
std::vector<uint8_t> uncompress_block(std::span<const uint8_t> compressed, size_t expected_size,
                                      const std::string& what);

}  // namespace pentago
