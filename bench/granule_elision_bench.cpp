// Google Benchmark of granule elision (src/data/granule_elision.h) and its restore at each loop
// the SIMD levels use: the portable reference, the SSE one (SSE and AVX2 levels) and the
// AVX-512 one (both AVX-512 levels), and the restore to the solver's nodes at the AVX-512 VBMI
// level in two passes and in one, and in one from blocks past the caches. The input is 64
// interleaved blocks of a root's slice 35 (25263480: 0.37 of the bytes kept); bytes/s counts the
// nodes' bytes.
#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

#include "granule_elision.h"
#include "pentago/base/super.h"
#include "pentago/data/compress.h"
#include "pentago/end/line_compute.h"
#include "pentago/layout/blocks.h"
#include "pentago/layout/section.h"

namespace pentago {
namespace {

constexpr size_t most_nodes = size_t(block_size) * block_size * block_size * block_size;

struct loops_t {
  detail::elide_fn_t elide;
  detail::restore_fn_t restore;
  simd_level_t needs;
};

loops_t loops(int which) {
  switch (which) {
    case 0:
      return {detail::elide_granules_portable, detail::restore_granules_portable,
              simd_level_t::portable};
    case 1:
      return {detail::elide_granules_sse, detail::restore_granules_sse, simd_level_t::sse};
    default:
      return {detail::elide_granules_avx512, detail::restore_granules_avx512, simd_level_t::avx512};
  }
}

// The interleaved blocks and each one's elided form (by the portable loop).
struct blocks_t {
  std::vector<std::vector<superinfo_t>> filtered;
  std::vector<std::vector<uint8_t>> elided;
  uint64_t bytes = 0;
};

const blocks_t& blocks() {
  static const blocks_t b = [] {
    blocks_t r;
    const auto slices = descendant_sections(section_t::parse("25263480"));
    const auto& top = slices[35];
    uint64_t total = 0;
    for (const auto& s : top) total += section_block_count(s);
    for (int k = 0; k < 64; k++) {
      uint64_t flat = uint64_t(k) * total / 64;
      size_t si = 0;
      while (flat >= section_block_count(top[si])) flat -= section_block_count(top[si++]);
      const block_t block = block_from_index(top[si], flat);
      std::vector<superinfo_t> v(size_t(block_nodes(top[si], block)));
      compute_top_block(top[si], block, v);
      interleave(std::span<superinfo_t>(v));
      std::vector<uint8_t> e(detail::elision_bound(v.size()));
      e.resize(detail::elide_granules_portable(reinterpret_cast<const uint8_t*>(v.data()), v.size(),
                                               e.data()));
      r.bytes += 64 * v.size();
      r.filtered.push_back(std::move(v));
      r.elided.push_back(std::move(e));
    }
    return r;
  }();
  return b;
}

void elide(benchmark::State& state) {
  const loops_t l = loops(int(state.range(0)));
  if (!simd_supported(l.needs)) return state.SkipWithError("this CPU lacks the loop's ISA");
  const blocks_t& b = blocks();
  std::vector<uint8_t> out(detail::elision_bound(most_nodes));
  for (auto _ : state)
    for (const auto& v : b.filtered)
      benchmark::DoNotOptimize(
          l.elide(reinterpret_cast<const uint8_t*>(v.data()), v.size(), out.data()));
  state.SetBytesProcessed(int64_t(state.iterations() * b.bytes));
}

void restore(benchmark::State& state) {
  const loops_t l = loops(int(state.range(0)));
  if (!simd_supported(l.needs)) return state.SkipWithError("this CPU lacks the loop's ISA");
  const blocks_t& b = blocks();
  std::vector<uint8_t> out(64 * most_nodes);
  for (auto _ : state)
    for (size_t i = 0; i < b.filtered.size(); i++) {
      const size_t nodes = b.filtered[i].size();
      const auto& e = b.elided[i];
      l.restore(e.data(), e.data() + detail::elision_mask_bytes(nodes), e.data() + e.size(), nodes,
                out.data());
      benchmark::DoNotOptimize(out.data());
    }
  state.SetBytesProcessed(int64_t(state.iterations() * b.bytes));
  // The last block restored: it must be the block elided.
  const auto& last = b.filtered.back();
  if (std::memcmp(out.data(), last.data(), 64 * last.size()))
    state.SkipWithError("restore disagrees with the block");
}

// The elided blocks copied one after another over 256 MiB, past every cache, as the engine
// mostly finds the blocks it reads: each copy's offset.
struct spread_t {
  std::vector<uint8_t> bytes;
  std::vector<size_t> offset;
};

const spread_t& spread() {
  static const spread_t s = [] {
    spread_t r;
    const blocks_t& b = blocks();
    // Whole rounds of the blocks, so that copy k holds block k % 64.
    size_t round = 0;
    for (const auto& e : b.elided) round += (e.size() + 63) / 64 * 64;
    r.bytes.resize((size_t(256) << 20) / round * round);
    for (size_t at = 0, i = 0; at < r.bytes.size(); i++) {
      const auto& e = b.elided[i % b.elided.size()];
      std::memcpy(r.bytes.data() + at, e.data(), e.size());
      r.offset.push_back(at);
      at += (e.size() + 63) / 64 * 64;
    }
    return r;
  }();
  return s;
}

// Restoring blocks to the solver's nodes at the AVX-512 VBMI level: argument 0 restores, then
// undoes the interleave filter in a second pass over the block; 1 does both in one pass; 2 does
// both in one pass from blocks spread past the caches (64 of them per repetition, in turn).
void restore_uninterleaved(benchmark::State& state) {
  if (!simd_supported(simd_level_t::avx512vbmi))
    return state.SkipWithError("this CPU lacks AVX-512 VBMI");
  const simd_level_t was = current_simd_level();
  set_simd_level(simd_level_t::avx512vbmi);
  const int way = int(state.range(0));
  const blocks_t& b = blocks();
  const spread_t* s = way == 2 ? &spread() : nullptr;
  std::vector<superinfo_t> out(most_nodes);
  auto* bytes = reinterpret_cast<uint8_t*>(out.data());
  size_t copy = 0;
  for (auto _ : state)
    for (size_t i = 0; i < b.filtered.size(); i++) {
      const size_t nodes = b.filtered[i].size();
      const auto& e = b.elided[i];
      const uint8_t* start = s ? s->bytes.data() + s->offset[copy] : e.data();
      if (s) copy = (copy + 1) % s->offset.size();
      const uint8_t* literal = start + detail::elision_mask_bytes(nodes);
      if (way) {
        detail::restore_granules_uninterleaved_avx512vbmi(start, literal, start + e.size(), nodes,
                                                          bytes);
      } else {
        detail::restore_granules_avx512(start, literal, start + e.size(), nodes, bytes);
        uninterleave(std::span<superinfo_t>(out.data(), nodes));
      }
      benchmark::DoNotOptimize(out.data());
    }
  state.SetBytesProcessed(int64_t(state.iterations() * b.bytes));
  const auto& last = b.filtered.back();
  std::vector<superinfo_t> expected(last);
  uninterleave(std::span<superinfo_t>(expected));
  set_simd_level(was);
  if (std::memcmp(out.data(), expected.data(), 64 * expected.size()))
    state.SkipWithError("restore disagrees with the block");
}

// Argument: 0 portable, 1 SSE, 2 AVX-512.
BENCHMARK(elide)->DenseRange(0, 2);
BENCHMARK(restore)->DenseRange(0, 2);
BENCHMARK(restore_uninterleaved)->DenseRange(0, 2);

}  // namespace
}  // namespace pentago

BENCHMARK_MAIN();
