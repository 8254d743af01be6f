// pentago-endgame: the slice loop of the MPI solver with its outputs, reports, restart,
// checkpoints and failure handling.
#include "pentago/mpi/endgame.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>

#include "pentago/data/supertensor.h"
#include "pentago/end/block_store.h"
#include "pentago/end/compacting_store.h"
#include "pentago/end/local_driver.h"
#include "pentago/end/meaningless.h"
#include "pentago/end/partition.h"
#include "pentago/end/run_options.h"
#include "pentago/end/run_plan.h"
#include "pentago/end/slice_output.h"
#include "pentago/layout/line_mapping.h"
#include "pentago/mpi/comm.h"
#include "pentago/mpi/flow.h"
#include "pentago/mpi/options.h"
#include "pentago/mpi/slice_io.h"
#include "pentago/mpi/trace.h"
#include "pentago/util/error.h"
#include "pentago/util/timer.h"
#include "pentago/util/worker_pool.h"

namespace pentago {
namespace {

using clock_type = std::chrono::steady_clock;
volatile std::sig_atomic_t checkpoint_requested = 0;
extern "C" void request_checkpoint(int) { checkpoint_requested = 1; }

// Peak resident memory of this process (VmHWM), in bytes.
uint64_t resident_high_water() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmHWM:", 0) == 0) return uint64_t(std::stoull(line.substr(6))) * 1024;
  return 0;
}

std::vector<block_key_t> keys_of(const partition_t& p, int rank) {
  std::vector<block_key_t> keys;
  for (const auto& b : p.rank_blocks(rank))
    keys.push_back({p.lines().section_index(b.section), b.block});
  return keys;
}

std::string join_args(int argc, char** argv, const std::string& skip_option = "",
                      const std::string& dir_replacement = "") {
  std::string s;
  for (int i = 0; i < argc; i++) {
    const std::string a = argv[i];
    if (!skip_option.empty() && a == skip_option && i + 1 < argc) {
      i++;
      continue;
    }
    if (a == "--dir" && i + 1 < argc && !dir_replacement.empty()) {
      s += " --dir " + shell_quote(dir_replacement);
      i++;
      continue;
    }
    s += (i ? " " : "") + shell_quote(a);
  }
  return s;
}

// K of the meaningless-K marker in the folder of a restart file (the run that wrote it), or 0.
int meaningless_marker_of(const std::string& restart) {
  namespace fs = std::filesystem;
  fs::path folder = fs::path(restart).parent_path();
  if (folder.empty()) folder = ".";
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("meaningless-", 0) == 0 && name.size() > 12 && name.size() <= 14 &&
        std::all_of(name.begin() + 12, name.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return std::stoi(name.substr(12));
  }
  return 0;
}

class endgame_run {
 public:
  endgame_run(const endgame_options& o, int argc, char** argv)
      : o_(o),
        argc_(argc),
        argv_(argv),
        rank_(mpi_rank()),
        ranks_(mpi_size()),
        pool_(o.threads - 1) {
    if (o.trace.size()) trace_ = std::make_unique<trace_recorder>();
  }

