// What a run says about itself before its first slice, in the log (format_run_header, the
// same lines from both drivers) and in the run record's header (run_record.h).
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "pentago/end/engine_options.h"
#include "pentago/end/run_plan.h"
#include "pentago/util/huge_pages.h"

namespace pentago {

// What the header says about a run besides its options and plan.
struct run_header_t {
  int ranks = 1;
  int top = 35, bottom = 0;  // slices held (the meaningless or restart slice at the top)
  uint64_t memory = 0;       // --memory per rank, resolved
  int restart_slice = -1;    // -1: not a restart
  std::string simd;
  // The arena's and partial pool's pages, and the first-touch probe that chose them (where
  // --huge-pages is auto).
  page_size_t pages = page_size_t::base;
  std::optional<page_probe_t> page_probe;
};

// Sets h.pages from --huge-pages, calling `probe` where it is auto (by default probe_page_sizes,
// on this process: a few tens of milliseconds on bare metal, a tenth of a second or more under
// a hypervisor that traps page faults; the MPI driver probes once per node).
void choose_pages(const engine_options_t& o, run_header_t& h,
                  const std::function<page_probe_t()>& probe = nullptr);

// "PROGRAM: command line", the run's parameters, the memory plan (indented), and the note on
// a synthesized meaningless slice. `mpi` (e.g. "MPI 4.0, thread mode funneled") is empty for
// the local driver.
std::vector<std::string> format_run_header(const engine_options_t& o, const run_header_t& h,
                                           const run_plan_t& plan, const std::string& mpi);

}  // namespace pentago
