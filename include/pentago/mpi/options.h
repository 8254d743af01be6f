// Command line of pentago-endgame, the MPI solver: parsed identically on every rank, so
// every rank rejects bad options before any work (only rank 0 prints the message).
#pragma once
#include <cstdint>
#include <string>

#include "pentago/layout/section.h"
#include "pentago/util/random.h"

namespace pentago {

enum class thread_mode { funneled, multiple };

struct endgame_options {
  section_t root;
  int threads = 6;          // per rank: 1 communication thread + threads-1 workers
  std::string dir;          // new directory; never overwritten
  int save = 18;            // write slice-N.pentago for N <= save (-1: none)
  int level = 6;            // xz preset for slice files (the published files used 6)
  uint64_t memory = 0;      // bytes per rank; 0 = physical memory / ranks on this node / 2
  int gather_limit = 4;     // lines with outstanding input requests
  int line_limit = 8;       // lines allocated at once
  int samples = 256;        // sparse samples per section
  uint64_t randomize = 17;  // partition key; 0 = simple deterministic partition
  int stop_after = -1;      // lowest slice computed; -1 = the root's slice
  bool log_all = false;     // every rank writes DIR/log-<rank>
  bool per_rank_times = false;
  int meaningless = 0;       // synthesize slice K and solve below it (test mode)
  std::string restart;       // resume from this slice file
  int checkpoint_every = 0;  // write a restart file every K slices (0: only on signal)
  std::string trace;         // Chrome trace JSON output
  thread_mode mode = thread_mode::funneled;
  int test_fail_rank = -1;  // test only: this rank fails in slice test_fail_slice
  int test_fail_slice = -1;
  bool help = false;
};

// Throws usage_error with a one-line message.
endgame_options parse_endgame_options(int argc, char** argv);
std::string endgame_usage();

}  // namespace pentago
