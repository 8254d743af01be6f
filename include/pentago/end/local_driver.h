// The in-process backward solver (no MPI): threads compute the block lines of each slice
// from 35 (or a meaningless slice) down to the root's slice, writing counts and samples.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "pentago/layout/section.h"

namespace pentago {

struct local_options {
  section_t root;
  int threads = 2;
  std::string dir;
  int stop_after = -1;  // lowest slice to compute; -1 means the root's slice
  int samples = 256;    // sparse samples per section
  uint64_t memory = 0;  // bytes; 0 means half of physical memory
  int meaningless = 0;  // if > 0, slice K gets pseudorandom values and computing starts below
  int save = -1;        // write slice-N.pentago for computed slices N <= save
  int level = 6;        // xz preset of slice files
  bool echo = true;     // print progress to stdout as well as DIR/log
};

// Parses the command line of pentago-endgame-local; throws usage_error (with --help text
// available from local_usage()).
local_options parse_local_options(int argc, char** argv);
std::string local_usage();

void run_local(const local_options& options);

}  // namespace pentago
