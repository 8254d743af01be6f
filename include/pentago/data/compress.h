// Block compression: the interleave filter on pairs of supers (docs/formats.md, "Files"), "fast"
// in-core compression with a flag byte and a byte codec (the same, "In-core blocks"), and xz (LZMA)
// for files.
#pragma once
#include <cstdint>
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

// ---- Fast compression: flag byte, then the raw filtered bytes (0) or a byte codec's stream --
// The byte codec of in-core blocks, which is also the flag byte of its output. Snappy is the
// default (the 2013 design's); zstd (level 1: about 1.5x denser than Snappy, compressing
// about 1.5x slower and decompressing as fast) and LZ4 (decompressing 3x faster, slightly less
// dense) are measured options, present when the build found libzstd / liblz4. Decompression
// follows each buffer's flag, so buffers of every available codec can be mixed.
enum class block_codec : uint8_t { snappy = 1, zstd = 2, lz4 = 3 };
bool block_codec_available(block_codec codec);
const char* block_codec_name(block_codec codec);
// Throws pentago::error ("codec zstd is not built in") unless the codec is available.
void require_block_codec(block_codec codec);
// "snappy", "zstd" or "lz4"; throws usage_error for any other name or a codec not built in.
block_codec parse_block_codec(const std::string& name);
// The codec fast_compress uses in this process (all threads); throws pentago::error if the
// codec was not built in.
void set_block_codec(block_codec codec);
block_codec current_block_codec();

// Largest possible fast_compress output for `nodes` nodes, whatever the codec.
size_t fast_compress_bound(size_t nodes);
// Interleaves `nodes` in place (destroying them) and compresses them into `out`, which is
// resized to the compressed size (its capacity is reused across calls), with `codec` (the
// current one by default).
void fast_compress(std::span<superinfo_t> nodes, std::vector<uint8_t>& out,
                   block_codec codec = current_block_codec());
// Same without touching the input, with `codec` (the current one by default); `out.size()`
// must be >= fast_compress_bound. Returns the compressed size. Interleaves through a
// thread-local scratch buffer.
size_t fast_compress(std::span<const superinfo_t> nodes, std::span<uint8_t> out,
                     block_codec codec = current_block_codec());
// The two halves of fast compression without the filter, for callers that merge in the
// filtered form (max is a bitwise OR, which the filter preserves): compress nodes that are
// already interleaved, and decode to interleaved nodes (exactly `filtered.size()` of them).
void fast_compress_filtered(std::span<const superinfo_t> filtered, std::vector<uint8_t>& out,
                            block_codec codec = current_block_codec());
void fast_uncompress_filtered(std::span<const uint8_t> compressed, std::span<superinfo_t> filtered);
// The number of nodes a fast-compressed buffer decodes to; throws pentago::error unless the
// flag is valid and the decoded length is a multiple of 64.
size_t fast_uncompressed_nodes(std::span<const uint8_t> compressed);
// Decompresses into exactly `nodes.size()` nodes and un-interleaves them. Throws
// pentago::error on a bad flag, corrupt codec data or a size other than 64 * nodes.size().
void fast_uncompress(std::span<const uint8_t> compressed, std::span<superinfo_t> nodes);

// ---- xz (LZMA) for files -----------------------------------------------------------------
// A complete .xz stream (lzma_easy_buffer_encode, check CRC64) of `data`. Preset 0..9.
std::vector<uint8_t> compress_block_lzma(std::span<const uint8_t> data, int preset = 6);
void compress_block_lzma(std::span<const uint8_t> data, std::vector<uint8_t>& out, int preset = 6);
// Decompresses one xz stream (recognized by the magic FD 37 7A 58 5A 00) into exactly
// out.size() bytes. Anything else (zlib data, a bad checksum, a size mismatch, trailing
// bytes) throws pentago::error; `what` (e.g. "file.pentago: block 0,1,0,0") prefixes it.
void uncompress_block(std::span<const uint8_t> compressed, std::span<uint8_t> out,
                      const std::string& what);
std::vector<uint8_t> uncompress_block(std::span<const uint8_t> compressed, size_t expected_size,
                                      const std::string& what);

}  // namespace pentago
