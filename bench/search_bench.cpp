// Forward search benchmarks: time and positions per second to solve 10 fixed positions with
// 26-30 stones, serially and on 2 threads (with the speedup and the CPU time of all threads),
// table hit rate, and the cost of superstandardization.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <chrono>
#include <random>
#include <vector>

#include "pentago/base/random_moves.h"
#include "pentago/base/symmetry.h"
#include "pentago/search/standardize.h"
#include "pentago/search/super_search.h"

using namespace pentago;

namespace {

// Two open positions each with 26, 27, 28, 29 and 30 stones, from seeded random playouts
// (a stone on a random empty cell, then a random quadrant turn).
const std::vector<board_t>& positions() {
  static const std::vector<board_t> result = [] {
    std::mt19937_64 rng(20140101);
    std::vector<board_t> boards;
    for (int stones = 26; stones <= 30; stones++)
      while (int(boards.size()) < 2 * (stones - 25)) {
        board_t board = 0;
        int n = 0;
        for (; n < stones && terminal_value(board) == 2; n++) {
          board = rotate_randomly(place_random_stone(board, n & 1, rng), rng);
        }
        if (n == stones && terminal_value(board) == 2) boards.push_back(board);
      }
    return boards;
  }();
  return result;
}

super_search_options_t with_threads(int threads) {
  super_search_options_t options;
  options.threads = threads;
  options.table_bits = 18;
  return options;
}

// CPU seconds used so far by all threads of the process.
double process_cpu_seconds() {
  rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         1e-6 * double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
}

// Seconds to solve all positions once with a cleared table.
double solve_all(super_searcher_t& engine) {
  engine.clear_table();
  const auto start = std::chrono::steady_clock::now();
  for (const board_t b : positions()) benchmark::DoNotOptimize(engine.solve(b));
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The serial time, measured once (best of 3) as the baseline of the speedup counter.
double serial_seconds() {
  static const double seconds = [] {
    super_searcher_t engine(with_threads(1));
    double best = 1e30;
    for (int i = 0; i < 3; i++) best = std::min(best, solve_all(engine));
    return best;
  }();
  return seconds;
}

// Solves the 10 positions from an empty table; argument: threads.
void BM_solve_positions(benchmark::State& state) {
  const int threads = int(state.range(0));
  super_searcher_t engine(with_threads(threads));
  double seconds = 0, cpu_seconds = 0;
  for (auto _ : state) {
    state.PauseTiming();
    engine.clear_table();
    state.ResumeTiming();
    const auto start = std::chrono::steady_clock::now();
    const double cpu_start = process_cpu_seconds();
    for (const board_t b : positions()) benchmark::DoNotOptimize(engine.solve(b));
    cpu_seconds += process_cpu_seconds() - cpu_start;
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  const search_stats_t stats = engine.stats();
  const double iterations = double(state.iterations());
  state.counters["positions"] = benchmark::Counter(double(stats.nodes) / iterations);
  state.counters["positions_per_s"] = benchmark::Counter(double(stats.nodes) / seconds);
  state.counters["hit_rate"] = benchmark::Counter(stats.hit_rate());
  state.counters["speedup"] = benchmark::Counter(serial_seconds() / (seconds / iterations));
  // CPU time of all threads (robust to a busy machine, unlike the speedup): its growth over
  // the serial run is the parallel overhead (extra positions, splitting, waiting).
  state.counters["all_threads_cpu_ms"] = benchmark::Counter(1e3 * cpu_seconds / iterations);
}
BENCHMARK(BM_solve_positions)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// Base's superstandardize against the table-driven one used by the search.
void BM_superstandardize(benchmark::State& state) {
  const bool fast = state.range(0);
  std::mt19937_64 rng(1);
  std::vector<board_t> boards;
  for (int i = 0; i < 1024; i++) {
    side_t black = 0, white = 0;
    for (int k = 0; k < 28; k++) {
      const int bit = int(rng() % 64);
      const side_t cell = side_t(1) << bit;
      if ((side_mask & cell) && !((black | white) & cell)) (k & 1 ? white : black) |= cell;
    }
    boards.push_back(pack(black, white));
  }
  size_t i = 0;
  for (auto _ : state) {
    symmetry_t s;
    const board_t b = boards[i++ & 1023];
    benchmark::DoNotOptimize(fast ? fast_superstandardize(b, &s) : superstandardize(b, &s));
    benchmark::DoNotOptimize(s);
  }
  state.SetLabel(fast ? "fast (search)" : "base");
}
BENCHMARK(BM_superstandardize)->Arg(0)->Arg(1);

}  // namespace

BENCHMARK_MAIN();
