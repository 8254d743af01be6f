// The one command line of the backward solver, shared by pentago-endgame (MPI),
// pentago-endgame-local (threads in one process) and pentago-predict (which plans an MPI run):
// one options struct with one set of defaults, one parser built on the argument cursor
// ("--opt value" and "--opt=value"), and one builder of the run_request that the plan
// (run_plan.h) and both drivers use. Each program accepts the options that mean something to
// it; an option of another program is an unknown option.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pentago/end/run_plan.h"
#include "pentago/layout/section.h"
#include "pentago/util/huge_pages.h"
#include "pentago/util/options.h"

namespace pentago {

// Total physical memory of this machine (the programs' default --memory derives from it).
uint64_t physical_memory();

enum class engine_program_t { endgame, local, predict };
const char* engine_program_name(engine_program_t program);  // "pentago-endgame", ...

// pentago-endgame's MPI threading: only the communication thread calls MPI (funneled), or
// workers send their outputs themselves (multiple).
enum class thread_mode_t { funneled, multiple };

struct engine_options_t {
  explicit engine_options_t(engine_program_t program = engine_program_t::local);

  engine_program_t program;
  section_t root;
  // pentago-endgame and pentago-predict: threads per rank, 1 communication + threads-1 workers
  // (default 6). pentago-endgame-local: worker threads (default 2).
  int threads;
  std::string dir;      // new output directory; never overwritten
  int save = 18;        // write slice-N.pentago for computed slices N <= save (-1: none)
  int level = 6;        // xz preset of slice files (the published files used 6)
  uint64_t memory = 0;  // bytes per rank; 0: the program's default (predict: required)
  int samples = 256;    // sparse samples per section
  block_codec_t codec = block_codec_t::snappy;  // in-core block codec (data/compress.h)
  bool codec_auto = true;     // --codec auto, the default: the plan chooses (run_plan.h)
  bool recompute_34 = false;  // --recompute-34 (run_plan.h's run_request_t::recompute_34)
  // --huge-pages on / off: the arena's and partial pool's pages; none (auto, the default): the
  // size whose first touch is cheaper on this machine (run_header.h's choose_pages).
  std::optional<page_size_t> pages;
  int stop_after = -1;  // lowest slice computed; -1: the root's slice
  int meaningless = 0;  // synthesize slice K pseudorandomly and solve below it (test mode)
  bool echo = true;     // print the log on stdout as well as DIR/log (local: --quiet)
  // MPI runs (pentago-endgame; the ones pentago-predict plans).
  int ranks = 0;             // pentago-predict --ranks (pentago-endgame: the MPI size)
  int gather_limit = 16;     // lines with outstanding input requests
  int line_limit = 32;       // lines in flight per rank
  uint64_t randomize = 17;   // partition key; 0: the simple deterministic partition
  std::string restart;       // pentago-endgame: resume from this slice file
  int restart_slice = -1;    // pentago-predict --restart N: the run resumes from slice N
  int checkpoint_every = 0;  // write a restart file every K slices (0: only on signal)
  std::string trace;         // Chrome trace JSON output
  thread_mode_t mode = thread_mode_t::funneled;
  // --shared-memory on/off: blocks between the ranks of a node through shared memory slots
  // (mpi/node_staging.h) rather than inside MPI messages.
  bool shared_memory = true;
  bool log_all = false;  // every rank writes DIR/log-<rank>
  bool per_rank_times = false;
  int test_fail_rank = -1;  // test only: this rank fails in slice test_fail_slice
  int test_fail_slice = -1;
  int test_slow_merge_rank = -1;  // test only: this rank merges other ranks' outputs slowly
  int test_slow_merge_ms = 0;
  int test_unshared_rank = -1;  // test only: this rank maps no other rank's shared memory slots
  bool help = false;
  std::vector<std::string> arguments;  // the command line as given (the run record's options)
};

// If the cursor's word is an engine option that `o.program` accepts, consumes it (and its
// value) and returns true. A ROOT word is taken too. Throws usage_error on a bad value.
bool take_engine_option(argument_cursor_t& args, engine_options_t& o, bool& have_root);
// Checks what the options mean together (root given, --dir given where needed, the slices of
// the run, as validate_run); throws usage_error with one line.
void validate_engine_options(const engine_options_t& o, bool have_root);
// The whole command line of pentago-endgame or pentago-endgame-local; throws usage_error.
engine_options_t parse_engine_options(engine_program_t program, int argc, char** argv);
// The option lines of the usage text of `program` (pentago-predict adds its own).
std::string engine_usage(engine_program_t program);

// Threads that compute: pentago-endgame-local's --threads, the others' --threads - 1.
int engine_workers(const engine_options_t& o);
// The plan's request for these options on `ranks` ranks with `memory` bytes per rank (the
// caller resolves the memory default) and a restart slice (-1: none).
run_request_t make_run_request(const engine_options_t& o, int ranks, uint64_t memory,
                               int restart_slice);

}  // namespace pentago
