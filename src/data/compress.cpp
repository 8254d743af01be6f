// The interleave filter's dispatch (its ISA versions are interleave_*.cpp), fast in-core
// compression with a flag byte (Snappy, or zstd / LZ4 where built in), and xz block
// compression through liblzma's one-shot API.
#include "pentago/data/compress.h"

#include <lzma.h>
#include <snappy.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#ifdef PENTAGO_HAVE_ZSTD
#include <zstd.h>
#endif
#ifdef PENTAGO_HAVE_LZ4
#include <lz4.h>
#endif

#include "interleave_simd.h"
#include "pentago/util/error.h"

namespace pentago {

static_assert(sizeof(superinfo_t) == 64 && sizeof(super_t) == 32);

namespace {

detail::interleave_fn interleave_fn() {
  switch (current_simd_level()) {
    case simd_level::avx512vbmi:
      return detail::interleave_avx512vbmi;
    case simd_level::avx2:
    case simd_level::avx512:
      return detail::interleave_avx2;
    case simd_level::sse:
      return detail::interleave_sse;
    case simd_level::portable:
      break;
  }
  return detail::interleave_portable;
}

detail::interleave_fn uninterleave_fn() {
  switch (current_simd_level()) {
    case simd_level::avx512vbmi:
      return detail::uninterleave_avx512vbmi;
    case simd_level::avx2:
    case simd_level::avx512:
      return detail::uninterleave_avx2;
    case simd_level::sse:
      return detail::uninterleave_sse;
    case simd_level::portable:
      break;
  }
  return detail::uninterleave_portable;
}

// Thread-local node scratch for the non-destructive compressor.
std::span<superinfo_t> scratch_nodes(size_t n) {
  thread_local std::vector<superinfo_t> scratch;
  if (scratch.size() < n) scratch.resize(n);
  return {scratch.data(), n};
}

std::span<uint8_t> scratch_bytes(size_t n) {
  thread_local std::vector<uint8_t> scratch;
  if (scratch.size() < n) scratch.resize(n);
  return {scratch.data(), n};
}

std::atomic<block_codec> codec_in_use{block_codec::snappy};

#ifdef PENTAGO_HAVE_ZSTD
// zstd's level for in-core blocks: level 1 is its fastest standard level; the negative
// levels came out barely denser than Snappy in a one-off trial (docs/performance.md).
constexpr int zstd_level = 1;

// Per-thread zstd contexts (their tables are reused from block to block).
struct zstd_contexts {
  ZSTD_CCtx* compress = ZSTD_createCCtx();
  ZSTD_DCtx* decompress = ZSTD_createDCtx();
  ~zstd_contexts() {
    ZSTD_freeCCtx(compress);
    ZSTD_freeDCtx(decompress);
  }
};
zstd_contexts& zstd() {
  thread_local zstd_contexts contexts;
  return contexts;
}
#endif

// Compresses raw bytes with `codec` into out (room for the codec's bound); returns the size,
// or 0 if the codec failed.
size_t codec_compress(block_codec codec, const char* raw, size_t size, char* out) {
  switch (codec) {
    case block_codec::snappy: {
      size_t length = 0;
      snappy::RawCompress(raw, size, out, &length);
      return length;
    }
    case block_codec::zstd:
#ifdef PENTAGO_HAVE_ZSTD
    {
      const size_t length =
          ZSTD_compressCCtx(zstd().compress, out, ZSTD_compressBound(size), raw, size, zstd_level);
      return ZSTD_isError(length) ? 0 : length;
    }
#else
      break;
#endif
    case block_codec::lz4:
#ifdef PENTAGO_HAVE_LZ4
    {
      // LZ4's raw blocks do not record their size: a 32-bit little-endian prefix does.
      const uint32_t raw_size = uint32_t(size);
      std::memcpy(out, &raw_size, 4);
      const int length =
          LZ4_compress_default(raw, out + 4, int(size), LZ4_compressBound(int(size)));
      return length > 0 ? 4 + size_t(length) : 0;
    }
#else
      break;
#endif
  }
  return 0;
}

// Compresses already filtered nodes into out (size >= fast_compress_bound) with `codec`, or
// stores them raw where that is no smaller.
size_t compress_filtered(const superinfo_t* nodes, size_t n, uint8_t* out, block_codec codec) {
  const size_t raw = 64 * n;
  const size_t length = raw ? codec_compress(codec, reinterpret_cast<const char*>(nodes), raw,
                                             reinterpret_cast<char*>(out + 1))
                            : 0;
  if (length && length < raw) {
    out[0] = uint8_t(codec);
    return 1 + length;
  }
  out[0] = 0;
  if (raw) std::memcpy(out + 1, nodes, raw);
  return 1 + raw;
}

}  // namespace

superinfo_t interleave(const superinfo_t& pair) {
  superinfo_t r;
  interleave_fn()(&pair, &r, 1);
  return r;
}

superinfo_t uninterleave(const superinfo_t& filtered) {
  superinfo_t r;
  uninterleave_fn()(&filtered, &r, 1);
  return r;
}

void interleave(std::span<superinfo_t> nodes) {
  interleave_fn()(nodes.data(), nodes.data(), nodes.size());
}

void uninterleave(std::span<superinfo_t> nodes) {
  uninterleave_fn()(nodes.data(), nodes.data(), nodes.size());
}

void interleave(std::span<const superinfo_t> in, std::span<superinfo_t> out) {
  PENTAGO_CHECK(in.size() == out.size(), "interleave size mismatch");
  interleave_fn()(in.data(), out.data(), in.size());
}

void uninterleave(std::span<const superinfo_t> in, std::span<superinfo_t> out) {
  PENTAGO_CHECK(in.size() == out.size(), "uninterleave size mismatch");
  uninterleave_fn()(in.data(), out.data(), in.size());
}

bool block_codec_available(block_codec codec) {
  switch (codec) {
    case block_codec::snappy:
      return true;
    case block_codec::zstd:
#ifdef PENTAGO_HAVE_ZSTD
      return true;
#else
      return false;
#endif
    case block_codec::lz4:
#ifdef PENTAGO_HAVE_LZ4
      return true;
#else
      return false;
#endif
  }
  return false;
}

const char* block_codec_name(block_codec codec) {
  switch (codec) {
    case block_codec::zstd:
      return "zstd";
    case block_codec::lz4:
      return "lz4";
    default:
      return "snappy";
  }
}

block_codec parse_block_codec(const std::string& name) {
  for (const block_codec c : {block_codec::snappy, block_codec::zstd, block_codec::lz4})
    if (name == block_codec_name(c)) {
      if (!block_codec_available(c))
        throw usage_error("codec " + name + " is not built in (install lib" + name +
                          "-dev and rebuild)");
      return c;
    }
  throw usage_error("unknown codec '" + name + "' (snappy, zstd or lz4)");
}

void require_block_codec(block_codec codec) {
  if (!block_codec_available(codec))
    throw error(std::string("codec ") + block_codec_name(codec) + " is not built in");
}

void set_block_codec(block_codec codec) {
  require_block_codec(codec);
  codec_in_use = codec;
}

block_codec current_block_codec() { return codec_in_use; }

size_t fast_compress_bound(size_t nodes) {
  // Snappy's bound (32 + n + n / 6) is above zstd's and LZ4's (about n + n / 255).
  size_t bound = snappy::MaxCompressedLength(64 * nodes);
#ifdef PENTAGO_HAVE_ZSTD
  bound = std::max(bound, ZSTD_compressBound(64 * nodes));
#endif
#ifdef PENTAGO_HAVE_LZ4
  bound = std::max(bound, 4 + size_t(LZ4_compressBound(int(64 * nodes))));
#endif
  return 1 + bound;
}

void fast_compress_filtered(std::span<const superinfo_t> filtered, std::vector<uint8_t>& out,
                            block_codec codec) {
  require_block_codec(codec);
  // Compress into scratch so that `out` never pays for zero-filling the whole bound.
  const auto buffer = scratch_bytes(fast_compress_bound(filtered.size()));
  const size_t size = compress_filtered(filtered.data(), filtered.size(), buffer.data(), codec);
  out.assign(buffer.data(), buffer.data() + size);
}

void fast_compress(std::span<superinfo_t> nodes, std::vector<uint8_t>& out, block_codec codec) {
  interleave(nodes);
  fast_compress_filtered(nodes, out, codec);
}

size_t fast_compress(std::span<const superinfo_t> nodes, std::span<uint8_t> out,
                     block_codec codec) {
  require_block_codec(codec);
  PENTAGO_CHECK(out.size() >= fast_compress_bound(nodes.size()),
                "fast_compress output buffer too small");
  const auto filtered = scratch_nodes(nodes.size());
  interleave(nodes, filtered);
  return compress_filtered(filtered.data(), filtered.size(), out.data(), codec);
}

size_t fast_uncompressed_nodes(std::span<const uint8_t> compressed) {
  if (compressed.empty()) throw error("fast_uncompress: empty buffer");
  const char* data = reinterpret_cast<const char*>(compressed.data() + 1);
  const size_t size = compressed.size() - 1;
  size_t length = size;
  switch (compressed[0]) {
    case 0:
      break;
    case uint8_t(block_codec::snappy):
      if (!snappy::GetUncompressedLength(data, size, &length))
        throw error("fast_uncompress: corrupt snappy header");
      break;
#ifdef PENTAGO_HAVE_ZSTD
    case uint8_t(block_codec::zstd): {
      const unsigned long long n = ZSTD_getFrameContentSize(data, size);
      if (n == ZSTD_CONTENTSIZE_ERROR || n == ZSTD_CONTENTSIZE_UNKNOWN)
        throw error("fast_uncompress: corrupt zstd header");
      length = size_t(n);
      break;
    }
#endif
#ifdef PENTAGO_HAVE_LZ4
    case uint8_t(block_codec::lz4): {
      if (size < 4) throw error("fast_uncompress: corrupt lz4 header");
      uint32_t n;
      std::memcpy(&n, data, 4);
      length = n;
      break;
    }
#endif
    default:
      throw error("fast_uncompress: bad flag byte " + std::to_string(compressed[0]));
  }
  if (length % 64)
    throw error("fast_uncompress: decoded length " + std::to_string(length) +
                " is not a multiple of 64");
  return length / 64;
}

void fast_uncompress(std::span<const uint8_t> compressed, std::span<superinfo_t> nodes) {
  fast_uncompress_filtered(compressed, nodes);
  uninterleave(nodes);
}

void fast_uncompress_filtered(std::span<const uint8_t> compressed, std::span<superinfo_t> nodes) {
  // The flag and the recorded length are checked once, by fast_uncompressed_nodes.
  const size_t n = fast_uncompressed_nodes(compressed);
  if (n != nodes.size())
    throw error("fast_uncompress: decoded " + std::to_string(n) + " nodes, expected " +
                std::to_string(nodes.size()));
  const char* data = reinterpret_cast<const char*>(compressed.data() + 1);
  const size_t size = compressed.size() - 1, expected = 64 * n;
  char* out = reinterpret_cast<char*>(nodes.data());
  switch (compressed[0]) {
    case uint8_t(block_codec::snappy):
      if (!snappy::RawUncompress(data, size, out))
        throw error("fast_uncompress: corrupt snappy data");
      return;
#ifdef PENTAGO_HAVE_ZSTD
    case uint8_t(block_codec::zstd): {
      const size_t length = ZSTD_decompressDCtx(zstd().decompress, out, expected, data, size);
      if (ZSTD_isError(length) || length != expected)
        throw error("fast_uncompress: corrupt zstd data");
      return;
    }
#endif
#ifdef PENTAGO_HAVE_LZ4
    case uint8_t(block_codec::lz4): {
      if (size - 4 > size_t(std::numeric_limits<int>::max()))
        throw error("fast_uncompress: corrupt lz4 header");
      const int length = LZ4_decompress_safe(data + 4, out, int(size - 4), int(expected));
      if (length < 0 || size_t(length) != expected)
        throw error("fast_uncompress: corrupt lz4 data");
      return;
    }
#endif
    default:  // raw (fast_uncompressed_nodes refused every other flag)
      if (size) std::memcpy(out, data, size);
  }
}

void compress_block_lzma(std::span<const uint8_t> data, std::vector<uint8_t>& out, int preset) {
  if (preset < 0 || preset > 9) throw error("xz preset " + std::to_string(preset) + " not in 0..9");
  // Encoded into this thread's scratch, then copied at its exact size: a vector shrunk after
  // encoding in place would keep the bound (the raw size) as capacity, and the MPI writer holds
  // every block of a rank's slice at once.
  thread_local std::vector<uint8_t> scratch;
  const size_t bound = lzma_stream_buffer_bound(data.size());
  if (scratch.size() < bound) scratch.resize(bound);
  size_t pos = 0;
  const lzma_ret r = lzma_easy_buffer_encode(uint32_t(preset), LZMA_CHECK_CRC64, nullptr,
                                             data.data(), data.size(), scratch.data(), &pos, bound);
  if (r != LZMA_OK) throw error("xz compression failed (liblzma error " + std::to_string(r) + ")");
  out.assign(scratch.begin(), scratch.begin() + ptrdiff_t(pos));
  out.shrink_to_fit();
}

std::vector<uint8_t> compress_block_lzma(std::span<const uint8_t> data, int preset) {
  std::vector<uint8_t> out;
  compress_block_lzma(data, out, preset);
  return out;
}

void uncompress_block(std::span<const uint8_t> compressed, std::span<uint8_t> out,
                      const std::string& what) {
  static constexpr uint8_t xz_magic[6] = {0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00};
  if (compressed.size() < sizeof(xz_magic) ||
      std::memcmp(compressed.data(), xz_magic, sizeof(xz_magic)) != 0)
    throw error(what + ": not xz data (bad magic; zlib blocks are not supported)");
  uint64_t memlimit = uint64_t(1) << 27;  // preset 9 needs about 65 MiB to decode
  size_t in_pos = 0, out_pos = 0;
  const lzma_ret r = lzma_stream_buffer_decode(&memlimit, 0, nullptr, compressed.data(), &in_pos,
                                               compressed.size(), out.data(), &out_pos, out.size());
  switch (r) {
    case LZMA_OK:
      break;
    case LZMA_BUF_ERROR:
      throw error(what + ": xz data is truncated or decodes to more than the expected " +
                  std::to_string(out.size()) + " bytes");
    case LZMA_DATA_ERROR:
      throw error(what + ": corrupt xz data (checksum or stream error)");
    case LZMA_FORMAT_ERROR:
      throw error(what + ": corrupt xz stream header");
    case LZMA_OPTIONS_ERROR:
      throw error(what + ": unsupported xz options");
    case LZMA_MEMLIMIT_ERROR:
      throw error(what + ": xz stream needs too much memory to decode");
    default:
      throw error(what + ": xz decompression failed (liblzma error " + std::to_string(r) + ")");
  }
  if (out_pos != out.size())
    throw error(what + ": xz data decodes to " + std::to_string(out_pos) + " bytes, expected " +
                std::to_string(out.size()));
  if (in_pos != compressed.size())
    throw error(what + ": " + std::to_string(compressed.size() - in_pos) +
                " trailing bytes after the xz stream");
}

std::vector<uint8_t> uncompress_block(std::span<const uint8_t> compressed, size_t expected_size,
                                      const std::string& what) {
  std::vector<uint8_t> out(expected_size);
  uncompress_block(compressed, out, what);
  return out;
}

}  // namespace pentago
