// The staged plan of a big run: slice ranges with their own node counts (see stages.h).
#include "pentago/plan/stages.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <thread>

#include "pentago/end/rank_overhead.h"
#include "pentago/end/run_plan.h"
#include "pentago/layout/blocks.h"
#include "pentago/util/error.h"
#include "pentago/util/format.h"
#include "pentago/util/options.h"
#include "pentago/util/parallel_for.h"

namespace pentago {
namespace {

constexpr double GiB = double(uint64_t(1) << 30);
// The two rank counts of the single-slice plans: need = fixed + per_rank / ranks.
constexpr int low_ranks = 2, high_ranks = 4;
// Node counts searched at most (a job of more nodes is not planned).
constexpr int max_nodes = 1 << 20;
// xz decoding of a restart file, bytes (64 per node) per core-second.
constexpr double xz_decode_speed = 50e6;

// Line count, node sum and sum of squares of one slice's block lines, from section shapes.
void line_sizes(const std::vector<section_t>& sections, stage_slice_t& out) {
  double count = 0, sum = 0, squares = 0, largest = 0;
  for (const auto& s : sections) {
    const auto shape = s.shape();
    for (int d = 0; d < 4; d++) {
      if (s.quadrant_full(d)) continue;
      double c = 1, x = shape[d], x2 = double(shape[d]) * shape[d], top = shape[d];
      for (int a = 0; a < 4; a++) {
        if (a == d) continue;
        const int blocks = (shape[a] + block_size - 1) / block_size;
        double width_sum = 0, width_squares = 0;
        for (int b = 0; b < blocks; b++) {
          const int w = std::min(block_size, shape[a] - block_size * b);
          width_sum += w;
          width_squares += double(w) * w;
        }
        c *= blocks, x *= width_sum, x2 *= width_squares;
        top *= std::min(block_size, shape[a]);
      }
      count += c, sum += x, squares += x2;
      largest = std::max(largest, top);
    }
  }
  const double mean = count ? sum / count : 0;
  const double variance = count ? std::max(0.0, squares / count - mean * mean) : 0;
  out.line_cv = mean > 0 ? std::sqrt(variance) / mean : 0;
  out.line_nodes = uint64_t(sum);
  out.max_line_nodes = uint64_t(largest);
}

run_request_t single_slice_request(const stage_options_t& o, int slice, bool dropped, int ranks) {
  run_request_t r = engine_request(o.run);
  r.ranks = ranks;
  r.memory = 1;  // never fits: the plan keeps its raw admission figure
  r.meaningless = 0;
  r.stop_after = slice;
  r.restart_slice = slice < 35 ? slice + 1 : -1;
  r.save = dropped ? o.run.save : std::max(o.run.save, slice);
  // "Saved" here only keeps the slice whole; the per-slice model leaves writing out (the stages
  // do not add the writing of their restart files).
  r.plan_writing = false;
  return r;
}

struct model_t {
  const stage_options_t& o;
  const std::vector<stage_slice_t>& slices;  // top first
  int ranks_per_node, threads;
  uint64_t rank_memory;

