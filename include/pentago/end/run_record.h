// The run record DIR/run.jsonl: one JSON object per line, appended and flushed as the run goes
// (by the local driver, or rank 0 of the MPI driver), for tools (pentago-check, scripts/plot-run)
// to read instead of the human log. A header with the options and the plan, one object per
// computed (or synthesized) slice with the numbers of its slice report, a checkpoint object
// when the run stops at one, and a final "done" object; a record without "done" belongs to a
// run that did not finish. docs/tools.md describes every field.
#pragma once
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "pentago/end/engine_options.h"
#include "pentago/end/run_header.h"
#include "pentago/end/run_plan.h"
#include "pentago/end/slice_report.h"
#include "pentago/util/first_touch.h"

namespace pentago {

constexpr int run_record_version = 1;
constexpr const char run_record_name[] = "run.jsonl";

class run_record_t {
 public:
  run_record_t() = default;
  run_record_t(const run_record_t&) = delete;
  ~run_record_t();
  void open(const std::string& path);  // a new file; pentago::error if it cannot be written
  bool is_open() const { return file_ != nullptr; }

  void header(const engine_options_t& options, const run_header_t& header, const run_plan_t& plan);
  void slice(const slice_report_t& report);
  void checkpoint(int slice, const std::string& restart_command);
  // `first_touch`: rank 0's pages as its first-touch chooser made them resident (--huge-pages
  // auto), or none.
  void done(bool checkpoint, double seconds, uint64_t memory_high_water,
            const std::vector<int>& slices,
            const std::optional<first_touch_stats_t>& first_touch = std::nullopt);

 private:
  void write(const std::string& line);
  FILE* file_ = nullptr;
  std::string path_;
};

}  // namespace pentago
