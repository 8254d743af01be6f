// The interleave filter (portable, SSE2 and AVX2 versions), fast Snappy compression with a
// flag byte, and xz block compression through liblzma's one-shot buffer API.
#include "pentago/data/compress.h"

#include <lzma.h>
#include <snappy.h>

#include <cstring>

#include "pentago/util/error.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define PENTAGO_X86 1
#else
#define PENTAGO_X86 0
#endif

namespace pentago {

static_assert(sizeof(superinfo_t) == 64 && sizeof(super_t) == 32);

namespace {

// ---- Portable filter ---------------------------------------------------------------------

// Spreads the low 32 bits of x to the even bit positions.
inline uint64_t spread_bits(uint64_t x) {
  x &= 0xffffffffULL;
  x = (x | x << 16) & 0x0000ffff0000ffffULL;
  x = (x | x << 8) & 0x00ff00ff00ff00ffULL;
  x = (x | x << 4) & 0x0f0f0f0f0f0f0f0fULL;
  x = (x | x << 2) & 0x3333333333333333ULL;
  x = (x | x << 1) & 0x5555555555555555ULL;
  return x;
}

// Gathers the even bit positions of x into the low 32 bits.
inline uint64_t gather_bits(uint64_t x) {
  x &= 0x5555555555555555ULL;
  x = (x | x >> 1) & 0x3333333333333333ULL;
  x = (x | x >> 2) & 0x0f0f0f0f0f0f0f0fULL;
  x = (x | x >> 4) & 0x00ff00ff00ff00ffULL;
  x = (x | x >> 8) & 0x0000ffff0000ffffULL;
  x = (x | x >> 16) & 0x00000000ffffffffULL;
  return x;
}

// Word w of the filtered pair, for the 8 words of a superinfo_t viewed as one array.
inline uint64_t* words(superinfo_t& p) { return p.win.w; }
inline const uint64_t* words(const superinfo_t& p) { return p.win.w; }

void interleave_portable(const superinfo_t* in, superinfo_t* out, size_t n) {
  for (size_t i = 0; i < n; i++) {
    const super_t a = in[i].win, b = in[i].notlose;
    uint64_t* o = words(out[i]);
    for (int w = 0; w < 8; w++) {
      const int shift = 32 * (w & 1);
      o[w] = spread_bits(a.w[w >> 1] >> shift) | spread_bits(b.w[w >> 1] >> shift) << 1;
    }
  }
}

void uninterleave_portable(const superinfo_t* in, superinfo_t* out, size_t n) {
  for (size_t i = 0; i < n; i++) {
    uint64_t x[8];
    std::memcpy(x, words(in[i]), 64);
    super_t a, b;
    for (int w = 0; w < 8; w++) {
      const int shift = 32 * (w & 1);
      a.w[w >> 1] |= gather_bits(x[w]) << shift;
      b.w[w >> 1] |= gather_bits(x[w] >> 1) << shift;
    }
    out[i].win = a;
    out[i].notlose = b;
  }
}

#if PENTAGO_X86
// ---- SSE2 filter: byte unpack, then a bit-level perfect shuffle within 16-bit lanes ----------

// Each 16-bit lane holds (low byte a, high byte b); the result has a's bits at even
// positions and b's at odd positions. Three delta swaps (Hacker's Delight 7-2).
inline __m128i shuffle16_sse(__m128i x) {
  __m128i t = _mm_and_si128(_mm_xor_si128(x, _mm_srli_epi16(x, 4)), _mm_set1_epi16(0x00f0));
  x = _mm_xor_si128(x, _mm_xor_si128(t, _mm_slli_epi16(t, 4)));
  t = _mm_and_si128(_mm_xor_si128(x, _mm_srli_epi16(x, 2)), _mm_set1_epi16(0x0c0c));
  x = _mm_xor_si128(x, _mm_xor_si128(t, _mm_slli_epi16(t, 2)));
  t = _mm_and_si128(_mm_xor_si128(x, _mm_srli_epi16(x, 1)), _mm_set1_epi16(0x2222));
  return _mm_xor_si128(x, _mm_xor_si128(t, _mm_slli_epi16(t, 1)));
}

inline __m128i unshuffle16_sse(__m128i x) {
  __m128i t = _mm_and_si128(_mm_xor_si128(x, _mm_srli_epi16(x, 1)), _mm_set1_epi16(0x2222));
  x = _mm_xor_si128(x, _mm_xor_si128(t, _mm_slli_epi16(t, 1)));
  t = _mm_and_si128(_mm_xor_si128(x, _mm_srli_epi16(x, 2)), _mm_set1_epi16(0x0c0c));
  x = _mm_xor_si128(x, _mm_xor_si128(t, _mm_slli_epi16(t, 2)));
  t = _mm_and_si128(_mm_xor_si128(x, _mm_srli_epi16(x, 4)), _mm_set1_epi16(0x00f0));
  return _mm_xor_si128(x, _mm_xor_si128(t, _mm_slli_epi16(t, 4)));
}

void interleave_sse(const superinfo_t* in, superinfo_t* out, size_t n) {
  for (size_t i = 0; i < n; i++) {
    const __m128i* p = reinterpret_cast<const __m128i*>(&in[i]);
    const __m128i a0 = _mm_loadu_si128(p), a1 = _mm_loadu_si128(p + 1);
    const __m128i b0 = _mm_loadu_si128(p + 2), b1 = _mm_loadu_si128(p + 3);
    __m128i* q = reinterpret_cast<__m128i*>(&out[i]);
    _mm_storeu_si128(q, shuffle16_sse(_mm_unpacklo_epi8(a0, b0)));
    _mm_storeu_si128(q + 1, shuffle16_sse(_mm_unpackhi_epi8(a0, b0)));
    _mm_storeu_si128(q + 2, shuffle16_sse(_mm_unpacklo_epi8(a1, b1)));
    _mm_storeu_si128(q + 3, shuffle16_sse(_mm_unpackhi_epi8(a1, b1)));
  }
}

void uninterleave_sse(const superinfo_t* in, superinfo_t* out, size_t n) {
  const __m128i low = _mm_set1_epi16(0x00ff);
  for (size_t i = 0; i < n; i++) {
    const __m128i* p = reinterpret_cast<const __m128i*>(&in[i]);
    const __m128i x0 = unshuffle16_sse(_mm_loadu_si128(p));
    const __m128i x1 = unshuffle16_sse(_mm_loadu_si128(p + 1));
    const __m128i x2 = unshuffle16_sse(_mm_loadu_si128(p + 2));
    const __m128i x3 = unshuffle16_sse(_mm_loadu_si128(p + 3));
    __m128i* q = reinterpret_cast<__m128i*>(&out[i]);
    _mm_storeu_si128(q, _mm_packus_epi16(_mm_and_si128(x0, low), _mm_and_si128(x1, low)));
    _mm_storeu_si128(q + 1, _mm_packus_epi16(_mm_and_si128(x2, low), _mm_and_si128(x3, low)));
    _mm_storeu_si128(q + 2, _mm_packus_epi16(_mm_srli_epi16(x0, 8), _mm_srli_epi16(x1, 8)));
    _mm_storeu_si128(q + 3, _mm_packus_epi16(_mm_srli_epi16(x2, 8), _mm_srli_epi16(x3, 8)));
  }
}

// ---- AVX2 filter: the same on 256-bit vectors, with a lane fix-up ---------------------------

__attribute__((target("avx2"))) inline __m256i shuffle16_avx2(__m256i x) {
  __m256i t =
      _mm256_and_si256(_mm256_xor_si256(x, _mm256_srli_epi16(x, 4)), _mm256_set1_epi16(0x00f0));
  x = _mm256_xor_si256(x, _mm256_xor_si256(t, _mm256_slli_epi16(t, 4)));
  t = _mm256_and_si256(_mm256_xor_si256(x, _mm256_srli_epi16(x, 2)), _mm256_set1_epi16(0x0c0c));
  x = _mm256_xor_si256(x, _mm256_xor_si256(t, _mm256_slli_epi16(t, 2)));
  t = _mm256_and_si256(_mm256_xor_si256(x, _mm256_srli_epi16(x, 1)), _mm256_set1_epi16(0x2222));
  return _mm256_xor_si256(x, _mm256_xor_si256(t, _mm256_slli_epi16(t, 1)));
}

__attribute__((target("avx2"))) inline __m256i unshuffle16_avx2(__m256i x) {
  __m256i t =
      _mm256_and_si256(_mm256_xor_si256(x, _mm256_srli_epi16(x, 1)), _mm256_set1_epi16(0x2222));
  x = _mm256_xor_si256(x, _mm256_xor_si256(t, _mm256_slli_epi16(t, 1)));
  t = _mm256_and_si256(_mm256_xor_si256(x, _mm256_srli_epi16(x, 2)), _mm256_set1_epi16(0x0c0c));
  x = _mm256_xor_si256(x, _mm256_xor_si256(t, _mm256_slli_epi16(t, 2)));
  t = _mm256_and_si256(_mm256_xor_si256(x, _mm256_srli_epi16(x, 4)), _mm256_set1_epi16(0x00f0));
  return _mm256_xor_si256(x, _mm256_xor_si256(t, _mm256_slli_epi16(t, 4)));
}

__attribute__((target("avx2"))) void interleave_avx2(const superinfo_t* in, superinfo_t* out,
                                                     size_t n) {
  for (size_t i = 0; i < n; i++) {
    const __m256i* p = reinterpret_cast<const __m256i*>(&in[i]);
    const __m256i a = _mm256_loadu_si256(p), b = _mm256_loadu_si256(p + 1);
    // Lane 0 of lo/hi: words 0-1 / 2-3 of the result; lane 1: words 4-5 / 6-7.
    const __m256i lo = shuffle16_avx2(_mm256_unpacklo_epi8(a, b));
    const __m256i hi = shuffle16_avx2(_mm256_unpackhi_epi8(a, b));
    __m256i* q = reinterpret_cast<__m256i*>(&out[i]);
    _mm256_storeu_si256(q, _mm256_permute2x128_si256(lo, hi, 0x20));
    _mm256_storeu_si256(q + 1, _mm256_permute2x128_si256(lo, hi, 0x31));
  }
}

__attribute__((target("avx2"))) void uninterleave_avx2(const superinfo_t* in, superinfo_t* out,
                                                       size_t n) {
  const __m256i low = _mm256_set1_epi16(0x00ff);
  for (size_t i = 0; i < n; i++) {
    const __m256i* p = reinterpret_cast<const __m256i*>(&in[i]);
    const __m256i x0 = unshuffle16_avx2(_mm256_loadu_si256(p));
    const __m256i x1 = unshuffle16_avx2(_mm256_loadu_si256(p + 1));
    const __m256i lo = _mm256_permute2x128_si256(x0, x1, 0x20);
    const __m256i hi = _mm256_permute2x128_si256(x0, x1, 0x31);
    __m256i* q = reinterpret_cast<__m256i*>(&out[i]);
    _mm256_storeu_si256(q,
                        _mm256_packus_epi16(_mm256_and_si256(lo, low), _mm256_and_si256(hi, low)));
    _mm256_storeu_si256(q + 1,
                        _mm256_packus_epi16(_mm256_srli_epi16(lo, 8), _mm256_srli_epi16(hi, 8)));
  }
}
#endif  // PENTAGO_X86

using filter_fn = void (*)(const superinfo_t*, superinfo_t*, size_t);

filter_fn interleave_fn() {
#if PENTAGO_X86
  switch (current_simd_level()) {
    case simd_level::avx2:
      return interleave_avx2;
    case simd_level::sse:
      return interleave_sse;
    case simd_level::portable:
      break;
  }
#endif
  return interleave_portable;
}

filter_fn uninterleave_fn() {
#if PENTAGO_X86
  switch (current_simd_level()) {
    case simd_level::avx2:
      return uninterleave_avx2;
    case simd_level::sse:
      return uninterleave_sse;
    case simd_level::portable:
      break;
  }
#endif
  return uninterleave_portable;
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

void fast_compress(std::span<superinfo_t> nodes, std::vector<uint8_t>& out) {
  interleave(nodes);
  // Compress into scratch so that `out` never pays for zero-filling the whole bound.
  const auto buffer = scratch_bytes(fast_compress_bound(nodes.size()));
  const size_t size = compress_filtered(nodes.data(), nodes.size(), buffer.data());
  out.assign(buffer.data(), buffer.data() + size);
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
  uninterleave(nodes);
}

void compress_block_lzma(std::span<const uint8_t> data, std::vector<uint8_t>& out, int preset) {
  if (preset < 0 || preset > 9) throw error("xz preset " + std::to_string(preset) + " not in 0..9");
  out.resize(lzma_stream_buffer_bound(data.size()));
  size_t pos = 0;
  const lzma_ret r =
      lzma_easy_buffer_encode(uint32_t(preset), LZMA_CHECK_CRC64, nullptr, data.data(), data.size(),
                              out.data(), &pos, out.size());
  if (r != LZMA_OK) throw error("xz compression failed (liblzma error " + std::to_string(r) + ")");
  out.resize(pos);
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
