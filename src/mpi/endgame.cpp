// pentago-endgame: MPI set-up, options, the run's plan, the shared slice loop with the MPI
// slice computer, the closing report, and job-wide abort on any error. Restart checks are in
// restart_checks.cpp, the per-slice work in mpi_computer.cpp, the loop in end/slice_loop.cpp.
#include "pentago/mpi/endgame.h"

#include <mpi.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <exception>
#include <fstream>
#include <memory>

#include "pentago/end/engine_options.h"
#include "pentago/end/run_header.h"
#include "pentago/end/run_log.h"
#include "pentago/end/run_plan.h"
#include "pentago/end/run_record.h"
#include "pentago/end/slice_loop.h"
#include "pentago/end/slice_output.h"
#include "pentago/layout/line_mapping.h"
#include "pentago/mpi/comm.h"
#include "pentago/mpi/mpi_computer.h"
#include "pentago/mpi/restart_checks.h"
#include "pentago/mpi/trace.h"
#include "pentago/util/error.h"
#include "pentago/util/format.h"
#include "pentago/util/timer.h"

namespace pentago {
namespace {

using clock_type_t = std::chrono::steady_clock;
volatile std::sig_atomic_t checkpoint_requested = 0;
extern "C" void request_checkpoint(int) { checkpoint_requested = 1; }

// The command line that resumes from `slice_path` into DIR-resume.
std::string resume_command(const engine_options_t& o, int ranks, const std::string& slice_path) {
  std::string s = "mpirun -n " + std::to_string(ranks);
  const auto& a = o.arguments;
  for (size_t i = 0; i < a.size(); i++) {
    const bool inline_value = a[i].find('=') != std::string::npos;
    const std::string name = a[i].substr(0, a[i].find('='));
    if (name == "--restart" || name == "--dir") {
      if (!inline_value) i++;
      continue;
    }
    s += " " + shell_quote(a[i]);
  }
  return s + " --dir " + shell_quote(o.dir + "-resume") + " --restart " + shell_quote(slice_path);
}

// The first touch of fresh memory costs what the node makes it cost: the node's first rank
// probes it and the node's other ranks take its answer (ranks probing at once would also time
// each other's page faults).
page_probe_t probe_page_sizes_per_node() {
  MPI_Comm node = MPI_COMM_NULL;
  PENTAGO_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  double probed[3] = {};  // base and huge seconds per GiB, 1 where huge pages are cheaper
  if (mpi_rank(node) == 0) {
    const page_probe_t p = probe_page_sizes();
    probed[0] = p.base_seconds_per_gib;
    probed[1] = p.huge_seconds_per_gib;
    probed[2] = p.cheaper == page_size_t::huge;
  }
  PENTAGO_MPI(MPI_Bcast(probed, 3, MPI_DOUBLE, 0, node));
  PENTAGO_MPI(MPI_Comm_free(&node));
  page_probe_t probe;
  probe.base_seconds_per_gib = probed[0];
  probe.huge_seconds_per_gib = probed[1];
  probe.cheaper = probed[2] != 0 ? page_size_t::huge : page_size_t::base;
  return probe;
}

// What prepare() decides, identically on every rank, before anything is created.
struct endgame_plan_t {
  int top = 35, bottom = 0, restart_slice = -1;
  std::vector<std::vector<section_t>> slices;
  uint64_t memory = 0;
  run_plan_t plan;
};

uint64_t default_memory() {
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, mpi_rank(), MPI_INFO_NULL, &node);
  const int local = mpi_size(node);
  MPI_Comm_free(&node);
  return physical_memory() / 2 / uint64_t(std::max(local, 1));
}

// Everything that can refuse the run (restart file, memory plan), identically on every rank,
// before the output directory exists: a refused run leaves nothing behind.
endgame_plan_t prepare(const engine_options_t& o) {
  endgame_plan_t p;
  p.top = top_slice(o.meaningless);
  p.bottom = o.stop_after >= 0 ? o.stop_after : o.root.sum();
  p.slices = descendant_sections(o.root, p.top);
  p.restart_slice = check_restart(o, p.slices, p.top, p.bottom);
  p.memory = o.memory ? o.memory : default_memory();
  // The memory plan, identical on every rank (the one pentago-predict reports).
  p.plan = make_run_plan(make_run_request(o, mpi_size(), p.memory, p.restart_slice), p.slices);
  if (!p.plan.fits) throw usage_error_t(p.plan.reason);
  return p;
}

// The run after prepare(): the log and record, the loop, the closing line.
void run(const engine_options_t& o, const endgame_plan_t& p) {
  const auto start = clock_type_t::now();
  const int rank = mpi_rank(), ranks = mpi_size();
  run_log_t log;
  if (rank == 0 || o.log_all)
    log.open(o.dir + (rank == 0 ? "/log" : "/log-" + std::to_string(rank)));
  log.set_echo(rank == 0);
  run_record_t record;
  if (rank == 0) record.open(o.dir + "/" + run_record_name);
  int major = 0, minor = 0;
  MPI_Get_version(&major, &minor);
  run_header_t header;
  header.ranks = ranks;
  header.top = p.plan.top;  // the restart slice when resuming
  header.bottom = p.bottom;
  header.memory = p.memory;
  header.restart_slice = p.restart_slice;
  header.simd = simd_name(current_simd_level());
  choose_pages(o, header, probe_page_sizes_per_node);
  const std::string mpi = "MPI " + std::to_string(major) + "." + std::to_string(minor) +
                          ", thread mode " +
                          (o.mode == thread_mode_t::funneled ? "funneled" : "multiple");
  for (const auto& line : format_run_header(o, header, p.plan, mpi)) log.line(line);
  if (rank == 0) record.header(o, header, p.plan);
  if (o.meaningless && rank == 0)
    std::ofstream(o.dir + "/meaningless-" + std::to_string(o.meaningless));

  std::unique_ptr<trace_recorder_t> trace;
  if (o.trace.size()) trace = std::make_unique<trace_recorder_t>();
  slice_loop_result_t result;
  {
    mpi_computer_t computer(o, p.slices, p.plan, trace.get());
    log.line(computer.staging().description());
    slice_loop_setup_t setup;
    setup.options = &o;
    setup.plan = &p.plan;
    setup.slices = &p.slices;
    setup.pages = header.pages;
    setup.page_probe = header.page_probe;
    setup.restart_slice = p.restart_slice;
    setup.log = &log;
    setup.record = rank == 0 ? &record : nullptr;
    setup.checkpoint_requested = [] { return checkpoint_requested != 0; };
    setup.resume_command = [&](const std::string& path) { return resume_command(o, ranks, path); };
    result = run_slice_loop(setup, computer);
    if (trace) trace->write(o.trace, MPI_COMM_WORLD);
    const uint64_t high = computer.resident_high_water();
    log.line("done: " + format_seconds(seconds_since(start)) + " total, memory high water " +
             format_bytes(double(high)) + " per rank (max)");
    if (rank == 0)
      record.done(result.checkpoint, seconds_since(start), high, result.slices, result.first_touch);
  }
}

}  // namespace