  bool final_dropped() const {
    return slices.back().slice > o.run.save;  // the run's bottom slice, not saved
  }
  // The job's --save for a stage whose lowest slice index is j.
  int stage_save(size_t j) const {
    return j + 1 < slices.size() ? std::max(o.run.save, slices[j].slice) : o.run.save;
  }
  double need(size_t i, size_t j, int ranks) const {
    const bool dropped = j + 1 == slices.size() && final_dropped();
    return stage_need(slices, slices[i].slice, slices[j].slice, dropped, ranks);
  }
  // Compute and file seconds of stage [i..j] on `nodes` nodes.
  void seconds(size_t i, size_t j, int nodes, stage_t& s) const {
    const int ranks = nodes * ranks_per_node;
    const double cores = double(ranks) * threads;
    s.compute_seconds = 0;
    s.io_seconds = o.job_seconds;
    for (size_t k = i; k <= j; k++) {
      const stage_slice_t& sl = slices[k];
      s.compute_seconds +=
          line_imbalance(sl, ranks) * double(sl.nodes) / (o.run.speed * cores) + o.slice_seconds;
      const double bytes = 64 * double(sl.nodes);
      const bool saved = sl.slice <= o.run.save;
      const bool checkpoint = k == j && j + 1 < slices.size() && !saved;
      if (saved || checkpoint)
        s.io_seconds += bytes / ((checkpoint ? o.checkpoint_speed : o.xz_speed) * cores) +
                        o.run.xz_ratio * bytes / o.fs_bandwidth;
    }
    if (i > 0) {  // read the previous stage's file
      const double bytes = 64 * double(slices[i - 1].nodes);
      s.io_seconds += o.run.xz_ratio * bytes / o.fs_bandwidth + bytes / (xz_decode_speed * cores);
    }
    s.seconds = s.compute_seconds + s.io_seconds;
    s.node_hours = double(nodes) * s.seconds / 3600;
  }
  // The cheapest node count for stage [i..j]: the fewest that hold it and finish in time.
  bool plan(size_t i, size_t j, stage_t& s) const {
    const auto fits = [&](int n) { return need(i, j, n * ranks_per_node) <= double(rank_memory); };
    // The need falls with the rank count until the per-peer term takes over: search below
    // the turning point.
    int hi = 1;
    while (hi < max_nodes && !fits(hi)) {
      const int next = std::min(max_nodes, hi * 2);
      if (need(i, j, next * ranks_per_node) >= need(i, j, hi * ranks_per_node) && !fits(next))
        return false;  // past the turning point without fitting
      hi = next;
    }
    if (!fits(hi)) return false;
    int lo = hi / 2;  // !fits(lo) or lo == 0
    while (hi - lo > 1) {
      const int mid = (lo + hi) / 2;
      (fits(mid) ? hi : lo) = mid;
    }
    int nodes = hi;
    s.top = slices[i].slice;
    s.bottom = slices[j].slice;
    seconds(i, j, nodes, s);
    for (int tries = 0; s.seconds > o.max_job_hours * 3600 && tries < 64; tries++) {
      nodes = std::min(
          max_nodes, int(std::ceil(nodes * std::max(1.02, s.seconds / (o.max_job_hours * 3600)))));
      seconds(i, j, nodes, s);
    }
    if (s.seconds > o.max_job_hours * 3600) return false;
    s.nodes = nodes;
    s.ranks = nodes * ranks_per_node;
    s.memory = rank_memory;
    s.restart_slice = i > 0 ? slices[i - 1].slice : -1;
    s.save = stage_save(j);
    s.checkpoint = j + 1 < slices.size() && slices[j].slice > o.run.save;
    s.peak_bytes = uint64_t(need(i, j, s.ranks));
    double worst = -1;
    for (size_t k = i; k <= j; k++) {
      const double one = need(k, k, s.ranks);
      if (one > worst) worst = one, s.peak_slice = slices[k].slice;
    }
    return true;
  }
  // The engine's own plan for a stage: more nodes until it admits the job.
  void verify(stage_t& s, std::vector<std::vector<section_t>>& sections) const {
    for (int tries = 0; tries < 64; tries++) {
      run_request_t r = engine_request(o.run);
      r.ranks = s.ranks;
      r.memory = rank_memory;
      r.stop_after = s.bottom;
      r.restart_slice = s.restart_slice;
      r.save = s.save;
      const run_plan_t p = make_run_plan(r, sections);
      s.plan_needed = p.needed;
      if (p.fits) return;
      s.nodes = std::max(s.nodes + 1,
                         int(std::ceil(s.nodes * double(s.plan_needed) / double(rank_memory))));
      s.ranks = s.nodes * ranks_per_node;
      size_t i = 0, j = 0;
      for (size_t k = 0; k < slices.size(); k++) {
        if (slices[k].slice == s.top) i = k;
        if (slices[k].slice == s.bottom) j = k;
      }
      seconds(i, j, s.nodes, s);
    }
    throw pentago_error_t("the engine's plan refuses stage " + std::to_string(s.top) + "-" +
                          std::to_string(s.bottom) + " at every node count tried");
  }
};

double total_hours(const std::vector<stage_t>& stages) {
  double h = 0;
  for (const auto& s : stages) h += s.node_hours;
  return h;
}

double total_seconds(const std::vector<stage_t>& stages) {
  double t = 0;
  for (const auto& s : stages) t += s.seconds;
  return t;
}

}  // namespace

double line_imbalance(const stage_slice_t& s, int ranks) {
  if (ranks <= 1 || !s.lines || !s.line_nodes) return 1;
  const double r = ranks, mean = double(s.line_nodes) / r;
  // The largest of R normal draws lies about z standard deviations above their mean (the
  // location of the Gumbel limit); a rank's line nodes are a sum of lines/R line sizes.
  const double root = std::sqrt(2 * std::log(r));
  const double z = std::max(
      0.0, root - (std::log(std::log(std::max(r, 3.0))) + std::log(4 * M_PI)) / (2 * root));
  const double spread = 1 + s.line_cv * std::sqrt(r / double(s.lines)) * z;
  // The largest rank holds at least the largest line and at most its line count of them.
  const double lowest = double(s.max_line_nodes) / mean;
  const double highest = std::ceil(double(s.lines) / r) * double(s.max_line_nodes) / mean;
  return std::max({1.0, lowest, std::min(spread, highest)});
}

double stage_need(const std::vector<stage_slice_t>& slices, int top, int bottom, bool dropped,
                  int ranks) {
  double fixed = 0, per_rank = 0;
  for (const auto& s : slices) {
    if (s.slice > top || s.slice < bottom) continue;
    const bool drop = dropped && s.slice == bottom;
    fixed = std::max(fixed, drop ? s.dropped_fixed : s.need_fixed);
    per_rank = std::max(per_rank, drop ? s.dropped_per_rank : s.need_per_rank);
  }
  // At 1 rank the plan has no imbalance factor; this is at most 3% high there.
  return fixed + per_rank / std::max(ranks, 1) + double(rank_count_bytes(ranks));
}

stage_plan_t plan_stages(const stage_options_t& o) {
  if (o.run.meaningless || o.run.restart_slice >= 0)
    throw usage_error_t("--stages plans a whole run: --meaningless and --restart do not apply");
  if (o.cores_per_node < o.run.threads)
    throw usage_error_t("--cores-per-node " + std::to_string(o.cores_per_node) +
                        " is less than --threads " + std::to_string(o.run.threads));
  stage_plan_t plan;
  plan.threads = o.run.threads;
  plan.ranks_per_node = o.cores_per_node / o.run.threads;
  const uint64_t reserve =
      o.node_reserve ? o.node_reserve
                     : std::max(uint64_t(4) << 30, uint64_t(0.05 * double(o.node_memory)));
  if (reserve >= o.node_memory)
    throw usage_error_t("--node-memory " + format_bytes(double(o.node_memory)) +
                        " leaves nothing after the system's reserve " +
                        format_bytes(double(reserve)));
  plan.rank_memory = (o.node_memory - reserve) / uint64_t(plan.ranks_per_node);

  auto sections = descendant_sections(o.run.root, 35);
  const int bottom = o.run.stop_after >= 0 ? o.run.stop_after : o.run.root.sum();
  for (int n = 35; n >= bottom; n--) {
    if (sections[n].empty()) break;
    stage_slice_t s;
    s.slice = n;
    s.sections = sections[n].size();
    for (const auto& sec : sections[n]) s.nodes += sec.size();
    line_sizes(sections[n], s);
    plan.slices.push_back(s);
  }
  // Single-slice plans: every slice kept (a stage's bottom is saved for the next), and the
  // run's bottom also dropped; each at two rank counts.
  const bool drop_bottom = plan.slices.back().slice > o.run.save;
  struct task_t {
    size_t index;
    bool dropped;
    int ranks;
  };
  std::vector<task_t> tasks;
  for (size_t k = 0; k < plan.slices.size(); k++)
    for (const bool dropped : {false, true}) {
      if (dropped && !(drop_bottom && k + 1 == plan.slices.size())) continue;
      for (const int r : {low_ranks, high_ranks}) tasks.push_back({k, dropped, r});
    }
  std::vector<double> needed(tasks.size());
  std::vector<uint64_t> lines(tasks.size());
  const int jobs =
      o.run.jobs > 0 ? o.run.jobs : int(std::max(1u, std::thread::hardware_concurrency()));
  parallel_for(jobs, tasks.size(), [&](uint64_t t) {
    const task_t& k = tasks[t];
    const run_plan_t p = make_run_plan(
        single_slice_request(o, plan.slices[k.index].slice, k.dropped, k.ranks), sections);
    // The fit below models the rest; MPI's per-peer term is added back at each rank count.
    needed[t] = double(p.needed) - double(rank_count_bytes(k.ranks));
    lines[t] = p.slice_plan(plan.slices[k.index].slice)->lines;
  });
  for (size_t t = 0; t + 1 < tasks.size(); t += 2) {
    // needed(R) = fixed + per_rank / R at R = 2 and 4.
    const double per_rank =
        (needed[t] - needed[t + 1]) * low_ranks * high_ranks / double(high_ranks - low_ranks);
    const double fixed = needed[t] - per_rank / low_ranks;
    stage_slice_t& s = plan.slices[tasks[t].index];
    s.lines = lines[t];
    (tasks[t].dropped ? s.dropped_fixed : s.need_fixed) = fixed;
    (tasks[t].dropped ? s.dropped_per_rank : s.need_per_rank) = per_rank;
  }

  // Stages: dynamic programming over the lowest slice of each stage, by stage count.
  const model_t m{o, plan.slices, plan.ranks_per_node, plan.threads, plan.rank_memory};
  const size_t count = plan.slices.size();
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<std::vector<stage_t>> cost(count, std::vector<stage_t>(count));
  std::vector<std::vector<bool>> feasible(count, std::vector<bool>(count, false));
  for (size_t i = 0; i < count; i++)
    for (size_t j = i; j < count; j++) feasible[i][j] = m.plan(i, j, cost[i][j]);
  // best[k][j]: the cheapest k+1 stages covering slices 0..j; from[k][j]: the first slice of
  // its last stage.
  const int max_stages = std::max(1, std::min<int>(o.max_stages, int(count)));
  std::vector<std::vector<double>> best(size_t(max_stages), std::vector<double>(count, inf));
  std::vector<std::vector<size_t>> from(size_t(max_stages), std::vector<size_t>(count, 0));
  for (size_t j = 0; j < count; j++)
    if (feasible[0][j]) best[0][j] = cost[0][j].node_hours;
  for (int k = 1; k < max_stages; k++)
    for (size_t j = 0; j < count; j++)
      for (size_t i = 1; i <= j; i++)
        if (feasible[i][j] && best[k - 1][i - 1] < inf) {
          const double h = best[k - 1][i - 1] + cost[i][j].node_hours;
          if (h < best[k][j]) best[k][j] = h, from[k][j] = i;
        }
  plan.best_by_count.resize(size_t(max_stages));
  for (int k = 0; k < max_stages; k++) {
    if (best[k][count - 1] == inf) continue;
    std::vector<stage_t> stages;
    size_t j = count - 1;
    for (int q = k; q >= 0; q--) {
      const size_t i = q ? from[q][j] : 0;
      stages.insert(stages.begin(), cost[i][j]);
      j = i ? i - 1 : 0;
    }
    plan.best_by_count[size_t(k)] = stages;
  }
  if (plan.best_by_count[0].empty()) {
    plan.fits = false;
    plan.reason = "slices " + std::to_string(plan.slices.front().slice) + "-" +
                  std::to_string(plan.slices.back().slice) + " do not fit as one job of at most " +
                  std::to_string(max_nodes) + " nodes in " + format_seconds(o.max_job_hours * 3600);
  }
  int best_k = -1;
  for (int k = 0; k < max_stages; k++)
    if (!plan.best_by_count[size_t(k)].empty() &&
        (best_k < 0 || total_hours(plan.best_by_count[size_t(k)]) <
                           total_hours(plan.best_by_count[size_t(best_k)])))
      best_k = k;
  if (best_k < 0) {
    plan.fits = false;
    if (plan.reason.empty()) plan.reason = "no staging of the slices fits";
    return plan;
  }
  // The engine's own plan admits every chosen stage (more nodes where it would not).
  for (auto& stages : plan.best_by_count)
    if (&stages == &plan.best_by_count[size_t(best_k)] || &stages == &plan.best_by_count[0])
      for (auto& s : stages) m.verify(s, sections);
  plan.stages = plan.best_by_count[size_t(best_k)];
  plan.single = plan.best_by_count[0];
  plan.node_hours = total_hours(plan.stages);
  plan.seconds = total_seconds(plan.stages);
  plan.single_node_hours = total_hours(plan.single);
  plan.single_seconds = total_seconds(plan.single);
  return plan;
}

std::string format_stage_plan(const stage_options_t& o, const stage_plan_t& p) {
  text_lines_t out;
  out.addf(
      "pentago-predict --stages: root %s, nodes of %s with %d cores: %d ranks x %d "
      "threads per node, --memory %s per rank, save <= %d",
      o.run.root.name().c_str(), format_bytes(double(o.node_memory)).c_str(), o.cores_per_node,
      p.ranks_per_node, p.threads, format_bytes(double(p.rank_memory)).c_str(), o.run.save);
  out.addf(
      "model: %.3g output nodes/s/thread, line imbalance of a random partition, %.0f s "
      "per slice, %.0f s per job; slice files xz %.2g B/s/core (checkpoints at --level "
      "0: %.2g), file system %.3g B/s; jobs of at most %.1f h",
      o.run.speed, o.slice_seconds, o.job_seconds, o.xz_speed, o.checkpoint_speed, o.fs_bandwidth,
      o.max_job_hours);
  out.add("");
  out.add(
      "slice       nodes        lines  line cv | memory of the slice alone: all ranks   "
      "min nodes");
  for (const auto& s : p.slices) {
    // The slice alone as a stage (kept): its store over all ranks, and the fewest nodes.
    const double all = s.need_per_rank;
    int nodes = 1;
    while (nodes < max_nodes && stage_need(p.slices, s.slice, s.slice, false,
                                           nodes * p.ranks_per_node) > double(p.rank_memory)) {
      const int next = nodes * 2;
      if (stage_need(p.slices, s.slice, s.slice, false, next * p.ranks_per_node) >
              stage_need(p.slices, s.slice, s.slice, false, nodes * p.ranks_per_node) &&
          stage_need(p.slices, s.slice, s.slice, false, next * p.ranks_per_node) >
              double(p.rank_memory)) {
        nodes = max_nodes;
        break;
      }
      nodes = next;
    }
    if (nodes < max_nodes) {
      int lo = nodes / 2, hi = nodes;
      while (hi - lo > 1) {
        const int mid = (lo + hi) / 2;
        (stage_need(p.slices, s.slice, s.slice, false, mid * p.ranks_per_node) <=
                 double(p.rank_memory)
             ? hi
             : lo) = mid;
      }
      nodes = hi;
    }
    out.addf("%5d %11.4g %12llu %8.3f | %36s   %9s", s.slice, double(s.nodes),
             (unsigned long long)s.lines, s.line_cv, format_bytes(all).c_str(),
             nodes < max_nodes ? std::to_string(nodes).c_str() : "-");
  }
  out.add("");
  auto describe = [&](const std::vector<stage_t>& stages, const char* title) {
    out.addf("%s: %zu stage%s, %.4g node-hours, wall %s", title, stages.size(),
             stages.size() == 1 ? "" : "s", total_hours(stages),
             format_seconds(total_seconds(stages)).c_str());
    for (size_t k = 0; k < stages.size(); k++) {
      const stage_t& s = stages[k];
      out.addf(
          "  stage %zu: slices %d-%d on %d nodes (%d ranks), --memory %s, engine plan "
          "%s per rank (peak at slice %d); compute %s, files and start %s, wall %s, "
          "%.4g node-hours%s",
          k + 1, s.top, s.bottom, s.nodes, s.ranks, format_bytes(double(s.memory)).c_str(),
          format_bytes(double(std::max<uint64_t>(s.plan_needed, s.peak_bytes))).c_str(),
          s.peak_slice, format_seconds(s.compute_seconds).c_str(),
          format_seconds(s.io_seconds).c_str(), format_seconds(s.seconds).c_str(), s.node_hours,
          s.checkpoint
              ? (", checkpoint slice-" + std::to_string(s.bottom) + ".pentago at --level 0").c_str()
              : "");
    }
  };
  if (!p.fits) {
    out.add("does not fit: " + p.reason);
    return out.text();
  }
  describe(p.stages, "best plan");
  describe(p.single, "best single-stage job");
  const double saved = p.single_node_hours - p.node_hours;
  out.addf(
      "saving: %.4g node-hours (%.1f%%) against the best single-stage job; wall %s "
      "against %s",
      saved, 100 * saved / std::max(p.single_node_hours, 1e-9), format_seconds(p.seconds).c_str(),
      format_seconds(p.single_seconds).c_str());
  std::string counts = "by stage count:";
  for (size_t k = 0; k < p.best_by_count.size(); k++) {
    if (p.best_by_count[k].empty()) continue;
    counts += format_printf(" %zu: %.4g node-hours;", k + 1, total_hours(p.best_by_count[k]));
  }
  out.add(counts);
  // One line per job for the scripts that chain them (jobs/*/staged.sh).
  for (size_t k = 0; k < p.stages.size(); k++) {
    const stage_t& s = p.stages[k];
    out.addf(
        "job %zu: --nodes %d --ranks %d --threads %d --memory %llu --stop-after %d "
        "--save %d --level %d --restart-slice %d",
        k + 1, s.nodes, s.ranks, p.threads, (unsigned long long)s.memory, s.bottom, s.save,
        s.checkpoint ? 0 : 6, s.restart_slice);
  }
  return out.text();
}

bool stages_requested(int argc, char** argv) {
  for (int i = 1; i < argc; i++)
    if (!std::strcmp(argv[i], "--stages")) return true;
  return false;
}

std::string stages_usage() {
  return "usage: pentago-predict --stages --node-memory SIZE --cores-per-node N [options] ROOT\n"
         "Plans the run of ROOT as consecutive jobs (stages), each on the fewest nodes that hold\n"
         "its slices, restarting from the previous stage's last slice file, and prints the\n"
         "node-hours against the best single job.\n"
         "  --node-memory SIZE     memory per node, e.g. 256G (required)\n"
         "  --cores-per-node N     cores per node (required); ranks per node = N / --threads\n"
         "  --threads T            threads per rank (default 8)\n"
         "  --node-reserve SIZE    memory per node kept for the system (default max(4G, 5%))\n"
         "  --max-stages K         stages considered (default 4)\n"
         "  --max-job-hours H      longest job (default 24)\n"
         "  --job-seconds S        per job: launch and start (default 300)\n"
         "  --slice-seconds S      per slice: reductions, counts, barrier (default 5)\n"
         "  --fs-bandwidth B       file system bytes per second (default 50e9)\n"
         "  --xz-speed B           xz bytes per core-second at the saved level (default 1.3e6)\n"
         "  --checkpoint-speed B   the same at --level 0, for checkpoints (default 12e6)\n"
         "  and --save, --randomize, --samples, --stop-after, --line-limit, --speed,\n"
         "  --snappy-ratio, --xz-ratio, --jobs as without --stages.\n";
}

stage_options_t parse_stage_options(int argc, char** argv) {
  stage_options_t o;
  // The stage options here; the rest go to pentago-predict's own parser, with a rank count and
  // memory that the stages replace.
  std::vector<std::string> rest = {argc ? argv[0] : "pentago-predict"};
  bool threads_given = false;
  argument_cursor_t args(argc, argv);
  while (args.next()) {
    const std::string& arg = args.arg();
    if (arg == "--stages")
      continue;
    else if (arg == "--node-memory")
      o.node_memory = parse_memory_option(arg, args.value());
    else if (arg == "--cores-per-node")
      o.cores_per_node = int(parse_int_option(arg, args.value(), 1, 1 << 16));
    else if (arg == "--node-reserve")
      o.node_reserve = parse_memory_option(arg, args.value());
    else if (arg == "--max-stages")
      o.max_stages = int(parse_int_option(arg, args.value(), 1, 36));
    else if (arg == "--max-job-hours")
      o.max_job_hours = parse_number_option(arg, args.value(), 0.01, 1e5);
    else if (arg == "--job-seconds")
      o.job_seconds = parse_number_option(arg, args.value(), 0, 1e6);
    else if (arg == "--slice-seconds")
      o.slice_seconds = parse_number_option(arg, args.value(), 0, 1e6);
    else if (arg == "--fs-bandwidth")
      o.fs_bandwidth = parse_number_option(arg, args.value(), 1e3, 1e15);
    else if (arg == "--xz-speed")
      o.xz_speed = parse_number_option(arg, args.value(), 1e3, 1e12);
    else if (arg == "--checkpoint-speed")
      o.checkpoint_speed = parse_number_option(arg, args.value(), 1e3, 1e12);
    else if (arg == "--ranks" || arg == "--memory" || arg == "--restart" ||
             arg == "--meaningless" || arg == "--slices" || arg == "--rank-samples")
      throw usage_error_t(arg + " does not apply with --stages");
    else {
      threads_given |= arg == "--threads";
      rest.push_back(arg);
      if (args.is_option() && arg != "--help") rest.push_back(args.value());
    }
  }
  if (!o.node_memory) throw usage_error_t("--stages needs --node-memory SIZE");
  if (!o.cores_per_node) throw usage_error_t("--stages needs --cores-per-node N");
  if (!threads_given) rest.insert(rest.end(), {"--threads", "8"});
  rest.insert(rest.end(), {"--ranks", "1", "--memory", std::to_string(o.node_memory)});
  std::vector<char*> pointers;
  for (auto& s : rest) pointers.push_back(s.data());
  o.run = parse_predict_options(int(pointers.size()), pointers.data());
  return o;
}

}  // namespace pentago
