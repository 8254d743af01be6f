// pentago-check: verifies run directories (slice files, counts, samples, integrity).
#include <cstdio>
#include <cstring>

#include "pentago/db/check.h"
#include "pentago/util/error.h"

int main(int argc, char** argv) {
  using namespace pentago;
  for (int i = 1; i < argc; i++)
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::fputs(check_usage().c_str(), stdout);
      return 0;
    }
  try {
    const check_command command = parse_check_command(argc, argv);
    int failures = 0;
    for (const auto& dir : command.dirs) {
      std::printf("checking %s\n", dir.c_str());
      std::fflush(stdout);
      const check_result result =
          check_run_directory(dir, command.options, [](const std::string& line) {
            std::printf("%s\n", line.c_str());
            std::fflush(stdout);
          });
      for (const auto& note : result.notes) std::printf("  note: %s\n", note.c_str());
      std::printf(
          "%s: %llu slice files, %llu blocks (%llu nodes), %llu counts rows, %llu samples "
          "(%llu searched), %llu integrity boards: %s\n",
          dir.c_str(), (unsigned long long)result.slice_files, (unsigned long long)result.blocks,
          (unsigned long long)result.nodes, (unsigned long long)result.count_rows,
          (unsigned long long)result.samples, (unsigned long long)result.samples_searched,
          (unsigned long long)result.integrity_boards,
          result.passed() ? "ok" : (std::to_string(result.failures.size()) + " failures").c_str());
      std::fflush(stdout);
      for (const auto& failure : result.failures)
        std::fprintf(stderr, "pentago-check: %s\n", failure.c_str());
      failures += int(result.failures.size());
    }
    if (failures) return 1;
    std::printf("All checks passed\n");
    return 0;
  } catch (const usage_error& e) {
    std::fprintf(stderr, "pentago-check: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pentago-check: error: %s\n", e.what());
    return 1;
  }
}
