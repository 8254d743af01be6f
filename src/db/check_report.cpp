// pentago-check: the failure reporter, the text helpers of its messages, and the block list and
// table reader its checks share (check_context.h).
#include "pentago/db/check_context.h"

namespace pentago::check_detail {

std::string slice_name(int n) { return "slice " + std::to_string(n); }

std::string plural(uint64_t n, const std::string& word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

std::string block_text(const section_t& s, const block_t& b) {
  return s.name() + " block " + std::to_string(b[0]) + "," + std::to_string(b[1]) + "," +
         std::to_string(b[2]) + "," + std::to_string(b[3]);
}

std::string first_difference(const superinfo_t& a, const superinfo_t& b) {
  for (int r = 0; r < 256; r++)
    if (a.win(r) != b.win(r) || a.notlose(r) != b.notlose(r))
      return "rotation " + std::to_string(r) + ": (" + std::to_string(a.win(r)) + "," +
             std::to_string(a.notlose(r)) + ") vs (" + std::to_string(b.win(r)) + "," +
             std::to_string(b.notlose(r)) + ")";
  return "no difference";
}

std::vector<std::pair<int, block_t>> every_block(const std::vector<section_t>& sections) {
  std::vector<std::pair<int, block_t>> blocks;
  for (int s = 0; s < int(sections.size()); s++)
    for (uint64_t b = 0; b < section_block_count(sections[s]); b++)
      blocks.push_back({s, block_from_index(sections[s], b)});
  return blocks;
}

bool checker_t::read_table(const std::string& where, const std::string& path, uint64_t cols,
                           npy_array_t& table) {
  try {
    table = read_npy(path);
  } catch (const std::exception& e) {
    report.fail(where, where + ": " + e.what());
    return false;
  }
  if (table.cols != cols) {
    report.fail(where, where + ": expected " + std::to_string(cols) + " columns, found " +
                           std::to_string(table.cols));
    return false;
  }
  return true;
}

void reporter_t::fail(const std::string& kind, const std::string& message) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (++counts_[kind] <= max_) result_.failures.push_back(dir_ + ": " + message);
}

void reporter_t::note(const std::string& message) {
  std::lock_guard<std::mutex> lock(mutex_);
  result_.notes.push_back(dir_ + ": " + message);
}

int reporter_t::count(const std::string& kind) {
  std::lock_guard<std::mutex> lock(mutex_);
  return counts_[kind];
}

void reporter_t::finish() {
  for (const auto& [kind, count] : counts_)
    if (count > max_)
      result_.failures.push_back(dir_ + ": " + kind + ": " + std::to_string(count - max_) +
                                 " more failures of this kind not listed");
}

}  // namespace pentago::check_detail
