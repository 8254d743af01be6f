// The in-core block codec on real blocks: every sampled block of slice 35 of a root (one open
// quadrant, so one line gives its value) is compressed by fast_compress with each built-in codec
// of the codec table (--codec) and by byte-plane filter variants ahead of Snappy; prints, per
// variant, the compressed ratio and the CPU time of compress and decompress per block, plus the
// share of nodes whose 256 rotation values are uniform (all loss, all tie, all win).
//
// Usage: store_codec_bench [ROOT] [BLOCKS]   (default 44444454, 64 blocks)
#include <snappy.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "pentago/data/compress.h"
#include "pentago/end/line_compute.h"
#include "pentago/layout/blocks.h"
#include "pentago/layout/line_mapping.h"
#include "pentago/layout/section.h"

using namespace pentago;

namespace {

double cpu_seconds() { return double(std::clock()) / CLOCKS_PER_SEC; }

// Byte planes over nodes: byte k of every node, then byte k+1, ... (the inverse of gather).
void byte_planes(const uint8_t* in, uint8_t* out, size_t nodes, size_t width) {
  const size_t planes = 64 / width;
  for (size_t p = 0; p < planes; p++)
    for (size_t i = 0; i < nodes; i++)
      std::memcpy(out + (p * nodes + i) * width, in + i * 64 + p * width, width);
}
void unbyte_planes(const uint8_t* in, uint8_t* out, size_t nodes, size_t width) {
  const size_t planes = 64 / width;
  for (size_t p = 0; p < planes; p++)
    for (size_t i = 0; i < nodes; i++)
      std::memcpy(out + i * 64 + p * width, in + (p * nodes + i) * width, width);
}

struct tally_t {
  uint64_t raw = 0, compressed = 0;
  double compress_s = 0, decompress_s = 0;
  int blocks = 0;
};

void run_variant(tally_t& t, const std::vector<superinfo_t>& block, size_t width) {
  const size_t n = block.size();
  std::vector<superinfo_t> filtered(n), planes(n), back(n);
  std::string bytes;
  const int reps = 3;
  double c0 = cpu_seconds();
  for (int r = 0; r < reps; r++) {
    interleave(block, filtered);
    const char* src = reinterpret_cast<const char*>(filtered.data());
    if (width) {
      byte_planes(reinterpret_cast<const uint8_t*>(filtered.data()),
                  reinterpret_cast<uint8_t*>(planes.data()), n, width);
      src = reinterpret_cast<const char*>(planes.data());
    }
    bytes.clear();
    snappy::Compress(src, 64 * n, &bytes);
  }
  double c1 = cpu_seconds();
  for (int r = 0; r < reps; r++) {
    snappy::RawUncompress(bytes.data(), bytes.size(), reinterpret_cast<char*>(planes.data()));
    if (width)
      unbyte_planes(reinterpret_cast<const uint8_t*>(planes.data()),
                    reinterpret_cast<uint8_t*>(filtered.data()), n, width);
    uninterleave(width ? filtered : planes, back);
  }
  double c2 = cpu_seconds();
  if (back != block) std::fprintf(stderr, "variant %zu does not round-trip\n", width);
  t.raw += 64 * n;
  t.compressed += bytes.size();
  t.compress_s += (c1 - c0) / reps;
  t.decompress_s += (c2 - c1) / reps;
  t.blocks++;
}

// fast_compress / fast_uncompress as the store runs them (filter included), with `codec`.
void run_codec(tally_t& t, const std::vector<superinfo_t>& block, block_codec_t codec) {
  const size_t n = block.size();
  std::vector<superinfo_t> back(n);
  std::vector<uint8_t> bytes(fast_compress_bound(n));
  const int reps = 3;
  size_t size = 0;
  const double c0 = cpu_seconds();
  for (int r = 0; r < reps; r++)
    size = fast_compress(std::span<const superinfo_t>(block), bytes, codec);
  const double c1 = cpu_seconds();
  for (int r = 0; r < reps; r++)
    fast_uncompress(std::span<const uint8_t>(bytes.data(), size), back);
  const double c2 = cpu_seconds();
  if (back != block)
    std::fprintf(stderr, "codec %s does not round-trip\n", block_codec_name(codec));
  t.raw += 64 * n;
  t.compressed += size;
  t.compress_s += (c1 - c0) / reps;
  t.decompress_s += (c2 - c1) / reps;
  t.blocks++;
}

}  // namespace

int main(int argc, char** argv) {
  const section_t root = section_t::parse(argc > 1 ? argv[1] : "44444454");
  const int samples = argc > 2 ? std::stoi(argv[2]) : 64;
  const auto slices = descendant_sections(root);
  const auto& top = slices[35];
  uint64_t total = 0;
  for (const auto& s : top) total += section_block_count(s);
  const size_t widths[] = {0, 1, 2, 4, 8};
  tally_t whole[5];
  const auto codecs = block_codecs();  // every row of the codec table
  std::vector<tally_t> codec_whole(codecs.size());
  uint64_t nodes = 0, uniform[3] = {0, 0, 0};
  for (int k = 0; k < samples && uint64_t(k) < total; k++) {
    uint64_t flat = uint64_t(k) * total / uint64_t(samples);
    int si = 0;
    while (flat >= section_block_count(top[si])) flat -= section_block_count(top[si++]);
    const section_t& s = top[si];
    const block_t b = block_from_index(s, flat);
    std::vector<superinfo_t> value;
    compute_top_block(s, b, value);
    for (const auto& v : value) {
      nodes++;
      if (!v.win && !v.notlose)
        uniform[0]++;
      else if (!v.win && v.notlose == super_t::ones())
        uniform[1]++;
      else if (v.win == super_t::ones())
        uniform[2]++;
    }
    for (int w = 0; w < 5; w++) run_variant(whole[w], value, widths[w]);
    for (size_t c = 0; c < codecs.size(); c++)
      if (codecs[c].built_in) run_codec(codec_whole[c], value, codecs[c].id);
  }
  std::printf("root %s, %d blocks of slice 35 (%llu nodes)\n", root.str().c_str(), whole[0].blocks,
              (unsigned long long)nodes);
  std::printf("uniform nodes: loss %.2f%%, tie %.2f%%, win %.2f%%\n", 100.0 * uniform[0] / nodes,
              100.0 * uniform[1] / nodes, 100.0 * uniform[2] / nodes);
  std::printf("%-34s %8s %12s %12s\n", "codec (--codec, interleave filter)", "ratio", "comp us/blk",
              "dec us/blk");
  for (size_t c = 0; c < codecs.size(); c++) {
    if (!codecs[c].built_in) {
      std::printf("%-34s not built in\n", codecs[c].name);
      continue;
    }
    const tally_t& w = codec_whole[c];
    std::printf("%-34s %8.3f %12.1f %12.1f\n", codecs[c].name, double(w.compressed) / double(w.raw),
                1e6 * w.compress_s / w.blocks, 1e6 * w.decompress_s / w.blocks);
  }
  std::printf("%-34s %8s %12s %12s\n", "filter ahead of Snappy", "ratio", "comp us/blk",
              "dec us/blk");
  const char* names[] = {"interleave (today)", "interleave + byte planes",
                         "interleave + 2-byte planes", "interleave + 4-byte planes",
                         "interleave + 8-byte planes"};
  for (int w = 0; w < 5; w++)
    std::printf(
        "%-34s %8.3f %12.1f %12.1f\n", names[w], double(whole[w].compressed) / double(whole[w].raw),
        1e6 * whole[w].compress_s / whole[w].blocks, 1e6 * whole[w].decompress_s / whole[w].blocks);
  return 0;
}
