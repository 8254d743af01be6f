// Line and block ownership of a slice among ranks, and its load statistics (docs/formats.md,
// "Randomness and the partition").
#include "pentago/end/partition.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <utility>

#include "pentago/util/error.h"

namespace pentago {

loop_range_t partition_loop(uint64_t n, int ranks, int rank) {
  PENTAGO_CHECK(ranks > 0 && 0 <= rank && rank < ranks, "partition_loop: bad rank");
  const uint64_t q = n / ranks, e = n % ranks, r = uint64_t(rank);
  const uint64_t start = q * r + std::min(e, r);
  return {start, start + q + (r < e)};
}

int partition_loop_inverse(uint64_t n, int ranks, uint64_t i) {
  PENTAGO_CHECK(ranks > 0 && i < n, "partition_loop_inverse: index out of range");
  const uint64_t q = n / ranks, e = n % ranks, threshold = (q + 1) * e;
  return int(i < threshold ? i / (q + 1) : e + (i - threshold) / q);
}

uint64_t block_event(const section_t& section, const block_t& block) {
  return uint64_t(1) << 61 | uint64_t(section.microsig()) << 29 | uint64_t(block[3] & 63) << 18 |
         uint64_t(block[2] & 63) << 12 | uint64_t(block[1] & 63) << 6 | uint64_t(block[0] & 63);
}

partition_t::partition_t(std::shared_ptr<const slice_lines_t> lines, int ranks, uint128_t key)
    : lines_(std::move(lines)), ranks_(ranks), key_(key) {
  PENTAGO_CHECK(lines_ != nullptr, "partition_t: no lines");
  PENTAGO_CHECK(ranks > 0, "partition_t: ranks must be positive");
  PENTAGO_CHECK(lines_->total_lines() < (uint64_t(1) << 57),
                "partition_t: too many lines for local ids");
}

partition_t::partition_t(std::span<const section_t> sections, int ranks, uint128_t key)
    : partition_t(std::make_shared<const slice_lines_t>(sections), ranks, key) {}

void partition_t::check_rank(int rank) const {
  PENTAGO_CHECK(0 <= rank && rank < ranks_, "partition: rank out of range");
}

uint64_t partition_t::line_at(uint64_t position) const {
  PENTAGO_CHECK(position < total_lines(), "partition: position out of range");
  if (key_) return random_permute(total_lines(), key_, position);
  // Dealt order: the i-th line of rank r is canonical line i * ranks + r.
  const int rank = position_owner(position);
  return (position - rank_range(rank).start) * ranks_ + rank;
}

uint64_t partition_t::position_of(uint64_t canonical) const {
  PENTAGO_CHECK(canonical < total_lines(), "partition: line index out of range");
  if (key_) return random_unpermute(total_lines(), key_, canonical);
  return rank_range(int(canonical % ranks_)).start + canonical / ranks_;
}

loop_range_t partition_t::rank_range(int rank) const {
  return partition_loop(total_lines(), ranks_, rank);
}

int partition_t::position_owner(uint64_t position) const {
  return partition_loop_inverse(total_lines(), ranks_, position);
}

uint64_t partition_t::rank_line_count(int rank) const {
  const auto range = rank_range(rank);
  return range.end - range.start;
}

line_t partition_t::rank_line(int rank, uint64_t local_line) const {
  const auto range = rank_range(rank);
  PENTAGO_CHECK(local_line < range.end - range.start, "partition: local line out of range");
  return lines_->line(line_at(range.start + local_line));
}

std::vector<line_t> partition_t::rank_lines(int rank) const {
  const auto range = rank_range(rank);
  std::vector<line_t> result;
  result.reserve(range.end - range.start);
  for (uint64_t p = range.start; p < range.end; p++) result.push_back(lines_->line(line_at(p)));
  return result;
}

int partition_t::owner_dimension(const section_t& section, const block_t& block) const {
  int dims[4], c = 0;
  for (int d = 0; d < 4; d++)
    if (!section.quadrant_full(d)) dims[c++] = d;
  PENTAGO_CHECK(c > 0, "partition: section " + section.str() + " has no lines");
  if (c == 1) return dims[0];
  if (!key_) return dims[(block[0] + block[1] + block[2] + block[3]) % c];
  return dims[int(threefry(key_, block_event(section, block)) % unsigned(c))];
}

block_owner_t partition_t::find_block(const section_t& section, const block_t& block) const {
  const auto blocks = section_blocks(section);
  for (int i = 0; i < 4; i++)
    PENTAGO_CHECK(block[i] < blocks[i], "partition: block out of range in " + section.str());
  const int d = owner_dimension(section, block);
  const int64_t canonical = lines_->index(section, d, block);
  PENTAGO_CHECK(canonical >= 0, "partition: section " + section.str() + " not in slice");
  const uint64_t p = position_of(uint64_t(canonical));
  const int rank = position_owner(p);
  return {rank, (p - rank_range(rank).start) << 6 | block[d]};
}

local_block_t partition_t::block_by_local_id(int rank, local_id_t local_id) const {
  check_rank(rank);
  const line_t line = rank_line(rank, local_id >> 6);
  const int k = int(local_id & 63);
  PENTAGO_CHECK(k < line.length(), "partition: local id past the end of its line");
  const block_t block = line.block(k);
  PENTAGO_CHECK(owner_dimension(line.section, block) == line.dimension,
                "partition: local id names a block owned by another line");
  return {line.section, block, local_id};
}

std::vector<local_block_t> partition_t::rank_blocks(int rank) const {
  const auto range = rank_range(rank);
  std::vector<local_block_t> result;
  for (uint64_t p = range.start; p < range.end; p++) {
    const line_t line = lines_->line(line_at(p));
    const int length = line.length();
    for (int k = 0; k < length; k++) {
      const block_t block = line.block(k);
      if (owner_dimension(line.section, block) == line.dimension)
        result.push_back({line.section, block, (p - range.start) << 6 | uint64_t(k)});
    }
  }
  return result;
}

std::array<int64_t, load_t::fields> load_t::values() const {
  return {lines, line_blocks, line_nodes, blocks, block_nodes, max_local_id};
}

load_t load_t::from_values(const std::array<int64_t, fields>& v) {
  return {v[0], v[1], v[2], v[3], v[4], v[5]};
}

load_range_t::load_range_t(const load_t& load) : min(load.values()), max(load.values()) {}

void load_range_t::add(const load_t& load) {
  const auto v = load.values();
  for (int i = 0; i < load_t::fields; i++) {
    min[i] = std::min(min[i], v[i]);
    max[i] = std::max(max[i], v[i]);
  }
}

load_t rank_load(const partition_t& partition, int rank) {
  const auto range = partition.rank_range(rank);
  load_t load;
  for (uint64_t p = range.start; p < range.end; p++) {
    const line_t line = partition.lines().line(partition.line_at(p));
    const auto shape = line.section.shape();
    const int d = line.dimension, length = line.length();
    // Cross-section of the line: the product of the other axes' block extents.
    int64_t cross = 1;
    for (int i = 0, j = 0; i < 4; i++)
      if (i != d) {
        const int b = line.base[j++];
        cross *= std::min(shape[i], block_size * (b + 1)) - block_size * b;
      }
    load.lines++;
    load.line_blocks += length;
    load.line_nodes += cross * shape[d];
    for (int k = 0; k < length; k++) {
      if (partition.owner_dimension(line.section, line.block(k)) != d) continue;
      load.blocks++;
      load.block_nodes += cross * (std::min(shape[d], block_size * (k + 1)) - block_size * k);
      load.max_local_id = std::max(load.max_local_id, int64_t((p - range.start) << 6 | k));
    }
  }
  return load;
}

load_range_t serial_load_balance(const partition_t& partition) {
  load_range_t range(rank_load(partition, 0));
  for (int r = 1; r < partition.ranks(); r++) range.add(rank_load(partition, r));
  return range;
}

std::string format_load_balance(const load_range_t& range) {
  std::string result;
  for (int i = 0; i < 5; i++) {
    char ratio[32] = "inf";
    if (range.min[i] > 0)
      std::snprintf(ratio, sizeof(ratio), "%.4g", double(range.max[i]) / double(range.min[i]));
    char line[160];
    std::snprintf(line, sizeof(line), "%s = %" PRId64 " %" PRId64 " (%s)\n", load_t::names[i],
                  range.min[i], range.max[i], ratio);
    result += line;
  }
  return result;
}

}  // namespace pentago
