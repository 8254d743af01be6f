// The interleave filter's dispatch (its ISA versions are interleave_*.cpp), fast in-core
// compression with a flag byte through the codec table (compress_codecs.cpp), and xz block
// compression through liblzma's one-shot API.
#include "pentago/data/compress.h"

#include <lzma.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "granule_elision.h"
#include "interleave_simd.h"
#include "pentago/util/error.h"
#include "pentago/util/stream_copy.h"

namespace pentago {

static_assert(sizeof(superinfo_t) == 64 && sizeof(super_t) == 32);

namespace {

detail::interleave_fn_t interleave_fn() {
  switch (current_simd_level()) {
    case simd_level_t::avx512vbmi:
      return detail::interleave_avx512vbmi;
    case simd_level_t::avx2:
    case simd_level_t::avx512:
      return detail::interleave_avx2;
    case simd_level_t::sse:
      return detail::interleave_sse;
    case simd_level_t::portable:
      break;
  }
  return detail::interleave_portable;
}

detail::interleave_fn_t uninterleave_fn() {
  switch (current_simd_level()) {
    case simd_level_t::avx512vbmi:
      return detail::uninterleave_avx512vbmi;
    case simd_level_t::avx2:
    case simd_level_t::avx512:
      return detail::uninterleave_avx2;
    case simd_level_t::sse:
      return detail::uninterleave_sse;
    case simd_level_t::portable:
      break;
  }
  return detail::uninterleave_portable;
}

// Thread-local node scratch for the non-destructive compressor.
std::span<superinfo_t> scratch_nodes(size_t n) {
  thread_local std::vector<superinfo_t> scratch;
  return scratch_span(scratch, n);
}

// Thread-local byte scratch, one buffer per use: a compressed output and the elided bytes it
// is made from are alive at once.
enum class scratch_use_t { output, elided };
template <scratch_use_t use>
std::span<uint8_t> scratch_bytes(size_t n) {
  thread_local std::vector<uint8_t> scratch;
  if (scratch.size() < n) scratch.resize(n);
  return {scratch.data(), n};
}

// Granule elision ahead of the codec (granule_elision.h, elided_flag): the flag, a u32 of the
// node count, then the codec's stream of the elided bytes.
constexpr size_t elided_header = 5;

bool elided(uint8_t flag) { return flag != raw_block_flag && (flag & elided_flag); }
static_assert(uint8_t(block_codec_t::snappy) < elided_flag &&
              uint8_t(block_codec_t::zstd) < elided_flag &&
              uint8_t(block_codec_t::lz4) < elided_flag);

// The row of each flag byte (null: none), for the decoders.
const std::array<const block_codec_row_t*, 256>& row_of_flag() {
  static const std::array<const block_codec_row_t*, 256> table = [] {
    std::array<const block_codec_row_t*, 256> t{};
    for (const block_codec_row_t& row : block_codecs()) t[uint8_t(row.id)] = &row;
    return t;
  }();
  return table;
}

// The built-in row of a flag byte (with or without elision); throws unless there is one.
const block_codec_row_t& decoder_of(uint8_t flag) {
  const block_codec_row_t* row = row_of_flag()[elided(flag) ? flag & ~elided_flag : flag];
  if (!row || !row->built_in)
    throw pentago_error_t("fast_uncompress: bad flag byte " + std::to_string(flag));
  return *row;
}

void write_elided_header(uint8_t* at, uint8_t flag, size_t nodes) {
  at[0] = flag;
  const uint32_t nodes32 = uint32_t(nodes);
  std::memcpy(at + 1, &nodes32, 4);
}

// Compresses already filtered nodes with `codec`, after granule elision where it leaves at most
// the row's share of the bytes, or stores them raw where that is no smaller. Where elision runs
// and its form fits in `elided_room` bytes (flag and node count included), that form is kept
// without the codec; *elided_size gets its size (0 where elision did not run). The bytes lie in
// this thread's scratch, until its next call: the elided bytes are written after room for
// their header, so that every form is made where it is returned, without a copy.
std::span<const uint8_t> compress_filtered(const superinfo_t* nodes, size_t n,
                                           const block_codec_row_t& codec, size_t elided_room = 0,
                                           size_t* elided_size = nullptr) {
  const size_t raw = 64 * n;
  const auto out = scratch_bytes<scratch_use_t::output>(fast_compress_bound(n));
  if (elided_size) *elided_size = 0;
  // Elided where the row allows it and elision leaves little enough; else the codec alone.
  bool elide = raw && codec.may_elide();
  if (elide) {
    const auto elided =
        scratch_bytes<scratch_use_t::elided>(elided_header + detail::elision_bound(n));
    uint8_t* const bytes = elided.data() + elided_header;
    const size_t size = detail::elide_granules(reinterpret_cast<const uint8_t*>(nodes), n, bytes);
    if (elided_size) *elided_size = elided_header + size;
    // (The elided form is at most elision_bound(n), below raw + 2 n: never near SIZE_MAX.)
    const size_t kept = std::min(size, detail::elision_bound(n));
    if (elided_room >= elided_header && kept <= elided_room - elided_header &&
        elided_header + kept < 1 + raw) {
      write_elided_header(elided.data(), elided_flag, n);
      return {elided.data(), elided_header + kept};
    }
    elide = double(size) <= codec.elision_limit * double(raw);
    const size_t length = elide ? codec.compress(bytes, size, out.data() + elided_header) : 0;
    if (length && elided_header + length < 1 + raw) {
      write_elided_header(out.data(), uint8_t(codec.id) | elided_flag, n);
      return {out.data(), elided_header + length};
    }
  }
  if (raw && !elide) {
    const size_t length = codec.compress(reinterpret_cast<const uint8_t*>(nodes), raw, &out[1]);
    if (length && length < raw) {
      out[0] = uint8_t(codec.id);
      return {out.data(), 1 + length};
    }
  }
  out[0] = 0;
  if (raw) std::memcpy(&out[1], nodes, raw);
  return {out.data(), 1 + raw};
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

const block_codec_row_t& block_codec_info(block_codec_t codec) {
  const block_codec_row_t* row = row_of_flag()[uint8_t(codec)];
  if (!row) throw pentago_error_t("no block codec has the flag " + std::to_string(int(codec)));
  return *row;
}

std::vector<block_codec_t> block_codec_auto_order() {
  std::vector<const block_codec_row_t*> rows;
  for (const block_codec_row_t& row : block_codecs())
    if (row.built_in && row.auto_place > 0) rows.push_back(&row);
  std::sort(rows.begin(), rows.end(), [](const block_codec_row_t* a, const block_codec_row_t* b) {
    return a->auto_place < b->auto_place;
  });
  std::vector<block_codec_t> order;
  for (const block_codec_row_t* row : rows) order.push_back(row->id);
  return order;
}

const block_codec_row_t& least_cpu_block_codec() {
  const block_codec_row_t* first = nullptr;
  for (const block_codec_row_t& row : block_codecs())
    if (row.auto_place > 0 && (!first || row.auto_place < first->auto_place)) first = &row;
  PENTAGO_CHECK(first, "no block codec has a place in the auto order");
  return *first;
}

bool block_codec_available(block_codec_t codec) {
  const block_codec_row_t* row = row_of_flag()[uint8_t(codec)];
  return row && row->built_in;
}

const char* block_codec_name(block_codec_t codec) { return block_codec_info(codec).name; }

block_codec_t parse_block_codec(const std::string& name) {
  std::string names;
  const auto rows = block_codecs();
  for (size_t i = 0; i < rows.size(); i++) {
    if (name == rows[i].name) {
      if (!rows[i].built_in)
        throw usage_error_t("codec " + name + " is not built in (install lib" + name +
                            "-dev and rebuild)");
      return rows[i].id;
    }
    names += (i == 0 ? "" : i + 1 == rows.size() ? " or " : ", ") + std::string(rows[i].name);
  }
  throw usage_error_t("unknown codec '" + name + "' (" + names + ")");
}

void require_block_codec(block_codec_t codec) {
  if (!block_codec_available(codec))
    throw pentago_error_t(std::string("codec ") + block_codec_name(codec) + " is not built in");
}

size_t fast_compress_bound(size_t nodes) {
  // The largest of the built-in codecs' bounds (Snappy's, 32 + n + n / 6, is above zstd's and
  // LZ4's, about n + n / 255).
  size_t bound = 0;
  for (const block_codec_row_t& row : block_codecs())
    if (row.built_in) bound = std::max(bound, row.bound(detail::elision_bound(nodes)));
  return std::max(elided_header + bound, 1 + 64 * nodes);
}

std::span<const uint8_t> fast_compress_filtered_view(std::span<const superinfo_t> filtered,
                                                     block_codec_t codec, size_t elided_room,
                                                     size_t* elided_size) {
  require_block_codec(codec);
  return compress_filtered(filtered.data(), filtered.size(), block_codec_info(codec), elided_room,
                           elided_size);
}

std::span<const uint8_t> fast_compress_view(std::span<superinfo_t> nodes, block_codec_t codec,
                                            size_t elided_room, size_t* elided_size) {
  interleave(nodes);
  return fast_compress_filtered_view(nodes, codec, elided_room, elided_size);
}

void fast_compress_filtered(std::span<const superinfo_t> filtered, std::vector<uint8_t>& out,
                            block_codec_t codec) {
  const auto bytes = fast_compress_filtered_view(filtered, codec);
  out.assign(bytes.begin(), bytes.end());
}

void fast_compress(std::span<superinfo_t> nodes, std::vector<uint8_t>& out, block_codec_t codec,
                   size_t elided_room, size_t* elided_size) {
  const auto bytes = fast_compress_view(nodes, codec, elided_room, elided_size);
  out.assign(bytes.begin(), bytes.end());
}

void fast_store_raw(std::span<const superinfo_t> nodes, uint8_t* out) {
  PENTAGO_CHECK(reinterpret_cast<uintptr_t>(out) % 64 == 0, "fast_store_raw: unaligned output");
  out[0] = raw_block_flag;
  std::memset(out + 1, 0, 63);
  if (!nodes.empty()) stream_copy(out + 64, nodes.data(), nodes.size_bytes());
}

const superinfo_t* raw_block_nodes(std::span<const uint8_t> bytes, size_t nodes) {
  if (bytes.size() != raw_block_bytes(nodes) || bytes[0] != raw_block_flag ||
      reinterpret_cast<uintptr_t>(bytes.data()) % 64)
    return nullptr;
  return reinterpret_cast<const superinfo_t*>(bytes.data() + 64);
}

size_t fast_compress(std::span<const superinfo_t> nodes, std::span<uint8_t> out,
                     block_codec_t codec) {
  require_block_codec(codec);
  PENTAGO_CHECK(out.size() >= fast_compress_bound(nodes.size()),
                "fast_compress output buffer too small");
  const auto filtered = scratch_nodes(nodes.size());
  interleave(nodes, filtered);
  const auto bytes = compress_filtered(filtered.data(), filtered.size(), block_codec_info(codec));
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return bytes.size();
}

size_t fast_uncompressed_nodes(std::span<const uint8_t> compressed) {
  if (compressed.empty()) throw pentago_error_t("fast_uncompress: empty buffer");
  if (compressed[0] == raw_block_flag) {
    if (compressed.size() < 64 || compressed.size() % 64)
      throw pentago_error_t("fast_uncompress: uncompressed block of " +
                            std::to_string(compressed.size()) + " bytes is not whole nodes");
    return compressed.size() / 64 - 1;
  }
  if (elided(compressed[0])) {
    if (compressed[0] != elided_flag) decoder_of(compressed[0]);  // a known, built-in codec
    if (compressed.size() < elided_header)
      throw pentago_error_t("fast_uncompress: elided block of " +
                            std::to_string(compressed.size()) + " bytes has no node count");
    uint32_t nodes;
    std::memcpy(&nodes, compressed.data() + 1, 4);
    return nodes;
  }
  const uint8_t* data = compressed.data() + 1;
  const size_t size = compressed.size() - 1;
  const size_t length = compressed[0] ? decoder_of(compressed[0]).decoded_bytes(data, size) : size;
  if (length % 64)
    throw pentago_error_t("fast_uncompress: decoded length " + std::to_string(length) +
                          " is not a multiple of 64");
  return length / 64;
}

namespace {

// The nodes a fast-compressed buffer decodes to (its flag and recorded length checked once, by
// fast_uncompressed_nodes), which must be `expected`.
size_t checked_nodes(std::span<const uint8_t> compressed, size_t expected) {
  const size_t n = fast_uncompressed_nodes(compressed);
  if (n != expected)
    throw pentago_error_t("fast_uncompress: decoded " + std::to_string(n) + " nodes, expected " +
                          std::to_string(expected));
  return n;
}

// An elided block's elided bytes: behind the header as they are (the flag alone), or decoded
// from the codec's stream into this thread's scratch.
std::span<const uint8_t> elided_bytes(std::span<const uint8_t> compressed, size_t nodes) {
  const uint8_t* stream = compressed.data() + elided_header;
  const size_t stream_size = compressed.size() - elided_header;
  const block_codec_row_t* codec =
      compressed[0] == elided_flag ? nullptr : &decoder_of(compressed[0]);
  const size_t length = codec ? codec->decoded_bytes(stream, stream_size) : stream_size;
  if (length > detail::elision_bound(nodes))
    throw pentago_error_t("fast_uncompress: elided length " + std::to_string(length) +
                          " is too long for " + std::to_string(nodes) + " nodes");
  if (!codec) return {stream, stream_size};
  const auto decoded = scratch_bytes<scratch_use_t::elided>(length);
  codec->decompress(stream, stream_size, decoded.data(), length);
  return decoded;
}

}  // namespace

void fast_uncompress(std::span<const uint8_t> compressed, std::span<superinfo_t> nodes) {
  // An uncompressed block holds its nodes as they are: one copy, no filter.
  if (!compressed.empty() && compressed[0] == raw_block_flag) {
    if (const size_t n = checked_nodes(compressed, nodes.size()))
      std::memcpy(static_cast<void*>(nodes.data()), compressed.data() + 64, 64 * n);
    return;
  }
  // An elided one restores and un-interleaves its nodes in one pass where the level has one.
  if (!compressed.empty() && elided(compressed[0])) {
    const size_t n = checked_nodes(compressed, nodes.size());
    const auto bytes = elided_bytes(compressed, n);
    detail::restore_granules_uninterleaved(bytes.data(), bytes.size(), n, nodes.data());
    return;
  }
  fast_uncompress_filtered(compressed, nodes);
  uninterleave(nodes);
}

void fast_uncompress_filtered(std::span<const uint8_t> compressed, std::span<superinfo_t> nodes) {
  const size_t n = checked_nodes(compressed, nodes.size());
  const uint8_t* data = compressed.data() + 1;
  const size_t size = compressed.size() - 1;
  uint8_t* out = reinterpret_cast<uint8_t*>(nodes.data());
  if (elided(compressed[0])) {
    const auto bytes = elided_bytes(compressed, n);
    detail::restore_granules(bytes.data(), bytes.size(), n, out);
  } else if (compressed[0] == raw_block_flag) {
    std::memcpy(out, compressed.data() + 64, 64 * n);
    interleave(nodes.first(n));
  } else if (compressed[0])
    decoder_of(compressed[0]).decompress(data, size, out, 64 * n);
  else if (size)  // raw
    std::memcpy(out, data, size);
}

// A workspace hands liblzma's allocations out of the chunks the last encoding freed (the same
// sizes come back at every block of a preset); others come from malloc. At most
// `kept_chunks` freed chunks are kept.
struct xz_workspaces_t::workspace_t {
  static constexpr size_t kept_chunks = 16;
  struct chunk_t {
    size_t size;
    void* memory;
  };
  std::vector<chunk_t> free, lent;
  lzma_allocator allocator{&allocate, &release, this};

  ~workspace_t() {
    for (const chunk_t& c : free) std::free(c.memory);
    for (const chunk_t& c : lent) std::free(c.memory);
  }
  static void* allocate(void* opaque, size_t count, size_t size) {
    auto& w = *static_cast<workspace_t*>(opaque);
    if (size && count > SIZE_MAX / size) return nullptr;
    const size_t bytes = std::max<size_t>(count * size, 1);
    const auto same = std::find_if(w.free.begin(), w.free.end(),
                                   [&](const chunk_t& c) { return c.size == bytes; });
    void* memory = nullptr;
    if (same != w.free.end()) {
      memory = same->memory;
      w.free.erase(same);
    } else if (!(memory = std::malloc(bytes))) {
      return nullptr;
    }
    w.lent.push_back({bytes, memory});
    return memory;
  }
  static void release(void* opaque, void* memory) {
    if (!memory) return;
    auto& w = *static_cast<workspace_t*>(opaque);
    const auto it = std::find_if(w.lent.begin(), w.lent.end(),
                                 [&](const chunk_t& c) { return c.memory == memory; });
    PENTAGO_CHECK(it != w.lent.end(), "xz workspace: liblzma freed memory it was not given");
    w.free.push_back(*it);
    w.lent.erase(it);
    if (w.free.size() > kept_chunks) {
      std::free(w.free.front().memory);
      w.free.erase(w.free.begin());
    }
  }
};

xz_workspaces_t::xz_workspaces_t() = default;
xz_workspaces_t::~xz_workspaces_t() = default;

std::unique_ptr<xz_workspaces_t::workspace_t> xz_workspaces_t::take() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (!idle_.empty()) {
      auto w = std::move(idle_.back());
      idle_.pop_back();
      return w;
    }
  }
  return std::make_unique<workspace_t>();
}

void xz_workspaces_t::give(std::unique_ptr<workspace_t> workspace) {
  const std::lock_guard<std::mutex> lock(mutex_);
  idle_.push_back(std::move(workspace));
}

void compress_block_lzma(std::span<const uint8_t> data, std::vector<uint8_t>& out, int preset,
                         xz_workspaces_t* workspaces) {
  if (preset < 0 || preset > 9)
    throw pentago_error_t("xz preset " + std::to_string(preset) + " not in 0..9");
  // Encoded into this thread's scratch, then copied at its exact size: a vector shrunk after
  // encoding in place would keep the bound (the raw size) as capacity, and the MPI writer holds
  // every block of a rank's slice at once.
  thread_local std::vector<uint8_t> scratch;
  const size_t bound = lzma_stream_buffer_bound(data.size());
  if (scratch.size() < bound) scratch.resize(bound);
  size_t pos = 0;
  auto workspace = workspaces ? workspaces->take() : nullptr;
  const lzma_ret r = lzma_easy_buffer_encode(uint32_t(preset), LZMA_CHECK_CRC64,
                                             workspace ? &workspace->allocator : nullptr,
                                             data.data(), data.size(), scratch.data(), &pos, bound);
  if (workspace) workspaces->give(std::move(workspace));
  if (r != LZMA_OK)
    throw pentago_error_t("xz compression failed (liblzma error " + std::to_string(r) + ")");
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
    throw pentago_error_t(what + ": not xz data (bad magic; zlib blocks are not supported)");
  uint64_t memlimit = uint64_t(1) << 27;  // preset 9 needs about 65 MiB to decode
  size_t in_pos = 0, out_pos = 0;
  const lzma_ret r = lzma_stream_buffer_decode(&memlimit, 0, nullptr, compressed.data(), &in_pos,
                                               compressed.size(), out.data(), &out_pos, out.size());
  switch (r) {
    case LZMA_OK:
      break;
    case LZMA_BUF_ERROR:
      throw pentago_error_t(what + ": xz data is truncated or decodes to more than the expected " +
                            std::to_string(out.size()) + " bytes");
    case LZMA_DATA_ERROR:
      throw pentago_error_t(what + ": corrupt xz data (checksum or stream error)");
    case LZMA_FORMAT_ERROR:
      throw pentago_error_t(what + ": corrupt xz stream header");
    case LZMA_OPTIONS_ERROR:
      throw pentago_error_t(what + ": unsupported xz options");
    case LZMA_MEMLIMIT_ERROR:
      throw pentago_error_t(what + ": xz stream needs too much memory to decode");
    default:
      throw pentago_error_t(what + ": xz decompression failed (liblzma error " + std::to_string(r) +
                            ")");
  }
  if (out_pos != out.size())
    throw pentago_error_t(what + ": xz data decodes to " + std::to_string(out_pos) +
                          " bytes, expected " + std::to_string(out.size()));
  if (in_pos != compressed.size())
    throw pentago_error_t(what + ": " + std::to_string(compressed.size() - in_pos) +
                          " trailing bytes after the xz stream");
}

std::vector<uint8_t> uncompress_block(std::span<const uint8_t> compressed, size_t expected_size,
                                      const std::string& what) {
  std::vector<uint8_t> out(expected_size);
  uncompress_block(compressed, out, what);
  return out;
}

}  // namespace pentago