  // Everything that can refuse the run (restart file, memory plan), identically on every
  // rank, before the output directory exists: a refused run leaves nothing behind.
  void prepare() {
    const int root_slice = o_.root.sum();
    top_ = o_.meaningless ? o_.meaningless : 35;
    bottom_ = o_.stop_after >= 0 ? o_.stop_after : root_slice;
    slices_ = descendant_sections(o_.root, top_);
    const int top = top_, bottom = bottom_;
    const auto& slices = slices_;

    // A restart file fixes the first slice; check it before anything is planned or logged.
    std::vector<section_t> restart;
    int& restart_slice = restart_slice_;
    if (!o_.restart.empty()) {
      // A checkpoint of a meaningless run holds values that derive from the meaningless slice:
      // resuming it needs the same --meaningless, and real values must not be marked meaningless.
      const int marked = meaningless_marker_of(o_.restart);
      if (marked != o_.meaningless)
        throw usage_error(
            marked == 0 ? "--meaningless " + std::to_string(o_.meaningless) + " with --restart " +
                              o_.restart +
                              ": that file is not from a meaningless run (no meaningless-N marker "
                              "beside it), so its values are real"
            : o_.meaningless == 0
                ? "restart file " + o_.restart + " is from a run with --meaningless " +
                      std::to_string(marked) +
                      " (marker beside it): resume it with --meaningless " + std::to_string(marked)
                : "restart file " + o_.restart + " is from a run with --meaningless " +
                      std::to_string(marked) + ", not " + std::to_string(o_.meaningless));
      if (bottom >= top)
        throw usage_error("--restart: this run computes only slice " + std::to_string(top) +
                          ", so there is no slice to restart from");
      restart = restart_sections(o_.restart, MPI_COMM_WORLD);
      restart_slice = restart.empty() ? -1 : restart[0].sum();
      if (restart_slice < 0 || restart_slice > top || restart_slice <= bottom)
        throw usage_error("restart file " + o_.restart + " holds slice " +
                          std::to_string(restart_slice) + ", but this run can restart only from " +
                          (bottom + 1 == top ? "slice " + std::to_string(top)
                                             : "slices " + std::to_string(bottom + 1) + ".." +
                                                   std::to_string(top)));
      if (restart != slices[restart_slice])
        throw usage_error("restart file " + o_.restart + " does not hold the descendants of " +
                          o_.root.str() + " at slice " + std::to_string(restart_slice) + " (" +
                          std::to_string(restart.size()) + " sections, expected " +
                          std::to_string(slices[restart_slice].size()) + ")");
    }

    // Memory plan, identical on every rank (the one pentago-predict reports).
    run_request request;
    request.root = o_.root;
    request.ranks = ranks_;
    request.workers = o_.threads - 1;
    request.memory = o_.memory ? o_.memory : default_memory();
    request.meaningless = o_.meaningless;
    request.stop_after = o_.stop_after;
    request.restart_slice = restart_slice;
    request.samples = o_.samples;
    request.line_limit = o_.line_limit;
    request.save = o_.save;
    plan_ = make_run_plan(request, slices);
    if (!plan_.fits) throw usage_error(plan_.reason);
  }

