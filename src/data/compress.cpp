// The interleave filter's dispatch (its ISA versions are interleave_*.cpp), fast Snappy
// compression with a flag byte, and xz block compression through liblzma's one-shot API.
#include "pentago/data/compress.h"

#include <lzma.h>
#include <snappy.h>

#include <cstring>

#include "interleave_simd.h"
#include "pentago/util/error.h"

namespace pentago {

static_assert(sizeof(superinfo_t) == 64 && sizeof(super_t) == 32);

namespace {

detail::interleave_fn interleave_fn() {
  switch (current_simd_level()) {
    case simd_level::avx2:
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
    case simd_level::avx2:
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

// Snappy-compresses already filtered nodes into out (size >= fast_compress_bound).
size_t compress_filtered(const superinfo_t* nodes, size_t n, uint8_t* out) {
  const size_t raw = 64 * n;
  size_t length = 0;
  snappy::RawCompress(reinterpret_cast<const char*>(nodes), raw, reinterpret_cast<char*>(out + 1),
                      &length);
  if (length < raw) {
    out[0] = 1;
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

size_t fast_compress_bound(size_t nodes) { return 1 + snappy::MaxCompressedLength(64 * nodes); }

void fast_compress_filtered(std::span<const superinfo_t> filtered, std::vector<uint8_t>& out) {
  // Compress into scratch so that `out` never pays for zero-filling the whole bound.
  const auto buffer = scratch_bytes(fast_compress_bound(filtered.size()));
  const size_t size = compress_filtered(filtered.data(), filtered.size(), buffer.data());
  out.assign(buffer.data(), buffer.data() + size);
}

void fast_compress(std::span<superinfo_t> nodes, std::vector<uint8_t>& out) {
  interleave(nodes);
  fast_compress_filtered(nodes, out);
}

size_t fast_compress(std::span<const superinfo_t> nodes, std::span<uint8_t> out) {
  PENTAGO_CHECK(out.size() >= fast_compress_bound(nodes.size()),
                "fast_compress output buffer too small");
  const auto filtered = scratch_nodes(nodes.size());
  interleave(nodes, filtered);
  return compress_filtered(filtered.data(), filtered.size(), out.data());
}

size_t fast_uncompressed_nodes(std::span<const uint8_t> compressed) {
  if (compressed.empty()) throw error("fast_uncompress: empty buffer");
  size_t length = compressed.size() - 1;
  if (compressed[0] == 1) {
    if (!snappy::GetUncompressedLength(reinterpret_cast<const char*>(compressed.data() + 1),
                                       compressed.size() - 1, &length))
      throw error("fast_uncompress: corrupt snappy header");
  } else if (compressed[0] != 0) {
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
  const size_t n = fast_uncompressed_nodes(compressed);
  if (n != nodes.size())
    throw error("fast_uncompress: decoded " + std::to_string(n) + " nodes, expected " +
                std::to_string(nodes.size()));
  if (compressed[0] == 0) {
    if (n) std::memcpy(nodes.data(), compressed.data() + 1, 64 * n);
  } else if (!snappy::RawUncompress(reinterpret_cast<const char*>(compressed.data() + 1),
                                    compressed.size() - 1, reinterpret_cast<char*>(nodes.data()))) {
    throw error("fast_uncompress: corrupt snappy data");
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
