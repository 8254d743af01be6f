// The log lines that start a run, the same for both drivers.
#include "pentago/end/run_header.h"

#include <cstdio>

#include "pentago/end/meaningless.h"
#include "pentago/util/format.h"

namespace pentago {

std::vector<std::string> format_run_header(const engine_options_t& o, const run_header_t& h,
                                           const run_plan_t& plan, const std::string& mpi) {
  std::vector<std::string> lines;
  std::string command = engine_program_name(o.program) + std::string(":");
  for (size_t i = 1; i < o.arguments.size(); i++) command += " " + shell_quote(o.arguments[i]);
  if (o.arguments.empty()) command += " (root " + o.root.name() + ")";
  lines.push_back(command);
  const int workers = engine_workers(o);
  const bool is_local = o.program == engine_program_t::local;
  std::string line = "  ranks " + std::to_string(h.ranks) + ", threads/rank " +
                     std::to_string(o.threads) + " (" + (is_local ? "" : "1 communication + ") +
                     std::to_string(workers) + " workers), root " + o.root.name() + ", slices " +
                     std::to_string(h.top) + " down to " + std::to_string(h.bottom) +
                     ", save <= " + std::to_string(o.save);
  if (!is_local)
    line += ", key " + std::to_string(o.randomize) + ", gather limit " +
            std::to_string(o.gather_limit) + ", line limit " + std::to_string(o.line_limit);
  lines.push_back(line);
  std::string pages = std::string(", pages ") + page_size_name(h.pages);
  if (h.page_probe) {
    char probe[120];
    std::snprintf(probe, sizeof probe,
                  " (auto: first touch %.2f s/GiB on huge pages, %.2f on base)",
                  h.page_probe->huge_seconds_per_gib, h.page_probe->base_seconds_per_gib);
    pages += probe;
  }
  line = "  " + (mpi.empty() ? "" : mpi + ", ") + "simd " + h.simd + ", codec " +
         block_codec_name(plan.codec) + (plan.codec_auto ? " (auto)" : "") + pages + ", samples " +
         std::to_string(o.samples) +
         (o.meaningless ? ", meaningless " + std::to_string(o.meaningless) : "") +
         (o.restart.size() ? ", restart " + o.restart : "");
  lines.push_back(line);
  for (const auto& l : format_run_plan(plan)) lines.push_back("  " + l);
  if (o.meaningless && h.restart_slice < 0)
    lines.push_back(meaningless_plan_note(o.meaningless, plan.slices.front().nodes));
  return lines;
}

void choose_pages(const engine_options_t& o, run_header_t& h,
                  const std::function<page_probe_t()>& probe) {
  if (o.pages) {
    h.pages = *o.pages;
    h.page_probe.reset();
    return;
  }
  h.page_probe = probe ? probe() : probe_page_sizes();
  h.pages = h.page_probe->cheaper;
}

}  // namespace pentago
