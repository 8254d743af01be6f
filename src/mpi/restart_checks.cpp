// Validation of pentago-endgame --restart files.
#include "pentago/mpi/restart_checks.h"

#include <mpi.h>

#include <algorithm>
#include <filesystem>

#include "pentago/mpi/slice_io.h"
#include "pentago/util/error.h"

namespace pentago {

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

int check_restart(const engine_options_t& o, const std::vector<std::vector<section_t>>& slices,
                  int top, int bottom) {
  if (o.restart.empty()) return -1;
  // A checkpoint of a meaningless run holds values that derive from the meaningless slice:
  // resuming it needs the same --meaningless, and real values must not be marked meaningless.
  const int marked = meaningless_marker_of(o.restart);
  if (marked != o.meaningless)
    throw usage_error_t(
        marked == 0
            ? "--meaningless " + std::to_string(o.meaningless) + " with --restart " + o.restart +
                  ": that file is not from a meaningless run (no meaningless-N marker "
                  "beside it), so its values are real"
        : o.meaningless == 0
            ? "restart file " + o.restart + " is from a run with --meaningless " +
                  std::to_string(marked) + " (marker beside it): resume it with --meaningless " +
                  std::to_string(marked)
            : "restart file " + o.restart + " is from a run with --meaningless " +
                  std::to_string(marked) + ", not " + std::to_string(o.meaningless));
  if (bottom >= top)
    throw usage_error_t("--restart: this run computes only slice " + std::to_string(top) +
                        ", so there is no slice to restart from");
  const std::vector<section_t> restart = restart_sections(o.restart, MPI_COMM_WORLD);
  const int slice = restart.empty() ? -1 : restart[0].sum();
  if (slice < 0 || slice > top || slice <= bottom)
    throw usage_error_t(
        "restart file " + o.restart + " holds slice " + std::to_string(slice) +
        ", but this run can restart only from " +
        (bottom + 1 == top ? "slice " + std::to_string(top)
                           : "slices " + std::to_string(bottom + 1) + ".." + std::to_string(top)));
  if (restart != slices[slice])
    throw usage_error_t("restart file " + o.restart + " does not hold the descendants of " +
                        o.root.str() + " at slice " + std::to_string(slice) + " (" +
                        std::to_string(restart.size()) + " sections, expected " +
                        std::to_string(slices[slice].size()) + ")");
  return slice;
}

}  // namespace pentago
