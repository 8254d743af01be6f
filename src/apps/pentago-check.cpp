// pentago-check: verifies run directories (run record, slice files, counts, samples,
// integrity); the checks are in pentago/db/check.h.
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "cli.h"
#include "pentago/db/check.h"

namespace {

// The published counts compared with when no --data is given: $PENTAGO_DATA, else the data
// folder this build was configured with (PENTAGO_SHARED_DATA), if it exists; else none.
std::string default_data() {
  std::error_code ec;
  if (const char* env = std::getenv("PENTAGO_DATA"); env && *env) {
    if (!std::filesystem::is_directory(env, ec))
      throw pentago::usage_error_t(std::string("PENTAGO_DATA: '") + env + "' is not a directory");
    return env;
  }
  return std::filesystem::is_directory(PENTAGO_DEFAULT_DATA, ec) ? PENTAGO_DEFAULT_DATA : "";
}

int run(int argc, char** argv) {
  using namespace pentago;
  check_command_t command = parse_check_command(argc, argv);
  if (command.options.data.empty() && !command.no_data) command.options.data = default_data();
  int failures = 0;
  for (const auto& dir : command.dirs) {
    std::printf("checking %s\n", dir.c_str());
    std::fflush(stdout);
    const check_result_t result =
        check_run_directory(dir, command.options, [](const std::string& line) {
          std::printf("%s\n", line.c_str());
          std::fflush(stdout);
        });
    for (const auto& note : result.notes) std::printf("  note: %s\n", note.c_str());
    std::printf(
        "%s: %llu slice files, %llu blocks (%llu nodes), %llu counts rows (%llu equal to the "
        "published), %llu samples (%llu searched), %llu integrity boards: %s\n",
        dir.c_str(), (unsigned long long)result.slice_files, (unsigned long long)result.blocks,
        (unsigned long long)result.nodes, (unsigned long long)result.count_rows,
        (unsigned long long)result.published_rows, (unsigned long long)result.samples,
        (unsigned long long)result.samples_searched, (unsigned long long)result.integrity_boards,
        result.passed() ? "ok" : (std::to_string(result.failures.size()) + " failures").c_str());
    std::fflush(stdout);
    for (const auto& failure : result.failures)
      std::fprintf(stderr, "pentago-check: %s\n", failure.c_str());
    failures += int(result.failures.size());
  }
  if (failures) return 1;
  std::printf("All checks passed\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return pentago::cli::run_main("pentago-check", pentago::check_usage(), argc, argv, run);
}
