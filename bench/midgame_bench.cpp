// Google Benchmark of the midgame solver: all child values of fixed 15- to 18-, 20- and 24-stone
// positions to place (random playouts with fixed seeds), with 1 and 2 threads, with distances
// (24, 20 and 18 stones) or without, the workspace
// kept between solves (warm) or mapped afresh (cold; 15-17 stones only cold, 2 threads), wall time
// (UseRealTime) and the CPU time of the calling thread; counters give the workspace, the CPU
// time of all threads per solve and the positions solved per second (two passes, every layer).
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <random>

#include "pentago/base/random_moves.h"
#include "pentago/mid/midgame.h"
#include "pentago/mid/subsets.h"

namespace pentago {
namespace {

// An open position after `stones` random moves from the empty board (seeded, so fixed).
board_t fixed_position(int stones) {
  std::mt19937_64 rng(1000 + stones);
  for (;;) {
    board_t board = 0;
    bool open = true;
    for (int n = 0; n < stones && open; n++) {
      board = rotate_randomly(place_random_stone(board, n & 1, rng), rng);
      open = terminal_value(board) == 2;
    }
    if (open) return board;
  }
}

// User and system CPU seconds of every thread of the process so far.
double process_cpu_seconds() {
  rusage u;
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * double(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

void run_midgame(benchmark::State& state, bool distance) {
  const int stones = int(state.range(0));
  midgame_options_t options;
  options.threads = int(state.range(1));
  options.distance = distance;
  const board_t board = fixed_position(stones);
  // range(2): 1 keeps the workspace between iterations (warm), 0 maps fresh memory each time.
  midgame_workspace_t workspace;
  midgame_result_t r;
  if (state.range(2)) r = midgame_solve(board, false, options, workspace);  // warms it up
  const double cpu_start = process_cpu_seconds();
  for (auto _ : state) {
    if (!state.range(2)) workspace.release();
    r = midgame_solve(board, false, options, workspace);
    benchmark::DoNotOptimize(r.values.data());
  }
  state.counters["all_threads_cpu_ms"] =
      1e3 * (process_cpu_seconds() - cpu_start) / double(state.iterations());
  uint64_t positions = 0;
  for (int n = 0; n <= 36 - stones; n++) positions += 2 * midgame_layer_size(36 - stones, n);
  state.counters["workspace_MiB"] = double(r.workspace_bytes) / double(1 << 20);
  rusage u;
  getrusage(RUSAGE_SELF, &u);
  state.counters["peak_rss_MiB"] = double(u.ru_maxrss) / 1024;
  state.counters["values"] = double(r.values.size());
  state.counters["positions_per_s"] = benchmark::Counter(
      double(positions) * double(state.iterations()), benchmark::Counter::kIsRate);
  state.SetLabel("board " + std::to_string(board));
}

void bm_midgame(benchmark::State& state) { run_midgame(state, false); }
// The same with the distance of every listed position.
void bm_midgame_distance(benchmark::State& state) { run_midgame(state, true); }

BENCHMARK(bm_midgame_distance)
    ->ArgNames({"stones", "threads", "warm"})
    ->Args({24, 2, 1})
    ->Args({20, 2, 1})
    ->Args({18, 2, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

BENCHMARK(bm_midgame)
    ->ArgNames({"stones", "threads", "warm"})
    ->Args({24, 1, 1})
    ->Args({24, 2, 1})
    ->Args({20, 1, 1})
    ->Args({20, 2, 1})
    ->Args({20, 2, 0})
    ->Args({18, 1, 1})
    ->Args({18, 2, 1})
    ->Args({18, 2, 0})
    ->Args({17, 2, 0})
    ->Args({16, 2, 0})
    ->Args({15, 2, 0})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace pentago

BENCHMARK_MAIN();
