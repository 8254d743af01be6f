// The codec table of in-core blocks (data/compress.h, block_codec_row): one row per codec with
// its name, flag byte, planned ratio, place in --codec auto's order and its library's calls.
// Adding a codec: a block_codec value, its functions and row here, its library in the build
// (docs/design.md, "In-core block codecs").
#include <snappy.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "pentago/data/compress.h"
#include "pentago/util/error.h"
#ifdef PENTAGO_HAVE_ZSTD
#include <zstd.h>
#endif
#ifdef PENTAGO_HAVE_LZ4
#include <lz4.h>
#endif

namespace pentago {
namespace {

// ---- Snappy: the default (the 2013 design's) ---------------------------------------------
size_t snappy_bound(size_t raw) { return snappy::MaxCompressedLength(raw); }

size_t snappy_compress(const uint8_t* raw, size_t size, uint8_t* out) {
  size_t length = 0;
  snappy::RawCompress(reinterpret_cast<const char*>(raw), size, reinterpret_cast<char*>(out),
                      &length);
  return length;
}

size_t snappy_decoded_bytes(const uint8_t* data, size_t size) {
  size_t length = 0;
  if (!snappy::GetUncompressedLength(reinterpret_cast<const char*>(data), size, &length))
    throw pentago_error_t("fast_uncompress: corrupt snappy header");
  return length;
}

void snappy_decompress(const uint8_t* data, size_t size, uint8_t* out, size_t) {
  if (!snappy::RawUncompress(reinterpret_cast<const char*>(data), size,
                             reinterpret_cast<char*>(out)))
    throw pentago_error_t("fast_uncompress: corrupt snappy data");
}

// ---- zstd: about 1.5x denser than Snappy, compressing about 1.5x slower -------------------
#ifdef PENTAGO_HAVE_ZSTD
// Level 1 is zstd's fastest standard level; the negative levels came out barely denser than
// Snappy in a one-off trial (docs/performance.md).
constexpr int zstd_level = 1;

// Per-thread zstd contexts (their tables are reused from block to block).
struct zstd_contexts_t {
  ZSTD_CCtx* compress = ZSTD_createCCtx();
  ZSTD_DCtx* decompress = ZSTD_createDCtx();
  ~zstd_contexts_t() {
    ZSTD_freeCCtx(compress);
    ZSTD_freeDCtx(decompress);
  }
};
zstd_contexts_t& zstd() {
  thread_local zstd_contexts_t contexts;
  return contexts;
}

size_t zstd_bound(size_t raw) { return ZSTD_compressBound(raw); }

size_t zstd_compress(const uint8_t* raw, size_t size, uint8_t* out) {
  const size_t length =
      ZSTD_compressCCtx(zstd().compress, out, ZSTD_compressBound(size), raw, size, zstd_level);
  return ZSTD_isError(length) ? 0 : length;
}

size_t zstd_decoded_bytes(const uint8_t* data, size_t size) {
  const unsigned long long n = ZSTD_getFrameContentSize(data, size);
  if (n == ZSTD_CONTENTSIZE_ERROR || n == ZSTD_CONTENTSIZE_UNKNOWN)
    throw pentago_error_t("fast_uncompress: corrupt zstd header");
  return size_t(n);
}

void zstd_decompress(const uint8_t* data, size_t size, uint8_t* out, size_t expected) {
  const size_t length = ZSTD_decompressDCtx(zstd().decompress, out, expected, data, size);
  if (ZSTD_isError(length) || length != expected)
    throw pentago_error_t("fast_uncompress: corrupt zstd data");
}
#endif

// ---- LZ4: decompressing 3x faster than Snappy, slightly less dense ------------------------
#ifdef PENTAGO_HAVE_LZ4
// LZ4's raw blocks do not record their size: a 32-bit little-endian prefix does.
size_t lz4_bound(size_t raw) { return 4 + size_t(LZ4_compressBound(int(raw))); }

size_t lz4_compress(const uint8_t* raw, size_t size, uint8_t* out) {
  const uint32_t raw_size = uint32_t(size);
  std::memcpy(out, &raw_size, 4);
  const int length =
      LZ4_compress_default(reinterpret_cast<const char*>(raw), reinterpret_cast<char*>(out + 4),
                           int(size), LZ4_compressBound(int(size)));
  return length > 0 ? 4 + size_t(length) : 0;
}

size_t lz4_decoded_bytes(const uint8_t* data, size_t size) {
  if (size < 4) throw pentago_error_t("fast_uncompress: corrupt lz4 header");
  uint32_t n;
  std::memcpy(&n, data, 4);
  return n;
}

void lz4_decompress(const uint8_t* data, size_t size, uint8_t* out, size_t expected) {
  if (size - 4 > size_t(std::numeric_limits<int>::max()))
    throw pentago_error_t("fast_uncompress: corrupt lz4 header");
  const int length =
      LZ4_decompress_safe(reinterpret_cast<const char*>(data + 4), reinterpret_cast<char*>(out),
                          int(size - 4), int(expected));
  if (length < 0 || size_t(length) != expected)
    throw pentago_error_t("fast_uncompress: corrupt lz4 data");
}
#endif

// The planned ratios: slice 35 sampled with each codec (store_codec_bench's blocks, 32 per
// root): zstd 0.235 against Snappy's 0.373 on 44444454 and 0.147 against 0.254 on 25263480;
// LZ4 0.398 and 0.276. Stored slices measured with zstd on 2 ranks: 0.198 at 34 (Snappy 0.326).
// The auto order: least CPU first (LZ4 decodes fastest), densest last (docs/performance.md).
#define PENTAGO_CODEC_CALLS(prefix) \
  prefix##_bound, prefix##_compress, prefix##_decoded_bytes, prefix##_decompress
#define PENTAGO_CODEC_NONE nullptr, nullptr, nullptr, nullptr
constexpr const char* zstd_summary = "about 1.5x denser, compresses 1.5x slower";
constexpr const char* lz4_summary = "decompresses 3x faster, the least CPU";

const block_codec_row_t rows[] = {
    {block_codec_t::snappy, "snappy", "the 2013 solver's", true, 1.0, 2, 2.0,
     PENTAGO_CODEC_CALLS(snappy)},
#ifdef PENTAGO_HAVE_ZSTD
    {block_codec_t::zstd, "zstd", zstd_summary, true, 0.65, 3, 0.5, PENTAGO_CODEC_CALLS(zstd)},
#else
    {block_codec_t::zstd, "zstd", zstd_summary, false, 0.65, 3, 0.5, PENTAGO_CODEC_NONE},
#endif
#ifdef PENTAGO_HAVE_LZ4
    {block_codec_t::lz4, "lz4", lz4_summary, true, 1.09, 1, 2.0, PENTAGO_CODEC_CALLS(lz4)},
#else
    {block_codec_t::lz4, "lz4", lz4_summary, false, 1.09, 1, 2.0, PENTAGO_CODEC_NONE},
#endif
};

}  // namespace

std::span<const block_codec_row_t> block_codecs() { return rows; }

}  // namespace pentago
