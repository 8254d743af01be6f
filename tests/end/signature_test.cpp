// The signature test: a fixed small solve (root 54444554, one slice-35 section, 2 threads,
// default samples) whose output files must not change. The counts file must also equal the
// published row; the checksums pin every other byte (samples, file layout), so that any change
// of the engine's results shows up in seconds, before the long end-to-end runs.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "pentago/data/npy.h"
#include "pentago/end/local_driver.h"

using namespace pentago;
namespace fs = std::filesystem;

namespace {

// FNV-1a over a whole file.
uint64_t file_checksum(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), {});
  uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : bytes) h = (h ^ uint8_t(c)) * 0x100000001b3ULL;
  return h;
}

// The checksums of this test's counts-35.npy and sparse-35.npy. If a change of the engine
// alters them on purpose (a new sampling rule, a new file layout), update them here and say
// why in the commit; the counts themselves are checked against the published data below.
constexpr uint64_t counts_signature = 0xfc19331e95214996ULL;
constexpr uint64_t sparse_signature = 0x4523181849f96495ULL;

}  // namespace

TEST(signature, root_54444554_output_is_unchanged) {
  const fs::path dir = fs::path(PENTAGO_BINARY_DIR) / "test-runs" / "signature-54444554";
  fs::remove_all(dir);
  fs::create_directories(dir.parent_path());
  local_options_t o;
  o.root = section_t::parse("54444554");
  o.threads = 2;
  o.dir = dir.string();
  o.echo = false;
  o.memory = uint64_t(1) << 30;
  run_local(o);

  const auto ours = read_npy(o.dir + "/counts-35.npy");
  const auto published = read_npy(std::string(PENTAGO_SHARED_DATA) + "/counts-35.npy");
  ASSERT_EQ(ours.rows, 1u);
  bool found = false;
  for (size_t r = 0; r < published.rows; r++)
    if (published(r, 0) == ours(0, 0)) {
      found = true;
      for (int c = 1; c < 4; c++) EXPECT_EQ(ours(0, c), published(r, c)) << "column " << c;
    }
  EXPECT_TRUE(found) << "section id " << ours(0, 0) << " is not in the published counts";

  EXPECT_EQ(file_checksum(o.dir + "/counts-35.npy"), counts_signature) << std::hex;
  EXPECT_EQ(file_checksum(o.dir + "/sparse-35.npy"), sparse_signature) << std::hex;
}