  int run() {
    const auto start = clock_type::now();
    const int top = top_, bottom = bottom_, restart_slice = restart_slice_;
    const auto& slices = slices_;
    const auto& plan = plan_.slices;
    if (rank_ == 0 || o_.log_all)
      log_.open(o_.dir + (rank_ == 0 ? "/log" : "/log-" + std::to_string(rank_)));
    log_.set_echo(rank_ == 0);
    header();
    heap_ = std::make_unique<compacting_store>(plan_.arena_bytes);
    partials_ = std::make_unique<partial_pool>(plan_.partial_bytes);
    flow_limits limits{o_.gather_limit, o_.line_limit, plan_.line_bytes, o_.mode};

    if (o_.meaningless && rank_ == 0)
      std::ofstream(o_.dir + "/meaningless-" + std::to_string(o_.meaningless));

    std::unique_ptr<partition_t> prev_part;
    std::unique_ptr<block_store> prev;
    int first = 35;
    if (restart_slice >= 0) {
      const int n = restart_slice;
      const auto t = clock_type::now();
      prev_part = std::make_unique<partition_t>(slices[n], ranks_, o_.randomize);
      prev = std::make_unique<block_store>(slices[n], keys_of(*prev_part, rank_), 0, *heap_);
      read_restart_blocks(o_.restart, *prev, pool_);
      prev->freeze();
      log_.line("restart: read slice " + std::to_string(n) + " from " + o_.restart + " in " +
                format_seconds(seconds_since(t)));
      first = n - 1;
    } else if (o_.meaningless) {
      const int n = top;
      const auto t = clock_type::now();
      prev_part = std::make_unique<partition_t>(slices[n], ranks_, o_.randomize);
      prev =
          std::make_unique<block_store>(slices[n], keys_of(*prev_part, rank_), o_.samples, *heap_);
      fill_meaningless(*prev);
      prev->freeze();
      write_counts_and_samples(o_.dir, n, *prev, MPI_COMM_WORLD);
      log_.line("meaningless slice " + std::to_string(n) + " synthesized in " +
                format_seconds(seconds_since(t)));
      first = n - 1;
    }

    uint64_t total_nodes = 0, done_nodes = 0;
    for (const auto& p : plan)
      if (p.slice <= first) total_nodes += p.nodes;
    int computed = 0;
    for (int n = first; n >= bottom; n--) {
      if (slices[n].empty()) break;
      const auto t = clock_type::now();
      auto part = std::make_unique<partition_t>(slices[n], ranks_, o_.randomize);
      auto store = std::make_unique<block_store>(slices[n], keys_of(*part, rank_), o_.samples,
                                                 *heap_, partials_.get());
      report_load(n, *part);
      if (plan_.slice_plan(n)->dropped) store->drop_complete_blocks();
      if (n == o_.test_fail_slice && rank_ == o_.test_fail_rank)
        pool_.push_back([] { throw error("injected failure (--test-fail)"); });
      const flow_stats stats = compute_slice_flow(n, *part, *store, prev_part.get(), prev.get(),
                                                  comms_, pool_, limits, trace_.get());
      const double compute_seconds = seconds_since(t);
      prev.reset();
      prev_part.reset();
      store->freeze();
      prev = std::move(store);
      prev_part = std::move(part);
      computed++;

      const auto io_start = clock_type::now();
      write_counts_and_samples(o_.dir, n, *prev, MPI_COMM_WORLD);
      const std::string slice_path = o_.dir + "/" + slice_file_name(n);
      uint64_t file_bytes = 0;
      auto save = [&] {
        if (!file_bytes)
          file_bytes = write_slice_parallel(slice_path, n, *prev_part, *prev, pool_, MPI_COMM_WORLD,
                                            o_.level);
      };
      const bool periodic = o_.checkpoint_every && computed % o_.checkpoint_every == 0;
      if (n <= o_.save || (periodic && n > bottom)) save();
      // Agree on a checkpoint after any regular save, so a signal that arrived while it was
      // being written takes effect now rather than a slice later.
      int checkpoint = checkpoint_requested;
      PENTAGO_MPI(MPI_Allreduce(MPI_IN_PLACE, &checkpoint, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
      if (checkpoint && n > bottom) save();
      const double io_seconds = seconds_since(io_start);
      done_nodes += plan_.slice_plan(n) ? plan_.slice_plan(n)->nodes : 0;
      report_slice(n, slices[n].size(), *prev, stats, compute_seconds, io_seconds, file_bytes,
                   seconds_since(start), done_nodes, total_nodes);
      if (checkpoint && n > bottom) {
        log_.line("checkpoint: slice " + std::to_string(n) + " saved as " + slice_path);
        log_.line("resume with: mpirun -n " + std::to_string(ranks_) + " " +
                  join_args(argc_, argv_, "--restart", o_.dir + "-resume") + " --restart " +
                  shell_quote(slice_path));
        finish(start);
        return 0;
      }
    }
    finish(start);
    return 0;
  }

 private:
  uint64_t default_memory() const {
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node);
    const int local = mpi_size(node);
    MPI_Comm_free(&node);
    return physical_memory() / 2 / uint64_t(std::max(local, 1));
  }

  void header() {
    int major = 0, minor = 0, provided = 0;
    MPI_Get_version(&major, &minor);
    MPI_Query_thread(&provided);
    log_.line("pentago-endgame: " + join_args(argc_, argv_));
    log_.line("  ranks " + std::to_string(ranks_) + ", threads/rank " + std::to_string(o_.threads) +
              " (1 communication + " + std::to_string(o_.threads - 1) + " workers), root " +
              o_.root.name() + ", save <= " + std::to_string(o_.save) + ", key " +
              std::to_string(o_.randomize) + ", gather limit " + std::to_string(o_.gather_limit) +
              ", line limit " + std::to_string(o_.line_limit));
    log_.line("  MPI " + std::to_string(major) + "." + std::to_string(minor) + ", thread mode " +
              (o_.mode == thread_mode::funneled ? "funneled" : "multiple") + ", simd " +
              simd_name(current_simd_level()) + ", samples " + std::to_string(o_.samples) +
              (o_.meaningless ? ", meaningless " + std::to_string(o_.meaningless) : "") +
              (o_.restart.size() ? ", restart " + o_.restart : ""));
    for (const auto& line : format_run_plan(plan_)) log_.line("  " + line);
    if (o_.meaningless && restart_slice_ < 0)
      log_.line(meaningless_plan_note(o_.meaningless, plan_.slices.front().nodes));
  }

  void fill_meaningless(block_store& store) {
    for (int f = 0; f < store.blocks(); f++)
      pool_.push_back([this, &store, f] {
        const auto& key = store.key(f);
        const section_t& s = store.section(f);
        auto values = meaningless_block(s, key.block);
        store.set(f, values);
      });
    pool_.wait_idle();
    if (pool_.failed()) throw error(pool_.failure());
  }

  void report_load(int n, const partition_t& part) {
    const load_t load = rank_load(part, rank_);
    const auto values = load.values();
    std::array<int64_t, 2 * load_t::fields> local, global{};
    for (int i = 0; i < load_t::fields; i++)
      local[i] = -values[i], local[load_t::fields + i] = values[i];
    PENTAGO_MPI(MPI_Reduce(local.data(), global.data(), int(local.size()), MPI_INT64_T, MPI_MAX, 0,
                           MPI_COMM_WORLD));
    if (rank_ != 0) return;
    load_range_t range(load);
    for (int i = 0; i < load_t::fields; i++)
      range.min[i] = -global[i], range.max[i] = global[load_t::fields + i];
    std::string text = format_load_balance(range);
    std::string line = "slice " + std::to_string(n) + " load balance (min max ratio):";
    size_t p = 0;
    while (p < text.size()) {
      const size_t e = text.find('\n', p);
      line += "  " + text.substr(p, e == std::string::npos ? std::string::npos : e - p) + ";";
      if (e == std::string::npos) break;
      p = e + 1;
    }
    log_.line(line);
  }

  void report_slice(int n, size_t sections, const block_store& store, const flow_stats& stats,
                    double compute_seconds, double io_seconds, uint64_t file_bytes, double elapsed,
                    uint64_t done_nodes, uint64_t total_nodes) {
    const auto times = pool_.take_times();
    std::array<double, size_t(activity::count)> sum{};
    PENTAGO_MPI(MPI_Reduce(times.data(), sum.data(), int(times.size()), MPI_DOUBLE, MPI_SUM, 0,
                           MPI_COMM_WORLD));
    std::vector<double> per_rank(o_.per_rank_times && rank_ == 0 ? times.size() * ranks_ : 0);
    if (o_.per_rank_times)
      PENTAGO_MPI(MPI_Gather(times.data(), int(times.size()), MPI_DOUBLE, per_rank.data(),
                             int(times.size()), MPI_DOUBLE, 0, MPI_COMM_WORLD));
    const auto heap = heap_->stats();
    uint64_t local[5] = {store.compressed_bytes(), store.uncompressed_bytes(), stats.input_bytes,
                         stats.outputs_sent, resident_high_water()};
    // Per rank maxima: resident set, store bytes, arena live and bump high water, partials.
    uint64_t local_max[5] = {local[4], store.peak_held_bytes(), heap.peak_live_bytes,
                             heap.bump_high_water, partials_->carved_bytes()};
    uint64_t total[5] = {}, high_of[5] = {};
    PENTAGO_MPI(MPI_Reduce(local, total, 4, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD));
    PENTAGO_MPI(MPI_Reduce(local_max, high_of, 5, MPI_UINT64_T, MPI_MAX, 0, MPI_COMM_WORLD));
    const uint64_t high = high_of[0];
    if (rank_ != 0) return;
    uint64_t nodes = 0;
    for (const auto& s : store.sections()) nodes += s.size();
    const double cores = double(ranks_) * o_.threads;
    double busy = 0, all = 0;
    for (size_t a = 0; a < times.size(); a++) {
      all += sum[a];
      if (activity(a) != activity::idle) busy += sum[a];
    }
    const double rate = double(done_nodes) / std::max(elapsed, 1e-9);
    char buf[600];
    // A dropped slice keeps no complete blocks, so it has no compression ratio to report.
    std::snprintf(buf, sizeof buf, "%.3f",
                  double(total[0]) / std::max<double>(double(total[1]), 1));
    const bool dropped = store.drops_complete_blocks();
    const std::string ratio = dropped ? "-" : buf;
    const std::string compression = dropped ? "- (complete blocks dropped)" : ratio;
    std::snprintf(
        buf, sizeof buf,
        "slice %d: %zu sections, %llu nodes in %s (compute %s, io %s), %.4g nodes/s/core, "
        "compression %s, memory high water %s/rank, elapsed %s, eta %s",
        n, sections, (unsigned long long)nodes,
        format_seconds(compute_seconds + io_seconds).c_str(),
        format_seconds(compute_seconds).c_str(), format_seconds(io_seconds).c_str(),
        double(nodes) / std::max(compute_seconds, 1e-9) / cores, compression.c_str(),
        format_bytes(double(high)).c_str(), format_seconds(elapsed).c_str(),
        format_seconds(double(total_nodes - done_nodes) / std::max(rate, 1e-9)).c_str());
    log_.line(buf);
    std::string acts = "  worker time:";
    for (size_t a = 0; a < times.size(); a++) {
      std::snprintf(buf, sizeof buf, " %s %.2fs", activity_name(activity(a)), sum[a]);
      acts += buf;
    }
    std::snprintf(buf, sizeof buf, ", idle %.1f%%, traffic %s in, %llu output blocks sent",
                  100 * (all - busy) / std::max(all, 1e-9), format_bytes(double(total[2])).c_str(),
                  (unsigned long long)total[3]);
    log_.line(acts + buf);
    if (const slice_plan_t* p = plan_.slice_plan(n)) {
      std::snprintf(
          buf, sizeof buf,
          "  plan vs measured (max over ranks): store %s vs %s, ratio %.2f vs %s; "
          "arena live %s, touched %s of %s; partial blocks %s of %s; resident %s of "
          "--memory %s",
          format_bytes(double(p->rank_store_bytes)).c_str(),
          format_bytes(double(high_of[1])).c_str(), p->ratio, ratio.c_str(),
          format_bytes(double(high_of[2])).c_str(), format_bytes(double(high_of[3])).c_str(),
          format_bytes(double(plan_.arena_bytes)).c_str(), format_bytes(double(high_of[4])).c_str(),
          format_bytes(double(plan_.partial_bytes)).c_str(), format_bytes(double(high)).c_str(),
          format_bytes(double(plan_.memory)).c_str());
      log_.line(buf);
    }
    if (file_bytes)
      log_.line("  wrote slice-" + std::to_string(n) +
                ".pentago: " + format_bytes(double(file_bytes)));
    for (int r = 0; r < int(per_rank.size() / times.size()); r++) {
      std::string line = "  rank " + std::to_string(r) + ":";
      for (size_t a = 0; a < times.size(); a++) {
        std::snprintf(buf, sizeof buf, " %s %.2fs", activity_name(activity(a)),
                      per_rank[r * times.size() + a]);
        line += buf;
      }
      log_.line(line);
    }
  }

  void finish(clock_type::time_point start) {
    if (trace_) trace_->write(o_.trace, MPI_COMM_WORLD);
    uint64_t high = resident_high_water(), max_high = 0;
    PENTAGO_MPI(MPI_Reduce(&high, &max_high, 1, MPI_UINT64_T, MPI_MAX, 0, MPI_COMM_WORLD));
    log_.line("done: " + format_seconds(seconds_since(start)) + " total, memory high water " +
              format_bytes(double(max_high)) + " per rank (max)");
  }

  const endgame_options o_;
  // The plan of prepare().
  int top_ = 35, bottom_ = 0, restart_slice_ = -1;
  std::vector<std::vector<section_t>> slices_;
  run_plan plan_;
  int argc_;
  char** argv_;
  const int rank_, ranks_;
  worker_pool pool_;
  endgame_comms comms_;
  std::unique_ptr<compacting_store> heap_;
  std::unique_ptr<partial_pool> partials_;
  std::unique_ptr<trace_recorder> trace_;
  run_log log_;
};

}  // namespace

int run_endgame(int argc, char** argv) {
  thread_mode mode = thread_mode::funneled;
  for (int i = 1; i + 1 < argc; i++)
    if (!std::strcmp(argv[i], "--thread-mode") && !std::strcmp(argv[i + 1], "multiple"))
      mode = thread_mode::multiple;
  const int required = mode == thread_mode::multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_FUNNELED;
  int provided = 0;
  MPI_Init_thread(&argc, &argv, required, &provided);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const int rank = mpi_rank();
  if (provided < required)
    abort_job("MPI provides thread level " + std::to_string(provided) + " but " +
              std::to_string(required) + " is required");
  std::unique_ptr<endgame_run> run;
  auto usage_exit = [&](const std::string& message) {
    run.reset();  // before MPI_Finalize: it owns communicators and threads
    if (rank == 0) std::fprintf(stderr, "pentago-endgame: %s\n", message.c_str());
    MPI_Finalize();
    return 2;
  };
  endgame_options o;
  try {
    o = parse_endgame_options(argc, argv);
  } catch (const usage_error& e) {
    return usage_exit(e.what());
  }
  if (o.help) {
    if (rank == 0) std::fputs(endgame_usage().c_str(), stdout);
    MPI_Finalize();
    return 0;
  }
  try {
    run = std::make_unique<endgame_run>(o, argc, argv);
    run->prepare();
  } catch (const usage_error& e) {
    // Detected identically on every rank (plan, restart file): a clean collective exit.
    return usage_exit(e.what());
  } catch (const std::exception& e) {
    abort_job(e.what());
  }
  // Rank 0 checks the trace file and creates the directory; everyone learns whether that worked.
  std::string message;
  if (rank == 0) {
    try {
      check_new_output_file("--trace", o.trace, o.dir);
      create_run_directory(o.dir);
    } catch (const error& e) {
      message = e.what();
    }
  }
  int length = int(message.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD);
  message.resize(length);
  MPI_Bcast(message.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (length) return usage_exit(message);
  std::signal(SIGUSR1, request_checkpoint);
  std::signal(SIGTERM, request_checkpoint);
  int code = 0;
  try {
    code = run->run();
  } catch (const usage_error& e) {
    // Detected identically on every rank (plan, restart file): a clean collective exit.
    return usage_exit(e.what());
  } catch (const std::exception& e) {
    abort_job(e.what());
  }
  run.reset();
  MPI_Finalize();
  return code;
}

}  // namespace pentago