std::string endgame_usage() {
  return "usage: mpirun -n RANKS pentago-endgame [options] --dir DIR ROOT\n"
         "Strongly solves every descendant section of ROOT (8 digits b0w0b1w1b2w2b3w3; the full\n"
         "game is 00000000) by parallel retrograde analysis from slice 35 down, writing counts,\n"
         "samples, slice files, the log and the run record DIR/run.jsonl.\n" +
         engine_usage(engine_program_t::endgame) + "  --help               this text\n";
}

int run_endgame(int argc, char** argv) {
  // The options are parsed before MPI starts, since --thread-mode sets the thread level MPI is
  // started with; what the parser refuses is reported below, once MPI runs, like every other
  // usage error.
  engine_options_t o;
  std::exception_ptr parse_failure;
  try {
    o = parse_engine_options(engine_program_t::endgame, argc, argv);
  } catch (...) {
    parse_failure = std::current_exception();
  }
  const int required =
      o.mode == thread_mode_t::multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_FUNNELED;
  int provided = 0;
  MPI_Init_thread(&argc, &argv, required, &provided);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const int rank = mpi_rank();
  if (provided < required)
    abort_job("MPI provides thread level " + std::to_string(provided) + " but " +
              std::to_string(required) + " is required");
  // A usage error is detected identically on every rank (options, restart file, plan): a clean
  // collective exit with code 2 (docs/tools.md, "exit codes").
  auto usage_exit = [&](const std::string& message) {
    if (rank == 0) std::fprintf(stderr, "pentago-endgame: %s\n", message.c_str());
    MPI_Finalize();
    return 2;
  };
  endgame_plan_t plan;
  try {
    if (parse_failure) std::rethrow_exception(parse_failure);
    if (o.help) {
      if (rank == 0) std::fputs(endgame_usage().c_str(), stdout);
      MPI_Finalize();
      return 0;
    }
    plan = prepare(o);
  } catch (const usage_error_t& e) {
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
    } catch (const pentago_error_t& e) {
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
  try {
    run(o, plan);
  } catch (const std::exception& e) {
    abort_job(e.what());
  }
  MPI_Finalize();
  return 0;
}

}  // namespace pentago
