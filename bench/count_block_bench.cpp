// Google Benchmark of count_block, the win counts of a complete block (block_store.h), per SIMD
// level: time per node over the blocks of one section, each block cached as the engine's are
// when it counts them (just computed).
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "pentago/base/super.h"
#include "pentago/end/block_store.h"
#include "pentago/layout/blocks.h"
#include "pentago/layout/section.h"

namespace pentago {
namespace {

void bm_count_block(benchmark::State& state, const char* section_name, simd_level_t level) {
  if (!simd_supported(level)) {
    state.SkipWithError("SIMD level not supported by this CPU");
    return;
  }
  const section_t s = section_t::parse(section_name).standardize();
  const uint64_t blocks = std::min<uint64_t>(section_block_count(s), 64);
  std::mt19937_64 rng(7);
  std::vector<superinfo_t> values(4096);
  for (auto& v : values)
    for (int i = 0; i < 4; i++) v.win.w[i] = rng() & rng(), v.notlose.w[i] = v.win.w[i] | rng();
  const simd_level_t saved = current_simd_level();
  set_simd_level(level);
  uint64_t nodes = 0;
  for (auto _ : state)
    for (uint64_t f = 0; f < blocks; f++) {
      const block_t b = block_from_index(s, f);
      const size_t n = size_t(block_nodes(s, b));
      benchmark::DoNotOptimize(count_block(s, b, std::span(values.data(), n)));
      nodes += n;
    }
  set_simd_level(saved);
  state.counters["time_per_node"] =
      benchmark::Counter(double(nodes), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

#define PENTAGO_COUNT_CASES(name, section)                                             \
  BENCHMARK_CAPTURE(bm_count_block, name##_portable, section, simd_level_t::portable); \
  BENCHMARK_CAPTURE(bm_count_block, name##_avx512, section, simd_level_t::avx512);     \
  BENCHMARK_CAPTURE(bm_count_block, name##_avx512vbmi, section, simd_level_t::avx512vbmi)
PENTAGO_COUNT_CASES(s33_44444454, "44444454");
PENTAGO_COUNT_CASES(s30_44444433, "44444433");

}  // namespace
}  // namespace pentago

BENCHMARK_MAIN();
