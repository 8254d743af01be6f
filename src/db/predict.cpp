// pentago-predict: per-slice load, memory, tags, output and time of an MPI run.
#include "pentago/db/predict.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <exception>
#include <mutex>
#include <set>
#include <thread>

#include "pentago/end/local_driver.h"
#include "pentago/end/partition.h"
#include "pentago/end/run_options.h"
#include "pentago/end/run_plan.h"
#include "pentago/layout/line_mapping.h"
#include "pentago/util/error.h"
#include "pentago/util/parallel_for.h"
#include "pentago/util/random.h"

namespace pentago {
namespace {

// Sums of one rank's load (scaled up when only some of its lines were examined).
struct rank_sums {
  double lines = 0, line_nodes = 0, blocks = 0, block_nodes = 0;
  bool sampled = false;
};

// The load of one rank as in rank_load, over all its lines or, past max_lines, over one
// pseudorandom line in each of max_lines equal strides of its range, scaled.
rank_sums rank_load_estimate(const partition_t& part, int rank, uint64_t max_lines) {
  const auto range = part.rank_range(rank);
  const uint64_t count = range.end - range.start;
  rank_sums sums;
  if (count <= max_lines) {
    const load_t load = rank_load(part, rank);
    sums.lines = double(load.lines);
    sums.line_nodes = double(load.line_nodes);
    sums.blocks = double(load.blocks);
    sums.block_nodes = double(load.block_nodes);
    return sums;
  }
  sums.sampled = true;
  uint64_t examined = 0;
  for (uint64_t i = 0; i < max_lines; i++) {
    const uint64_t lo = range.start + count * i / max_lines;
    const uint64_t hi = range.start + count * (i + 1) / max_lines;
    if (lo == hi) continue;
    const uint64_t p = lo + mix64(uint64_t(rank) << 40 ^ i) % (hi - lo);
    const line_t line = part.lines().line(part.line_at(p));
    const auto shape = line.section.shape();
    const int d = line.dimension;
    double cross = 1;
    for (int a = 0, j = 0; a < 4; a++)
      if (a != d) {
        const int b = line.base[j++];
        cross *= std::min(shape[a], block_size * (b + 1)) - block_size * b;
      }
    sums.line_nodes += cross * shape[d];
    for (int k = 0; k < line.length(); k++)
      if (part.owner_dimension(line.section, line.block(k)) == d) {
        sums.blocks += 1;
        sums.block_nodes += cross * (std::min(shape[d], block_size * (k + 1)) - block_size * k);
      }
    examined++;
  }
  const double scale = double(count) / double(std::max<uint64_t>(examined, 1));
  sums.lines = double(count);
  sums.line_nodes *= scale;
  sums.blocks *= scale;
  sums.block_nodes *= scale;
  return sums;
}

// Min, max, mean and, for a sample of `ranks`, a projected max: mean + sd * sqrt(2 ln ranks)
// (the typical largest of `ranks` normal draws), never below the observed max.
rank_range range_of(const std::vector<double>& values, int ranks) {
  rank_range r;
  if (values.empty()) return r;
  r.min = *std::min_element(values.begin(), values.end());
  r.max = *std::max_element(values.begin(), values.end());
  double sum = 0, squares = 0;
  for (const double v : values) sum += v, squares += v * v;
  r.mean = sum / double(values.size());
  r.projected_max = r.max;
  if (int(values.size()) < ranks) {
    const double variance = std::max(0.0, squares / double(values.size()) - r.mean * r.mean);
    r.projected_max =
        std::max(r.max, r.mean + std::sqrt(variance) * std::sqrt(2 * std::log(double(ranks))));
  }
  return r;
}

// The ranks whose loads are computed: all, or rank 0, the last rank and pseudorandom others.
std::vector<int> examined_ranks(int ranks, int samples) {
  if (samples <= 0 || ranks <= samples) {
    std::vector<int> all(static_cast<size_t>(ranks));
    for (int r = 0; r < ranks; r++) all[size_t(r)] = r;
    return all;
  }
  std::set<int> chosen = {0, ranks - 1};
  for (uint64_t i = 0; int(chosen.size()) < samples; i++)
    chosen.insert(int(mix64(0x5eed ^ i) % uint64_t(ranks)));
  return {chosen.begin(), chosen.end()};
}

std::string bytes_text(double bytes) { return format_bytes(bytes); }

}  // namespace

run_request engine_request(const predict_options& o) {
  run_request r;
  r.root = o.root;
  r.ranks = o.ranks;
  r.workers = o.threads - 1;
  r.memory = o.memory;
  r.meaningless = o.meaningless;
  r.stop_after = o.stop_after;
  r.restart_slice = o.restart;
  r.samples = o.samples;
  r.line_limit = o.line_limit;
  r.save = o.save;
  return r;
}

namespace {

void validate_options(const predict_options& o) {
  if (o.ranks < 1) throw usage_error("--ranks must be given (at least 1)");
  if (o.memory == 0) throw usage_error("--memory must be given");
  if (o.threads < 2) throw usage_error("--threads must be at least 2 (1 communication thread)");
  validate_run(engine_request(o));
  if (o.slices_lo > o.slices_hi) throw usage_error("empty --slices range");
  if (!(o.speed > 0)) throw usage_error("--speed must be positive");
}

}  // namespace

prediction predict(const predict_options& o) {
  validate_options(o);
  const int top = o.meaningless ? o.meaningless : 35;
  const int input_slice = o.restart >= 0 ? o.restart : o.meaningless ? top : -1;
  const int first = input_slice >= 0 ? input_slice - 1 : 35;
  const int bottom = o.stop_after >= 0 ? o.stop_after : o.root.sum();
  const auto slices = descendant_sections(o.root, top);
  const int jobs = o.jobs > 0 ? o.jobs : int(std::max(1u, std::thread::hardware_concurrency()));

  // The computed slices to evaluate, and every slice whose loads they need.
  std::vector<int> evaluated, needed;
  for (int n = first; n >= bottom; n--)
    if (n >= o.slices_lo && n <= o.slices_hi && !slices[n].empty()) evaluated.push_back(n);
  if (evaluated.empty()) throw usage_error("--slices selects no computed slice of this run");
  for (const int n : evaluated) {
    if (needed.empty() || needed.back() != n + 1)
      if (n + 1 <= (input_slice >= 0 ? input_slice : 35) && n < 35) needed.push_back(n + 1);
    needed.push_back(n);
  }
  std::sort(needed.begin(), needed.end());
  needed.erase(std::unique(needed.begin(), needed.end()), needed.end());

  // Partitions and per-rank loads of the needed slices, in parallel over (slice, rank).
  std::vector<std::unique_ptr<partition_t>> parts(36);
  for (const int n : needed) parts[n] = std::make_unique<partition_t>(slices[n], o.ranks, o.key);
  const std::vector<int> ranks = examined_ranks(o.ranks, o.rank_samples);
  std::vector<std::vector<rank_sums>> loads(36);
  for (const int n : needed) loads[n].resize(ranks.size());
  parallel_for(jobs, needed.size() * ranks.size(), [&](uint64_t task) {
    const int n = needed[task / ranks.size()];
    const size_t j = task % ranks.size();
    loads[n][j] = rank_load_estimate(*parts[n], ranks[j], o.rank_lines);
  });

  // pentago-endgame's own plan decides whether it starts: the same function it calls. A
  // dropped slice holds only a share of its blocks (those still incomplete).
  const run_plan engine = make_run_plan(engine_request(o), slices);
  // Input blocks are released after their last reader: the engine's paired store over the
  // sum of both stores.
  const auto pair_share = [&](int n) {
    const slice_plan_t *e = engine.slice_plan(n), *above = engine.slice_plan(n + 1);
    const uint64_t sum = e && above ? e->rank_store_bytes + above->rank_store_bytes : 0;
    return sum ? std::min(1.0, double(e->pair_bytes) / double(sum)) : 1.0;
  };
  const auto held_share = [&](int n) {
    const slice_plan_t* e = engine.slice_plan(n);
    return e && e->nodes ? double(e->held_nodes) / double(e->nodes) : 1.0;
  };
  prediction p;
  const auto slice_nodes = [&](int n) {
    uint64_t nodes = 0;
    for (const auto& s : slices[n]) nodes += s.size();
    return nodes;
  };
  for (const int n : evaluated) {
    slice_prediction s;
    s.slice = n;
    s.saved = n <= o.save;
    s.sections = slices[n].size();
    for (const auto& sec : slices[n]) s.blocks += section_block_count(sec);
    s.nodes = slice_nodes(n);
    s.lines = parts[n]->total_lines();
    s.ranks_examined = int(ranks.size());
    const bool has_prev = n < 35 && n + 1 <= (input_slice >= 0 ? input_slice : 35);
    const auto ratio_of = [&](int m) {
      return o.snappy_ratio > 0 ? o.snappy_ratio : engine.ratio_scale * store_ratio(m);
    };
    const double cur_ratio = ratio_of(n) * held_share(n);
    const double prev_ratio =
        n + 1 == o.meaningless && o.restart < 0 ? meaningless_ratio : ratio_of(n + 1);
    std::vector<double> lines, blocks, block_nodes, line_nodes, base, write, chunk;
    for (size_t j = 0; j < ranks.size(); j++) {
      const rank_sums& cur = loads[n][j];
      const rank_sums prev = has_prev ? loads[n + 1][j] : rank_sums{};
      s.lines_sampled |= cur.sampled || prev.sampled;
      lines.push_back(cur.lines);
      blocks.push_back(cur.blocks);
      block_nodes.push_back(cur.block_nodes);
      line_nodes.push_back(cur.line_nodes);
      const double est_cur =
          double(block_slack_bytes) * cur.blocks + heap_slack * cur_ratio * 64 * cur.block_nodes;
      const double est_prev =
          double(block_slack_bytes) * prev.blocks + heap_slack * prev_ratio * 64 * prev.block_nodes;
      const double samples = double(o.samples) * double(s.sections) * cur.block_nodes /
                             double(std::max<uint64_t>(s.nodes, 1)) * double(sample_bytes);
      const double tables = double(block_table_bytes) * (cur.blocks + prev.blocks);
      base.push_back(pair_share(n) * (est_cur + est_prev) + tables + samples +
                     double(fixed_rank_bytes));
      // Writing: the previous slice is gone; rank 0 gathers every sample; saved slices hold
      // each block compressed, then copied into one chunk.
      const double xz = s.saved ? o.xz_ratio * 64 * cur.block_nodes : 0;
      double w = est_cur + double(block_table_bytes) * cur.blocks + samples +
                 double(fixed_rank_bytes) + 2 * xz + (s.saved ? o.threads * 2.0 * 64 * 4096 : 0);
      if (ranks[j] == 0)
        w += double(o.samples) * double(s.sections) * double(gathered_sample_bytes);
      write.push_back(w);
      chunk.push_back(xz);
    }
    s.rank_lines = range_of(lines, o.ranks);
    s.rank_blocks = range_of(blocks, o.ranks);
    s.rank_block_nodes = range_of(block_nodes, o.ranks);
    s.rank_line_nodes = range_of(line_nodes, o.ranks);
    const rank_range base_range = range_of(base, o.ranks);
    // Store and tables at the rank with the largest base (projected).
    double store = 0, tables = 0;
    for (size_t j = 0; j < ranks.size(); j++)
      if (base[j] == base_range.max) {
        const rank_sums& cur = loads[n][j];
        const rank_sums prev = has_prev ? loads[n + 1][j] : rank_sums{};
        store = double(block_slack_bytes) * (cur.blocks + prev.blocks) +
                heap_slack * 64 * (cur_ratio * cur.block_nodes + prev_ratio * prev.block_nodes);
        tables = double(block_table_bytes) * (cur.blocks + prev.blocks);
      }
    const double scale = base_range.max > 0 ? base_range.projected_max / base_range.max : 1;
    s.store = uint64_t(pair_share(n) * store * scale);
    s.tables = uint64_t(tables * scale);
    s.max_line_bytes = max_line_bytes(slices[n], n < 35);
    const uint64_t base_max = uint64_t(base_range.projected_max);
    const uint64_t free = o.memory > base_max ? o.memory - base_max : 0;
    s.line_parallelism = int(std::min<uint64_t>(uint64_t(o.line_limit), free / s.max_line_bytes));
    s.line_memory = uint64_t(std::max(s.line_parallelism, 2)) * s.max_line_bytes;
    s.compute_peak = base_max + s.line_memory;
    s.save_peak = uint64_t(range_of(write, o.ranks).projected_max);
    s.save_chunk = s.saved ? uint64_t(range_of(chunk, o.ranks).projected_max) : 0;
    s.output_bytes = s.saved ? 64 * s.nodes : 0;
    s.seconds = double(s.nodes) / (o.speed * o.ranks * o.threads);

    const uint64_t peak = std::max(s.compute_peak, s.save_peak);
    if (peak > p.peak) p.peak = peak, p.peak_slice = n;
    p.seconds += s.seconds;
    p.output_bytes += s.output_bytes;
    p.output_xz_bytes += uint64_t(o.xz_ratio * double(s.output_bytes));
    if (peak > o.memory && p.warning.empty()) {
      p.warning = "slice " + std::to_string(n) + " needs about " + bytes_text(double(peak)) +
                  " per rank (stores " + bytes_text(double(s.store)) + ", lines " +
                  bytes_text(double(s.line_memory)) + ", while writing " +
                  bytes_text(double(s.save_peak)) + ") but --memory is " +
                  bytes_text(double(o.memory));
    }
    if (s.line_parallelism < 2 && p.warning.empty()) {
      p.warning = "slice " + std::to_string(n) + " leaves room for " +
                  std::to_string(s.line_parallelism) + " lines of " +
                  bytes_text(double(s.max_line_bytes)) + " per rank; at least 2 are needed";
    }
    if (p.fits && s.save_chunk >= max_rank_chunk) {
      p.fits = false;
      p.reason = "slice " + std::to_string(n) + ": a rank's share of slice-" + std::to_string(n) +
                 ".pentago is about " + bytes_text(double(s.save_chunk)) +
                 ", over the 2 GiB one rank may write; use more ranks or a lower --save";
    }
    p.slices.push_back(s);
  }
  p.engine_plan = engine.needed;
  p.engine_arena = engine.arena_bytes;
  if (p.fits && !engine.fits) {
    p.fits = false;
    p.reason = "pentago-endgame would refuse to start: " + engine.reason;
  }
  return p;
}

std::string format_prediction(const predict_options& o, const prediction& p) {
  std::string out;
  char buf[512];
  auto line = [&](const std::string& text) { out += text + "\n"; };
  std::snprintf(
      buf, sizeof buf,
      "pentago-predict: root %s, %d ranks x %d threads, memory %s per rank, save <= %d, "
      "key %s, samples %d%s%s",
      o.root.name().c_str(), o.ranks, o.threads, bytes_text(double(o.memory)).c_str(), o.save,
      std::to_string(uint64_t(o.key)).c_str(), o.samples,
      o.meaningless ? (", meaningless " + std::to_string(o.meaningless)).c_str() : "",
      o.restart >= 0 ? (", restart from slice " + std::to_string(o.restart)).c_str() : "");
  line(buf);
  if (!p.slices.empty()) {
    const auto& s = p.slices.front();
    std::snprintf(buf, sizeof buf,
                  "loads of %d of %d ranks per slice%s; memory per rank is the projected max over "
                  "ranks; Snappy %s, xz %.2f, %.3g output nodes/s/core",
                  s.ranks_examined, o.ranks, s.ranks_examined < o.ranks ? " (sampled)" : "",
                  o.snappy_ratio > 0 ? std::to_string(o.snappy_ratio).c_str()
                                     : "per slice as measured (0.37 at 35, 0.33 at 34, 0.36 below)",
                  o.xz_ratio, o.speed);
    line(buf);
  }
  line("");
  line(
      "slice sections     blocks            nodes      lines | lines/rank      blocks/rank     "
      "| stores     lines       peak/rank  par | saved (xz)   time");
  for (const auto& s : p.slices) {
    const std::string lines = std::to_string(uint64_t(s.rank_lines.min)) + "-" +
                              std::to_string(uint64_t(s.rank_lines.max));
    const std::string blocks = std::to_string(uint64_t(s.rank_blocks.min)) + "-" +
                               std::to_string(uint64_t(s.rank_blocks.max)) +
                               (s.lines_sampled ? "~" : "");
    std::snprintf(
        buf, sizeof buf,
        "%5d %8llu %10llu %16llu %10llu | %-15s %-15s | %-10s %-10s %-10s %3d | %-12s %s", s.slice,
        (unsigned long long)s.sections, (unsigned long long)s.blocks, (unsigned long long)s.nodes,
        (unsigned long long)s.lines, lines.c_str(), blocks.c_str(),
        bytes_text(double(s.store)).c_str(), bytes_text(double(s.line_memory)).c_str(),
        bytes_text(double(std::max(s.compute_peak, s.save_peak))).c_str(), s.line_parallelism,
        s.saved ? bytes_text(o.xz_ratio * double(s.output_bytes)).c_str() : "-",
        format_seconds(s.seconds).c_str());
    line(buf);
  }
  line("");
  if (p.peak_slice >= 0) {
    for (const auto& s : p.slices)
      if (s.slice == p.peak_slice) {
        std::snprintf(buf, sizeof buf,
                      "peak memory: %s per rank at slice %d (stores %s, block tables %s, %d lines "
                      "of at most %s; while writing %s) of %s",
                      bytes_text(double(p.peak)).c_str(), s.slice,
                      bytes_text(double(s.store)).c_str(), bytes_text(double(s.tables)).c_str(),
                      std::max(s.line_parallelism, 2), bytes_text(double(s.max_line_bytes)).c_str(),
                      bytes_text(double(s.save_peak)).c_str(),
                      bytes_text(double(o.memory)).c_str());
        line(buf);
      }
  }
  line("engine plan: " + bytes_text(double(p.engine_plan)) + " (" + std::to_string(p.engine_plan) +
       " bytes) per rank needed, compacting arena " + bytes_text(double(p.engine_arena)) +
       " (pentago-endgame refuses to start when the need exceeds --memory)");
  if (!p.warning.empty()) line("warning: " + p.warning);
  if (p.output_bytes)
    line("output: " + bytes_text(double(p.output_bytes)) + " of slice data, about " +
         bytes_text(double(p.output_xz_bytes)) + " compressed");
  std::snprintf(buf, sizeof buf, "%.3g", o.speed);
  line("time estimate: " + format_seconds(p.seconds) + " of computing at " + buf +
       " output nodes per CPU-second per core (measured, docs/tools.md) on " +
       std::to_string(o.ranks * o.threads) +
       " cores, one per thread; I/O not included; oversubscribed or shared cores are slower");
  line(p.fits ? "fits in " + bytes_text(double(o.memory)) + " per rank"
              : "does not fit: " + p.reason);
  return out;
}

std::string predict_usage() {
  return "usage: pentago-predict --ranks R --memory M [options] ROOT\n"
         "Predicts an MPI run of pentago-endgame on ROOT (8 digits, e.g. 00000000): per slice the\n"
         "lines and blocks per rank (min-max), the memory per rank (block stores of two slices\n"
         "at the measured Snappy ratios, block tables, line buffers, samples, slice-file\n"
         "output), output bytes and computing time, and whether pentago-endgame's own plan\n"
         "fits in M. Exits 1 with a one-line reason if it does not.\n"
         "  --ranks R          MPI ranks (required)\n"
         "  --memory M         memory per rank, e.g. 7G (required)\n"
         "  --threads T        threads per rank including the communication thread (default 6)\n"
         "  --save N           slices <= N are written (default: none)\n"
         "  --randomize KEY    partition key (default 17; 0: the simple partition)\n"
         "  --samples K        sparse samples per section (default 256)\n"
         "  --meaningless K    slice K is synthesized, slices below it computed\n"
         "  --restart N        the run restarts from a slice-N file\n"
         "  --stop-after S     lowest slice computed (default: the root's)\n"
         "  --slices A[-B]     evaluate only computed slices A..B\n"
         "  --line-limit L     lines in flight per rank (default 8)\n"
         "  --speed S          output nodes per CPU-second per core (default 1e6, measured)\n"
         "  --snappy-ratio R   in-memory compression ratio (default: measured, per slice)\n"
         "  --xz-ratio R       slice-file compression ratio (default 0.15)\n"
         "  --rank-samples K   ranks examined per slice when there are more (default 64; 0: all)\n"
         "  --jobs J           threads computing loads (default: all hardware threads)\n"
         "  --help             this text\n";
}

predict_options parse_predict_options(int argc, char** argv) {
  predict_options o;
  auto parse_double = [](const std::string& option, const std::string& v, double lo, double hi) {
    char* end = nullptr;
    const double x = std::strtod(v.c_str(), &end);
    if (v.empty() || *end || !(x >= lo && x <= hi))
      throw usage_error(option + " must be a number in [" + std::to_string(lo) + ", " +
                        std::to_string(hi) + "], got '" + v + "'");
    return x;
  };
  argument_cursor args(argc, argv);
  bool have_root = false;
  while (args.next()) {
    const std::string& arg = args.arg();
    auto value = [&] { return args.value(); };
    if (arg == "--ranks")
      o.ranks = int(parse_int_option(arg, value(), 1, 1 << 24));
    else if (arg == "--memory")
      o.memory = parse_memory_option(arg, value());
    else if (arg == "--threads")
      o.threads = int(parse_int_option(arg, value(), 2, 1024));
    else if (arg == "--save")
      o.save = int(parse_int_option(arg, value(), -1, 35));
    else if (arg == "--randomize")
      o.key = uint128(parse_int_option(arg, value(), 0, INT64_MAX));
    else if (arg == "--samples")
      o.samples = int(parse_int_option(arg, value(), 0, 1 << 20));
    else if (arg == "--meaningless")
      o.meaningless = int(parse_int_option(arg, value(), 1, 35));
    else if (arg == "--restart")
      o.restart = int(parse_int_option(arg, value(), 0, 35));
    else if (arg == "--stop-after")
      o.stop_after = int(parse_int_option(arg, value(), 0, 35));
    else if (arg == "--slices") {
      const std::string v = value();
      const size_t dash = v.find('-');
      o.slices_lo = int(parse_int_option(arg, v.substr(0, dash), 0, 35));
      o.slices_hi = dash == std::string::npos
                        ? o.slices_lo
                        : int(parse_int_option(arg, v.substr(dash + 1), 0, 35));
    } else if (arg == "--line-limit")
      o.line_limit = int(parse_int_option(arg, value(), 2, 1 << 20));
    else if (arg == "--speed")
      o.speed = parse_double(arg, value(), 1, 1e12);
    else if (arg == "--snappy-ratio")
      o.snappy_ratio = parse_double(arg, value(), 0.01, 2);
    else if (arg == "--xz-ratio")
      o.xz_ratio = parse_double(arg, value(), 0.001, 2);
    else if (arg == "--rank-samples")
      o.rank_samples = int(parse_int_option(arg, value(), 0, 1 << 24));
    else if (arg == "--jobs")
      o.jobs = int(parse_int_option(arg, value(), 1, 1024));
    else if (args.is_option())
      throw usage_error("unknown option " + arg);
    else
      take_root(args, o.root, have_root);
  }
  if (!have_root) throw usage_error("missing ROOT section (e.g. 00000000)");
  validate_options(o);
  return o;
}

}  // namespace pentago
