// pentago-predict: per-slice load, memory, tags, output and time of an MPI run.
#include "pentago/plan/predict.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <mutex>
#include <set>
#include <thread>

#include "pentago/end/partition.h"
#include "pentago/end/run_plan.h"
#include "pentago/layout/line_mapping.h"
#include "pentago/util/error.h"
#include "pentago/util/format.h"
#include "pentago/util/options.h"
#include "pentago/util/parallel_for.h"
#include "pentago/util/random.h"

namespace pentago {
namespace {

// Sums of one rank's load (scaled up when only some of its lines were examined).
struct rank_sums_t {
  double lines = 0, line_nodes = 0, blocks = 0, block_nodes = 0;
  bool sampled = false;
};

// The load of one rank as in rank_load, over all its lines or, past max_lines, over one
// pseudorandom line in each of max_lines equal strides of its range, scaled.
rank_sums_t rank_load_estimate(const partition_t& part, int rank, uint64_t max_lines) {
  const auto range = part.rank_range(rank);
  const uint64_t count = range.end - range.start;
  rank_sums_t sums;
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
rank_range_t range_of(const std::vector<double>& values, int ranks) {
  rank_range_t r;
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

void validate_options(const predict_options_t& o) {
  if (o.slices_lo > o.slices_hi) throw usage_error_t("empty --slices range");
  if (!(o.speed > 0)) throw usage_error_t("--speed must be positive");
}

}  // namespace

run_request_t engine_request(const predict_options_t& o) {
  return make_run_request(o, o.ranks, o.memory, o.restart_slice);
}

prediction_t predict(const predict_options_t& o) {
  validate_options(o);
  const int top = top_slice(o.meaningless);
  const int input_slice = o.restart_slice >= 0 ? o.restart_slice : o.meaningless ? top : -1;
  const int first = input_slice >= 0 ? input_slice - 1 : 35;
  const int bottom = o.stop_after >= 0 ? o.stop_after : o.root.sum();
  const auto slices = descendant_sections(o.root, top);
  const int jobs = o.jobs > 0 ? o.jobs : int(std::max(1u, std::thread::hardware_concurrency()));

  // The computed slices to evaluate.
  std::vector<int> needed;
  for (int n = first; n >= bottom; n--)
    if (n >= o.slices_lo && n <= o.slices_hi && !slices[n].empty()) needed.push_back(n);
  if (needed.empty()) throw usage_error_t("--slices selects no computed slice of this run");

  // Partitions and per-rank loads of the needed slices, in parallel over (slice, rank).
  std::vector<std::unique_ptr<partition_t>> parts(36);
  for (const int n : needed)
    parts[n] = std::make_unique<partition_t>(slices[n], o.ranks, o.randomize);
  const std::vector<int> ranks = examined_ranks(o.ranks, o.rank_samples);
  std::vector<std::vector<rank_sums_t>> loads(36);
  for (const int n : needed) loads[n].resize(ranks.size());
  parallel_for(jobs, needed.size() * ranks.size(), [&](uint64_t task) {
    const int n = needed[task / ranks.size()];
    const size_t j = task % ranks.size();
    loads[n][j] = rank_load_estimate(*parts[n], ranks[j], o.rank_lines);
  });

  // pentago-endgame's own plan decides whether it starts and is the only memory model here.
  prediction_t p;
  p.engine = make_run_plan(engine_request(o), slices);
  for (const int n : needed) {
    slice_prediction_t s;
    s.slice = n;
    s.saved = n <= o.save;
    s.sections = slices[n].size();
    for (const auto& sec : slices[n]) {
      s.blocks += section_block_count(sec);
      s.nodes += sec.size();
    }
    s.lines = parts[n]->total_lines();
    s.ranks_examined = int(ranks.size());
    std::vector<double> lines, blocks, block_nodes, line_nodes, chunk;
    for (size_t j = 0; j < ranks.size(); j++) {
      const rank_sums_t& cur = loads[n][j];
      s.lines_sampled |= cur.sampled;
      lines.push_back(cur.lines);
      blocks.push_back(cur.blocks);
      block_nodes.push_back(cur.block_nodes);
      line_nodes.push_back(cur.line_nodes);
      chunk.push_back(s.saved ? o.xz_ratio * 64 * cur.block_nodes : 0);
    }
    s.rank_lines = range_of(lines, o.ranks);
    s.rank_blocks = range_of(blocks, o.ranks);
    s.rank_block_nodes = range_of(block_nodes, o.ranks);
    s.rank_line_nodes = range_of(line_nodes, o.ranks);
    if (const slice_plan_t* e = p.engine.slice_plan(n)) {
      s.rank_store_bytes = e->rank_store_bytes;
      s.pair_bytes = e->pair_bytes;
      s.max_line_bytes = e->max_line_bytes;
    }
    s.save_chunk = s.saved ? uint64_t(range_of(chunk, o.ranks).projected_max) : 0;
    s.output_bytes = s.saved ? 64 * s.nodes : 0;
    s.seconds = double(s.nodes) / (o.speed * o.ranks * o.threads);
    p.seconds += s.seconds;
    p.output_bytes += s.output_bytes;
    p.output_xz_bytes += uint64_t(o.xz_ratio * double(s.output_bytes));
    if (p.fits && s.save_chunk >= max_rank_chunk) {
      p.fits = false;
      p.reason = "slice " + std::to_string(n) + ": a rank's share of slice-" + std::to_string(n) +
                 ".pentago is about " + bytes_text(double(s.save_chunk)) +
                 ", over the 2 GiB one rank may write; use more ranks or a lower --save";
    }
    p.slices.push_back(s);
  }
  if (p.fits && !p.engine.fits) {
    p.fits = false;
    p.reason = "pentago-endgame would refuse to start: " + p.engine.reason;
  }
  return p;
}

std::string format_prediction(const predict_options_t& o, const prediction_t& p) {
  text_lines_t out;
  out.addf(
      "pentago-predict: root %s, %d ranks x %d threads, memory %s per rank, save <= %d, "
      "key %llu, samples %d, line limit %d%s%s",
      o.root.name().c_str(), o.ranks, o.threads, bytes_text(double(o.memory)).c_str(), o.save,
      (unsigned long long)o.randomize, o.samples, o.line_limit,
      o.meaningless ? (", meaningless " + std::to_string(o.meaningless)).c_str() : "",
      o.restart_slice >= 0 ? (", restart from slice " + std::to_string(o.restart_slice)).c_str()
                           : "");
  if (!p.slices.empty()) {
    const auto& s = p.slices.front();
    out.addf(
        "loads of %d of %d ranks per slice%s; memory per rank from pentago-endgame's "
        "plan; xz %.2f, %.3g output nodes/s/core",
        s.ranks_examined, o.ranks, s.ranks_examined < o.ranks ? " (sampled)" : "", o.xz_ratio,
        o.speed);
  }
  out.add("");
  out.add(
      "slice sections     blocks            nodes      lines | lines/rank      blocks/rank     "
      "| store/rank two stores largest line | saved (xz)   time");
  for (const auto& s : p.slices) {
    const std::string lines = std::to_string(uint64_t(s.rank_lines.min)) + "-" +
                              std::to_string(uint64_t(s.rank_lines.max));
    const std::string blocks = std::to_string(uint64_t(s.rank_blocks.min)) + "-" +
                               std::to_string(uint64_t(s.rank_blocks.max)) +
                               (s.lines_sampled ? "~" : "");
    out.addf("%5d %8llu %10llu %16llu %10llu | %-15s %-15s | %-10s %-10s %-12s | %-12s %s", s.slice,
             (unsigned long long)s.sections, (unsigned long long)s.blocks,
             (unsigned long long)s.nodes, (unsigned long long)s.lines, lines.c_str(),
             blocks.c_str(), bytes_text(double(s.rank_store_bytes)).c_str(),
             bytes_text(double(s.pair_bytes)).c_str(), bytes_text(double(s.max_line_bytes)).c_str(),
             s.saved ? bytes_text(o.xz_ratio * double(s.output_bytes)).c_str() : "-",
             format_seconds(s.seconds).c_str());
  }
  out.add("");
  // The engine's plan, as pentago-endgame logs it: the only memory figures of the prediction.
  for (const auto& l : format_run_plan(p.engine)) out.add(l);
  out.add("engine plan: " + bytes_text(double(p.engine.needed)) + " (" +
          std::to_string(p.engine.needed) + " bytes) per rank needed, compacting arena " +
          bytes_text(double(p.engine.arena_bytes)) +
          " (pentago-endgame refuses to start when the need exceeds --memory)");
  if (p.output_bytes)
    out.add("output: " + bytes_text(double(p.output_bytes)) + " of slice data, about " +
            bytes_text(double(p.output_xz_bytes)) + " compressed");
  out.add("time estimate: " + format_seconds(p.seconds) + " of computing at " +
          format_printf("%.3g", o.speed) + " output nodes per CPU-second per core (measured, " +
          "docs/tools.md) on " + std::to_string(o.ranks * o.threads) +
          " cores, one per thread; I/O not included; oversubscribed or shared cores are slower");
  out.add(p.fits ? "fits in " + bytes_text(double(o.memory)) + " per rank"
                 : "does not fit: " + p.reason);
  return out.text();
}

std::string predict_usage() {
  return "usage: pentago-predict --ranks R --memory M [options] ROOT\n"
         "Predicts an MPI run of pentago-endgame on ROOT (8 digits, e.g. 00000000): per slice the\n"
         "lines and blocks per rank (min-max), output bytes and computing time, and\n"
         "pentago-endgame's own memory plan (the same code and the same options and defaults)\n"
         "with whether it fits in M. Exits 1 with a one-line reason if it does not.\n" +
         engine_usage(engine_program_t::predict) +
         "  --slices A[-B]       evaluate only computed slices A..B\n"
         "  --speed S            output nodes per CPU-second per core (default 1e6, measured)\n"
         "  --xz-ratio R         slice-file compression ratio (default 0.15)\n"
         "  --rank-samples K     ranks examined per slice when there are more (default 64; 0: "
         "all)\n"
         "  --jobs J             threads computing loads (default: all hardware threads)\n"
         "  --stages             plan the run as a chain of jobs instead (see --stages --help)\n"
         "  --help               this text\n";
}

predict_options_t parse_predict_options(int argc, char** argv) {
  predict_options_t o;
  for (int i = 0; i < argc; i++) o.arguments.push_back(argv[i]);
  argument_cursor_t args(argc, argv);
  bool have_root = false;
  while (args.next()) {
    const std::string& arg = args.arg();
    if (take_engine_option(args, o, have_root)) continue;
    if (arg == "--slices") {
      const std::string v = args.value();
      const size_t dash = v.find('-');
      o.slices_lo = int(parse_int_option(arg, v.substr(0, dash), 0, 35));
      o.slices_hi = dash == std::string::npos
                        ? o.slices_lo
                        : int(parse_int_option(arg, v.substr(dash + 1), 0, 35));
    } else if (arg == "--speed")
      o.speed = parse_number_option(arg, args.value(), 1, 1e12);
    else if (arg == "--xz-ratio")
      o.xz_ratio = parse_number_option(arg, args.value(), 0.001, 2);
    else if (arg == "--rank-samples")
      o.rank_samples = int(args.int_value(0, 1 << 24));
    else if (arg == "--jobs")
      o.jobs = int(args.int_value(1, 1024));
    else
      args.unknown();
  }
  if (o.help) return o;
  validate_engine_options(o, have_root);
  validate_options(o);
  return o;
}

}  // namespace pentago
