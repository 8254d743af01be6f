// pentago-midgame-gpu: the batched midgame solver on a GPU (or its CPU reference device):
// solves positions given on the command line, checks the GPU against the CPU solver on random
// positions (--check), and measures it (--bench). Builds with the util, base and mid layers
// alone, so that a GPU machine with CUDA and nothing else can run it.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "cli.h"
#include "pentago/base/position.h"
#include "pentago/base/random_moves.h"
#include "pentago/mid/midgame.h"
#include "pentago/mid/midgame_gpu.h"
#include "pentago/util/error.h"

using namespace pentago;

namespace {

const char* usage_text =
    "usage: pentago-midgame-gpu [options] [POSITION...]\n"
    "       pentago-midgame-gpu --check N [options]\n"
    "       pentago-midgame-gpu --bench [options]\n"
    "\n"
    "Solves midgame positions (12 or more stones, as far as the device's memory holds) with the\n"
    "batched GPU solver: all positions of one stone count together, every layer on the device.\n"
    "Prints one line per position: its code, value for the player to move and distance.\n"
    "\n"
    "  --check N        solves N random open positions (half of them to rotate) and the 2013\n"
    "                   benchmark board 274440791932540184 (when --stones holds 18), batched\n"
    "                   compares every listed value (and, with --distance, distance) with the\n"
    "                   CPU solver; exit 1 on any difference\n"
    "  --bench          one 18-stone position end to end (the first solve, then the median of\n"
    "                   five), a batch of --batch random 18-stone positions, and one position at\n"
    "                   the fewest stones whose workspace fits the device; CPU solver beside it\n"
    "  --bench-only P   only these parts of --bench: one, batch, fewest (comma-separated)\n"
    "  --max-batch N    most roots solved in one launch sequence (default 64; 0: all that fit)\n"
    "  --stones A-B     stone counts of --check's random positions (default 18-30)\n"
    "  --batch N        positions in --bench's batch (default 1000)\n"
    "  --seed S         seed of the random positions (default 1)\n"
    "  --distance       also distances (turns to the end of the game)\n"
    "  --memory SIZE    device memory a batch may take (default: what is free less 1/16)\n"
    "  --reference      run the kernels on host threads (the CPU reference) instead of a GPU\n"
    "  --threads N      host threads of --reference and of the CPU solver (default: all)\n"
    "  --device N       CUDA device (default 0)\n"
    "  -h, --help       show this help\n"
    "\n"
    "POSITION is a board code (decimal, 'm' appended for a board to rotate), the compact\n"
    "36-character form, a file holding a board, or '-' for standard input.\n";

double since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

const char* value_name(int v) { return v > 0 ? "win" : v < 0 ? "loss" : "tie"; }

struct settings_t {
  int check = -1;
  bool bench = false;
  std::string bench_parts = "one,batch,fewest";
  int min_stones = 18, max_stones = 30;
  int batch = 1000;
  uint64_t seed = 1;
  bool reference = false;
  int threads = 0;  // host threads of the reference device and the CPU solver (0: all)
  int device = 0;
  midgame_gpu_options_t options;
  std::vector<midgame_position_t> positions;
};

settings_t parse(int argc, char** argv) {
  settings_t s;
  argument_cursor_t args(argc, argv);
  while (args.next()) {
    const std::string& arg = args.arg();
    if (arg == "--check") {
      s.check = int(args.int_value(0, 100000));
    } else if (arg == "--bench") {
      s.bench = true;
    } else if (arg == "--bench-only") {
      s.bench = true;
      s.bench_parts = args.value();
      for (size_t at = 0; at <= s.bench_parts.size();) {
        const size_t comma = std::min(s.bench_parts.find(',', at), s.bench_parts.size());
        const std::string part = s.bench_parts.substr(at, comma - at);
        if (part != "one" && part != "batch" && part != "fewest")
          throw usage_error_t("--bench-only takes one, batch and fewest, not '" + part + "'");
        at = comma + 1;
      }
    } else if (arg == "--max-batch") {
      s.options.max_batch = uint64_t(args.int_value(0, 1 << 30));
    } else if (arg == "--stones") {
      const std::string v = args.value();
      const size_t dash = v.find('-');
      if (dash == std::string::npos) throw usage_error_t("--stones needs A-B, not '" + v + "'");
      s.min_stones = int(parse_int_option(arg, v.substr(0, dash), midgame_min_stones, 35));
      s.max_stones = int(parse_int_option(arg, v.substr(dash + 1), s.min_stones, 35));
    } else if (arg == "--batch") {
      s.batch = int(args.int_value(1, 1000000));
    } else if (arg == "--seed") {
      s.seed = uint64_t(args.int_value(0, (long long)(~0ull >> 1)));
    } else if (arg == "--distance") {
      s.options.distance = true;
    } else if (arg == "--memory") {
      s.options.memory_limit = args.memory_value();
    } else if (arg == "--reference") {
      s.reference = true;
    } else if (arg == "--threads") {
      s.threads = int(args.int_value(1, 4096));
    } else if (arg == "--device") {
      s.device = int(args.int_value(0, 1023));
    } else if (args.is_option()) {
      args.unknown();
    } else {
      const position_t p = parse_position(cli::board_text(arg, std::cin));
      s.positions.push_back({p.board, p.to_rotate});
    }
  }
  if (s.check >= 0 && s.bench) throw usage_error_t("--check and --bench are separate runs");
  if ((s.check >= 0 || s.bench) && !s.positions.empty())
    throw usage_error_t("--check and --bench take no positions");
  if (s.check < 0 && !s.bench && s.positions.empty())
    throw usage_error_t("no position given (see --help)");
  return s;
}

midgame_gpu_t open_solver(const settings_t& s) {
  if (s.reference) return midgame_gpu_t::reference(s.threads);
  std::string why;
  if (!midgame_gpu_available(&why)) throw pentago_error_t(why);
  return midgame_gpu_t(s.device);
}

midgame_result_t cpu_solve(const settings_t& s, midgame_position_t p,
                           midgame_workspace_t& workspace) {
  midgame_options_t o;
  o.distance = s.options.distance;
  o.threads = s.threads;
  return midgame_solve(p.board, p.to_rotate, o, workspace);
}

// --check: every listed entry of the GPU's lists against the CPU solver's.
int check(const settings_t& s, midgame_gpu_t& gpu) {
  std::mt19937_64 rng(s.seed);
  // The 2013 benchmark board when the stone range holds 18.
  const bool benchmark = s.min_stones <= 18 && 18 <= s.max_stones;
  std::vector<midgame_position_t> positions;
  if (benchmark) positions.push_back({parse_position("274440791932540184").board, false});
  for (int i = 0; i < s.check; i++) {
    const int stones = s.min_stones + int(rng() % uint64_t(s.max_stones - s.min_stones + 1));
    const bool to_rotate = i % 2 == 1;
    positions.push_back({random_open_position(rng, stones, to_rotate), to_rotate});
  }
  auto start = std::chrono::steady_clock::now();
  const std::vector<midgame_result_t> got = gpu.solve(positions, s.options);
  const double gpu_seconds = since(start);
  start = std::chrono::steady_clock::now();
  midgame_workspace_t workspace;
  uint64_t values = 0, distances = 0, differences = 0;
  for (size_t i = 0; i < positions.size(); i++) {
    const midgame_result_t want = cpu_solve(s, positions[i], workspace);
    const std::string code = position_code({positions[i].board, positions[i].to_rotate});
    if (want.values.size() != got[i].values.size()) {
      std::printf("DIFFERENT %s: %zu listed, the CPU solver lists %zu\n", code.c_str(),
                  got[i].values.size(), want.values.size());
      differences++;
      continue;
    }
    for (size_t k = 0; k < want.values.size(); k++) {
      const midgame_value_t &w = want.values[k], &g = got[i].values[k];
      if (w.board != g.board || w.to_rotate != g.to_rotate || w.value != g.value ||
          w.distance != g.distance) {
        if (differences++ < 20)
          std::printf("DIFFERENT %s entry %zu: value %d distance %d, the CPU solver %d %d\n",
                      code.c_str(), k, g.value, g.distance, w.value, w.distance);
      }
      values++;
      if (w.distance >= 0) distances++;
    }
    if (benchmark && i == 0)
      std::printf("benchmark board %s: %zu listed values%s\n", code.c_str(), want.values.size(),
                  s.options.distance ? " and distances" : "");
  }
  const double cpu_seconds = since(start);
  std::printf(
      "check: %zu positions (%s%d random, %d-%d stones, seed %llu) on %s: %llu values, %llu "
      "distances, %llu differences from the CPU solver; GPU %.2f s (batched), CPU %.2f s\n",
      positions.size(), benchmark ? "the benchmark board and " : "", s.check, s.min_stones,
      s.max_stones, (unsigned long long)s.seed, gpu.device_name().c_str(),
      (unsigned long long)values, (unsigned long long)distances, (unsigned long long)differences,
      gpu_seconds, cpu_seconds);
  return differences ? 1 : 0;
}

void bench_one(const settings_t& s, midgame_gpu_t& gpu, midgame_workspace_t& workspace);
void bench_batch(const settings_t& s, midgame_gpu_t& gpu, midgame_workspace_t& workspace,
                 std::mt19937_64& rng);
void bench_fewest(const settings_t& s, midgame_gpu_t& gpu, std::mt19937_64& rng);

// --bench: end-to-end time of one 18-stone position, a batch's throughput, and the fewest
// stones that fit.
int bench(const settings_t& s, midgame_gpu_t& gpu) {
  std::mt19937_64 rng(s.seed);
  auto part = [&](const char* name) {
    return ("," + s.bench_parts + ",").find("," + std::string(name) + ",") != std::string::npos;
  };
  midgame_workspace_t workspace;
  if (part("one")) bench_one(s, gpu, workspace);
  if (part("batch")) bench_batch(s, gpu, workspace, rng);
  if (part("fewest")) bench_fewest(s, gpu, rng);
  return 0;
}

// One 18-stone position end to end: the first solve (the device's start and the layer tables'
// upload included), then the median of five.
void bench_one(const settings_t& s, midgame_gpu_t& gpu, midgame_workspace_t& workspace) {
  const midgame_position_t one = {parse_position("274440791932540184").board, false};
  auto start = std::chrono::steady_clock::now();
  gpu.solve({one}, s.options);
  const double first = since(start);
  std::vector<double> times;
  for (int i = 0; i < 5; i++) {
    start = std::chrono::steady_clock::now();
    gpu.solve({one}, s.options);
    times.push_back(since(start));
  }
  std::sort(times.begin(), times.end());
  cpu_solve(s, one, workspace);  // faults the workspace in
  start = std::chrono::steady_clock::now();
  cpu_solve(s, one, workspace);
  const double cpu_one = since(start);
  std::printf(
      "bench one: 18-stone benchmark board%s on %s: first solve %.1f ms, then %.1f ms (median of "
      "5, %.1f-%.1f); CPU solver %.1f ms\n",
      s.options.distance ? " with distances" : "", gpu.device_name().c_str(), 1e3 * first,
      1e3 * times[2], 1e3 * times[0], 1e3 * times[4], 1e3 * cpu_one);
  std::fflush(stdout);
}

// --batch random 18-stone positions at once.
void bench_batch(const settings_t& s, midgame_gpu_t& gpu, midgame_workspace_t& workspace,
                 std::mt19937_64& rng) {
  std::vector<midgame_position_t> batch;
  for (int i = 0; i < s.batch; i++) batch.push_back({random_open_position(rng, 18, false), false});
  auto start = std::chrono::steady_clock::now();
  gpu.solve(batch, s.options);
  const double batch_seconds = since(start);
  const int cpu_sample = std::min(s.batch, 10);
  start = std::chrono::steady_clock::now();
  for (int i = 0; i < cpu_sample; i++) cpu_solve(s, batch[i], workspace);
  const double cpu_each = since(start) / cpu_sample;
  std::printf(
      "bench batch: %d random 18-stone positions%s, at most %s roots a launch sequence, in "
      "%.2f s: %.1f positions per second (%.2f ms each); CPU solver %.1f ms each (first %d)\n",
      s.batch, s.options.distance ? " with distances" : "",
      s.options.max_batch ? std::to_string(s.options.max_batch).c_str() : "all that fit",
      batch_seconds, s.batch / batch_seconds, 1e3 * batch_seconds / s.batch, 1e3 * cpu_each,
      cpu_sample);
  std::fflush(stdout);
}

// One position at the fewest stones whose workspace fits the device.
void bench_fewest(const settings_t& s, midgame_gpu_t& gpu, std::mt19937_64& rng) {
  // The fewest stones whose one-root batch fits what the device has free now (or --memory).
  const uint64_t free = gpu.device_free_bytes();
  const uint64_t room =
      s.options.memory_limit ? s.options.memory_limit : midgame_gpu_t::usable_bytes(free);
  int stones = midgame_gpu_min_stones;
  while (stones < 36 && midgame_gpu_t::batch_bytes(stones, 1) > room) stones++;
  const midgame_position_t p = {random_open_position(rng, stones, false), false};
  const auto start = std::chrono::steady_clock::now();
  const midgame_result_t r = gpu.solve({p}, s.options)[0];
  std::printf(
      "bench fewest: %d stones fit (%.1f GiB on the device with the layer tables, of %.1f GiB "
      "free): %s in %.2f s, value %s\n",
      stones, double(midgame_gpu_t::batch_bytes(stones, 1)) / double(1 << 30),
      double(free) / double(1 << 30), position_code({p.board, false}).c_str(), since(start),
      value_name(r.values.back().value));
}

int run(int argc, char** argv) {
  const settings_t s = parse(argc, argv);
  midgame_gpu_t gpu = open_solver(s);
  if (s.check >= 0) return check(s, gpu);
  if (s.bench) return bench(s, gpu);
  const auto start = std::chrono::steady_clock::now();
  const std::vector<midgame_result_t> results = gpu.solve(s.positions, s.options);
  for (size_t i = 0; i < results.size(); i++) {
    const midgame_value_t& root = results[i].values.back();
    std::printf("%s %s", position_code({root.board, root.to_rotate}).c_str(),
                value_name(root.value));
    if (root.distance >= 0) std::printf(" in %d", root.distance);
    std::printf("\n");
  }
  std::fprintf(stderr, "%zu positions on %s in %.3f s\n", results.size(), gpu.device_name().c_str(),
               since(start));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return cli::run_main("pentago-midgame-gpu", usage_text, argc, argv, run);
}
