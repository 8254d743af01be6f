// Google Benchmark of compute_line_block (the backward engine's node kernel) on real block
// lines with random child values, per SIMD level: ns per output node and nodes per second; the
// same merging into far held blocks, as the engine's store has it do; finish_block over complete
// blocks. And of compute_block_again on whole lines of slice-34 blocks, as slice 33 reads them:
// time per block.
#include <benchmark/benchmark.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "pentago/base/super.h"
#include "pentago/end/line_compute.h"
#include "pentago/layout/blocks.h"
#include "pentago/layout/line_mapping.h"

namespace pentago {
namespace {

// Some lines of one section (every non-full dimension, lines spread over the section) with
// pseudorandom input blocks.
struct line_case_t {
  struct one_line_t {
    line_dependency_t dep;
    std::vector<std::vector<superinfo_t>> blocks;
    std::vector<const superinfo_t*> inputs;
  };
  std::vector<one_line_t> lines;
  uint64_t nodes = 0;
};

const line_case_t& get_case(const std::string& section_name) {
  static std::map<std::string, std::unique_ptr<line_case_t>> cache;
  auto& slot = cache[section_name];
  if (slot) return *slot;
  slot = std::make_unique<line_case_t>();
  const section_t s = section_t::parse(section_name).standardize();
  const slice_lines_t lines(std::vector<section_t>{s});
  std::mt19937_64 rng(7);
  const uint64_t total = lines.total_lines(), count = std::min<uint64_t>(total, 6);
  for (uint64_t n = 0; n < count; n++) {
    line_case_t::one_line_t l{line_dependency_of(lines.line(n * total / count)), {}, {}};
    if (s.sum() < 35)
      for (int b = 0; b < l.dep.input.length(); b++) {
        std::vector<superinfo_t> block(block_nodes(l.dep.child, l.dep.input.block(b)));
        for (auto& v : block) {
          for (auto& w : v.win.w) w = rng() & rng();  // win implies notlose
          for (int i = 0; i < 4; i++) v.notlose.w[i] = v.win.w[i] | rng();
        }
        l.blocks.push_back(std::move(block));
      }
    for (auto& block : l.blocks) l.inputs.push_back(block.data());
    slot->nodes += l.dep.output.nodes();
    slot->lines.push_back(std::move(l));
  }
  return *slot;
}

// Writes the line's input blocks back out of every cache level, as the engine's input lines
// mostly are when their computation starts (just received or decompressed, by another thread).
void evict_inputs(const line_case_t::one_line_t& l) {
#if defined(__x86_64__)
  for (const auto& block : l.blocks)
    for (size_t i = 0; i < block.size(); i++) _mm_clflush(&block[i]);
  _mm_mfence();
#else
  static std::vector<uint8_t> sweep(size_t(128) << 20);  // larger than the last-level cache
  for (size_t i = 0; i < sweep.size(); i += 64) sweep[i]++;
  benchmark::DoNotOptimize(sweep.data());
  (void)l;
#endif
}

// Calls f(line, k, nodes) for each output block k (of `nodes` nodes) of each line of the case.
template <class F>
void for_each_block(const line_case_t& c, F&& f) {
  for (const auto& l : c.lines)
    for (int k = 0; k < l.dep.output.length(); k++)
      f(l, k, size_t(block_nodes(l.dep.output.section, l.dep.output.block(k))));
}

// The CPU time per output node of the case's lines over the benchmark's iterations.
void count_time_per_node(benchmark::State& state, const line_case_t& c) {
  const double nodes = double(c.nodes) * double(state.iterations());
  state.counters["time_per_node"] =
      benchmark::Counter(nodes, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// `cold`: every line starts with its inputs out of the caches (evict_inputs, not timed);
// otherwise they stay cached from the previous repetition where they fit.
void bm_line(benchmark::State& state, const char* section, simd_level_t level, bool cold) {
  if (!simd_supported(level)) {
    state.SkipWithError("SIMD level not supported by this CPU");
    return;
  }
  const simd_level_t saved = current_simd_level();
  set_simd_level(level);
  const line_case_t& c = get_case(section);
  std::vector<superinfo_t> output(4096);
  for (auto _ : state)
    for (const auto& l : c.lines) {
      if (cold) {
        state.PauseTiming();
        evict_inputs(l);
        state.ResumeTiming();
      }
      for (int k = 0; k < l.dep.output.length(); k++) {
        compute_line_block(l.dep, l.inputs, k, output.data());
        benchmark::DoNotOptimize(output.data());
      }
    }
  set_simd_level(saved);
  const double nodes = double(c.nodes) * double(state.iterations());
  state.counters["nodes_per_s"] = benchmark::Counter(nodes, benchmark::Counter::kIsRate);
  count_time_per_node(state, c);
}

// The same lines merged in place into held blocks, as the engine merges a middle
// contribution: each output block into the next of held blocks spanning 512 MiB (far past the
// caches, as the engine's held blocks are when their next line comes), at the best SIMD level.
void bm_line_merged(benchmark::State& state, const char* section) {
  const line_case_t& c = get_case(section);
  const size_t held_nodes = (size_t(512) << 20) / sizeof(superinfo_t);
  static std::vector<superinfo_t> held(held_nodes);
  size_t next = 0;
  for (auto _ : state)
    for_each_block(c, [&](const line_case_t::one_line_t& l, int k, size_t nodes) {
      if (next + nodes > held_nodes) next = 0;
      superinfo_t* block = held.data() + next;
      compute_line_block(l.dep, l.inputs, k, line_output_t{block, block});
      benchmark::DoNotOptimize(block);
      next += nodes;
    });
  count_time_per_node(state, c);
}
BENCHMARK_CAPTURE(bm_line_merged, s34_44444554, "44444554");
BENCHMARK_CAPTURE(bm_line_merged, s33_44444454, "44444454");
BENCHMARK_CAPTURE(bm_line_merged, s30_44444433, "44444433");

// The recurrence's last step (finish_block) over the output blocks of the same lines, once per
// complete block where each node took a contribution from every open quadrant's line: time per
// node, at the best SIMD level.
void bm_finish(benchmark::State& state, const char* section) {
  const line_case_t& c = get_case(section);
  // The step's work does not depend on the values: one contribution stands for every block's.
  std::vector<superinfo_t> output(4096);
  compute_line_block(c.lines[0].dep, c.lines[0].inputs, 0, output.data());
  for (auto _ : state)
    for_each_block(c, [&](const line_case_t::one_line_t& l, int k, size_t nodes) {
      finish_block(l.dep.output.section, l.dep.output.block(k), std::span(output.data(), nodes));
      benchmark::DoNotOptimize(output.data());
    });
  count_time_per_node(state, c);
}
BENCHMARK_CAPTURE(bm_finish, s34_44444554, "44444554");
BENCHMARK_CAPTURE(bm_finish, s33_44444454, "44444454");
BENCHMARK_CAPTURE(bm_finish, s30_44444433, "44444433");

// Slice 35 (no children, 1 empty cell), slice 34 (the root of the 44444554 run, a reflecting
// child), and deeper sections with more empty cells per quadrant; those with children also
// with cold inputs (`_cold`).
#define PENTAGO_LINE_CASES(name, section, cold)                                       \
  BENCHMARK_CAPTURE(bm_line, name##_portable, section, simd_level_t::portable, cold); \
  BENCHMARK_CAPTURE(bm_line, name##_sse, section, simd_level_t::sse, cold);           \
  BENCHMARK_CAPTURE(bm_line, name##_avx2, section, simd_level_t::avx2, cold);         \
  BENCHMARK_CAPTURE(bm_line, name##_avx512, section, simd_level_t::avx512, cold);     \
  BENCHMARK_CAPTURE(bm_line, name##_avx512vbmi, section, simd_level_t::avx512vbmi, cold)

PENTAGO_LINE_CASES(s35_54444554, "54444554", false);
PENTAGO_LINE_CASES(s34_44444554, "44444554", false);
PENTAGO_LINE_CASES(s33_44444454, "44444454", false);
PENTAGO_LINE_CASES(s30_44444433, "44444433", false);
PENTAGO_LINE_CASES(s26_33334433, "33334433", false);
PENTAGO_LINE_CASES(s34_44444554_cold, "44444554", true);
PENTAGO_LINE_CASES(s33_44444454_cold, "44444454", true);
PENTAGO_LINE_CASES(s30_44444433_cold, "44444433", true);
PENTAGO_LINE_CASES(s26_33334433_cold, "33334433", true);

// compute_block_again on the blocks of slice-34 section `section` along some lines of each
// quadrant, one line after another (slice 33 reads a whole input line for each of its lines,
// and computes again the blocks its input cache does not hold), at the best SIMD level.
void bm_compute_again(benchmark::State& state, const char* section) {
  const section_t s = section_t::parse(section).standardize();
  const auto extent = section_blocks(s);
  std::mt19937_64 rng(33);
  std::vector<block_t> order;
  for (int d = 0; d < 4; d++)
    for (int n = 0; n < 4; n++) {
      block_t b;
      for (int a = 0; a < 4; a++) b[a] = uint8_t(rng() % uint64_t(extent[a]));
      for (b[d] = 0; b[d] < extent[d]; b[d]++) order.push_back(b);
    }
  std::vector<superinfo_t> value;
  for (auto _ : state)
    for (const block_t& b : order) {
      value.resize(size_t(block_nodes(s, b)));
      compute_block_again(s, b, value);
      benchmark::DoNotOptimize(value.data());
    }
  const double blocks = double(order.size()) * double(state.iterations());
  state.counters["time_per_block"] =
      benchmark::Counter(blocks, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// Two slice-34 sections of the whole game, with two open quadrants each.
BENCHMARK_CAPTURE(bm_compute_again, s34_44444554, "44444554");
BENCHMARK_CAPTURE(bm_compute_again, s34_45444454, "45444454");

}  // namespace
}  // namespace pentago

// The benchmarks run on a thread of their own, as the engine's kernels do: on the main thread
// the kernel ran at one of two speeds per process by where the stack fell within a page (which
// the environment's size moves), and a thread's stack sits where the thread library puts it.
int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  std::thread([] { benchmark::RunSpecifiedBenchmarks(); }).join();
  benchmark::Shutdown();
  return 0;
}
