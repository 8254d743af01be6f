// Google Benchmark of the super kernels (rmax, super_wins, transform_super) at every SIMD level.
// Each call covers the 256 positions of one super; counters give ns per call and positions/s.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <random>
#include <vector>

#include "pentago/base/super.h"

namespace pentago {
namespace {

constexpr int batch = 1024;  // inputs cycled through, so results are not constant-folded

std::vector<super_t> random_supers() {
  std::mt19937_64 rng(17);
  std::vector<super_t> v(batch);
  for (auto& s : v)
    for (auto& w : s.w) w = rng();
  return v;
}

// Sides of random boards with 17 stones of each colour, as the endgame sees them.
std::vector<side_t> random_sides() {
  std::mt19937_64 rng(18);
  std::vector<side_t> v(batch);
  for (auto& side : v) {
    int cells[36];
    for (int i = 0; i < 36; i++) cells[i] = i;
    std::shuffle(cells, cells + 36, rng);
    side = 0;
    for (int i = 0; i < 17; i++) side |= side_t(1) << (16 * (cells[i] / 9) + cells[i] % 9);
  }
  return v;
}

// Skips the benchmark when the CPU lacks the level; otherwise selects it.
bool select_level(benchmark::State& state, simd_level_t level) {
  if (!simd_supported(level)) {
    state.SkipWithError("SIMD level not supported by this CPU");
    return false;
  }
  set_simd_level(level);
  return true;
}

void set_counters(benchmark::State& state) {
  const double calls = double(state.iterations());
  state.counters["time_per_call"] =
      benchmark::Counter(calls, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["positions_per_s"] = benchmark::Counter(256 * calls, benchmark::Counter::kIsRate);
}

void bm_rmax(benchmark::State& state, simd_level_t level) {
  if (!select_level(state, level)) return;
  const auto in = random_supers();
  super_t out;
  size_t i = 0;
  for (auto _ : state) {
    active_super_kernels->rmax(in[i++ & (batch - 1)], out);
    benchmark::DoNotOptimize(out);
  }
  set_counters(state);
}

void bm_super_wins(benchmark::State& state, simd_level_t level) {
  if (!select_level(state, level)) return;
  const auto sides = random_sides();
  super_t out;
  size_t i = 0;
  for (auto _ : state) {
    active_super_kernels->wins(sides[i++ & (batch - 1)], out);
    benchmark::DoNotOptimize(out);
  }
  set_counters(state);
}

// All 2048 symmetries in a fixed pseudorandom order (global part varies call to call), or
// only those with global part state.range(0) when it is in 0..7.
void bm_transform(benchmark::State& state, simd_level_t level) {
  if (!select_level(state, level)) return;
  const auto in = random_supers();
  const int global = int(state.range(0));
  std::mt19937_64 rng(19);
  std::vector<symmetry_t> syms(batch);
  for (auto& s : syms) {
    const int idx = int(rng() & 2047);
    s = global < 8 ? symmetry_t(global, idx & 255) : symmetry_t::from_index(idx);
  }
  super_t out;
  size_t i = 0;
  for (auto _ : state) {
    const size_t k = i++ & (batch - 1);
    active_super_kernels->transform(syms[k], in[k], out);
    benchmark::DoNotOptimize(out);
  }
  set_counters(state);
}

#define PENTAGO_LEVELS(bm)                                                \
  BENCHMARK_CAPTURE(bm, portable, simd_level_t::portable) TRANSFORM_ARGS; \
  BENCHMARK_CAPTURE(bm, sse, simd_level_t::sse) TRANSFORM_ARGS;           \
  BENCHMARK_CAPTURE(bm, avx2, simd_level_t::avx2) TRANSFORM_ARGS

#define TRANSFORM_ARGS
PENTAGO_LEVELS(bm_rmax);
PENTAGO_LEVELS(bm_super_wins);
#undef TRANSFORM_ARGS
// Argument: global part 0..7, or 8 for all 2048 symmetries mixed.
#define TRANSFORM_ARGS ->DenseRange(0, 8)
PENTAGO_LEVELS(bm_transform);
#undef TRANSFORM_ARGS

}  // namespace
}  // namespace pentago

BENCHMARK_MAIN();
