// The run log and output files: a log that cannot be written fails loudly, and output files are
// checked before a run.
#include "pentago/end/run_log.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "pentago/util/error.h"

using namespace pentago;
namespace fs = std::filesystem;

namespace {

TEST(run_log, write_error_throws_naming_the_file) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  run_log_t log;
  log.set_echo(false);
  log.open("/dev/full");  // opens fine; every write fails with ENOSPC
  try {
    log.line("slice 35: something worth keeping");
    FAIL() << "a failed log write was ignored";
  } catch (const pentago_error_t& e) {
    EXPECT_NE(std::string(e.what()).find("/dev/full"), std::string::npos) << e.what();
  }
}

TEST(check_new_output_file, refuses_what_cannot_be_written) {
  const fs::path dir = fs::path(PENTAGO_BINARY_DIR) / "test-runs" / "new-output-file";
  fs::remove_all(dir);
  fs::create_directories(dir);
  EXPECT_NO_THROW(check_new_output_file("--trace", "", ""));
  EXPECT_NO_THROW(check_new_output_file("--trace", (dir / "t.json").string(), ""));
  std::ofstream(dir / "exists.json") << "{}";
  EXPECT_THROW(check_new_output_file("--trace", (dir / "exists.json").string(), ""), usage_error_t);
  EXPECT_THROW(check_new_output_file("--trace", (dir / "no" / "t.json").string(), ""),
               usage_error_t);
  // A folder whose permissions allow writing but where no file can be made (even for root).
  EXPECT_THROW(check_new_output_file("--trace", "/proc/nope.json", ""), usage_error_t);
  EXPECT_FALSE(fs::exists(dir / "t.json"));  // the check leaves nothing behind
  // Inside the run directory, which the run is about to create.
  EXPECT_NO_THROW(
      check_new_output_file("--trace", (dir / "run" / "t.json").string(), (dir / "run/").string()));
  if (::geteuid() != 0) {
    fs::create_directories(dir / "locked");
    fs::permissions(dir / "locked", fs::perms::owner_read | fs::perms::owner_exec);
    EXPECT_THROW(check_new_output_file("--trace", (dir / "locked" / "t.json").string(), ""),
                 usage_error_t);
    fs::permissions(dir / "locked", fs::perms::owner_all);
  }
}

}  // namespace
