// pentago-check --integrity N: every stored board of slice-N.pentago (or a --fraction of them)
// against the best over its children in slice-(N+1).pentago, the meaningless values, or (N =
// 35) the rules.
#include <atomic>
#include <exception>
#include <filesystem>
#include <memory>

#include "pentago/data/supertensor.h"
#include "pentago/db/board_recurrence.h"
#include "pentago/db/check_context.h"
#include "pentago/db/lookup.h"
#include "pentago/util/parallel_for.h"
#include "pentago/util/random.h"

namespace pentago::check_detail {
namespace {
namespace fs = std::filesystem;
}  // namespace

void checker_t::check_integrity(int n) {
  const std::string kind = "integrity " + std::to_string(n);
  const std::string path = dir + "/" + slice_file_name(n);
  const std::string child_path = dir + "/" + slice_file_name(n + 1);
  slice_database_t db(options.cache_bytes);
  std::shared_ptr<const supertensor_reader_t> reader;
  try {
    reader = std::make_shared<const supertensor_reader_t>(path);
    if (n < 35 && meaningless != n + 1) db.add_file(child_path);
    if (n < 35 && n + 1 == meaningless && fs::exists(child_path)) db.add_file(child_path);
  } catch (const std::exception& e) {
    report.fail(kind, kind + ": needs slice-" + std::to_string(n) + ".pentago and slice-" +
                          std::to_string(n + 1) + ".pentago: " + e.what());
    return;
  }
  const auto child_value = [&](board_t child) {
    if (n + 1 == meaningless && !db.has_slice(n + 1)) return meaningless_leaf(child);
    return disk_to_store(db.black_white(child), (n + 1) & 1);
  };
  const auto& sections = reader->sections();
  const auto blocks = every_block(sections);
  const uint64_t threshold =
      options.fraction >= 1 ? UINT64_MAX : uint64_t(options.fraction * 0x1p64);
  std::atomic<uint64_t> checked{0}, good{0};
  parallel_for(threads, blocks.size(), [&](int, uint64_t i) {
    const auto& [s, block] = blocks[i];
    const section_t& section = sections[s];
    std::vector<superinfo_t> data;
    try {
      data = reader->read_block(s, block);
    } catch (const std::exception& e) {
      report.fail(kind, kind + ": " + block_text(section, block) + ": " + e.what());
      return;
    }
    const uint64_t block_id = block_index(section, block);
    for_each_node(section, block, [&](int k, const std::array<int, 4>& index) {
      if (threshold != UINT64_MAX &&
          mix64(options.seed ^ mix64(section.sig() ^ mix64(block_id << 12 | uint64_t(k)))) >=
              threshold)
        return;
      const board_t board = section_board(section, index);
      superinfo_t expected;
      try {
        expected = best_over_children(board, n, child_value);
      } catch (const std::exception& e) {
        report.fail(kind, kind + ": board " + std::to_string(board) + ": " + e.what());
        checked++;
        return;
      }
      const superinfo_t stored = disk_to_store(data[size_t(k)], n & 1);
      checked++;
      if (stored == expected)
        good++;
      else
        report.fail(kind, kind + ": board " + std::to_string(board) + " (" + section.name() +
                              "): stored value differs from the best over its children at " +
                              first_difference(stored, expected));
    });
  });
  result.integrity_boards += checked;
  say("  integrity " + std::to_string(n) + " -> " +
      (n == 35 ? std::string("rules") : std::to_string(n + 1)) + ": " +
      std::to_string(good.load()) + " of " + std::to_string(checked.load()) +
      " boards equal the best over their children");
}

}  // namespace pentago::check_detail
