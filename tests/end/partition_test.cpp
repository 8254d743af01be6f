// Tests of line and block ownership and load balance of slice partitions (docs/formats.md,
// "Randomness and the partition").
#include "pentago/end/partition.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <set>

#include "pentago/util/error.h"

namespace pentago {
namespace {

const uint128_t test_keys[] = {0, 1, 17, 12345};
const int test_ranks[] = {1, 2, 3, 5};

TEST(Partition, BlockEventExample) {
  const section_t s = section_t::parse("44444554");
  const uint64_t event = block_event(s, {0, 1, 2, 3});
  EXPECT_EQ(event, 0x28aa8888800c2040ULL);
  const uint128_t t = threefry(17, event);
  EXPECT_EQ(int(t % 4), 3);
  EXPECT_EQ(int(t % 3), 1);
  // Quadrants 2 and 3 are full, so the owner is dims[t mod 2] of dims = {0, 1}.
  EXPECT_EQ(partition_t(std::vector<section_t>{s}, 1, 17).owner_dimension(s, {0, 1, 2, 3}), 1);
  EXPECT_EQ(partition_t(std::vector<section_t>{s}, 1, 0).owner_dimension(s, {0, 1, 2, 3}), 0);
}

TEST(Partition, Loop) {
  for (const uint64_t n : {0, 1, 5, 17, 100, 1001}) {
    for (const int ranks : {1, 2, 3, 7, 64}) {
      uint64_t next = 0;
      for (int r = 0; r < ranks; r++) {
        const auto range = partition_loop(n, ranks, r);
        ASSERT_EQ(range.start, next);
        ASSERT_EQ(range.end - range.start, n / ranks + (uint64_t(r) < n % ranks));
        for (uint64_t i = range.start; i < range.end; i++)
          ASSERT_EQ(partition_loop_inverse(n, ranks, i), r);
        next = range.end;
      }
      ASSERT_EQ(next, n);
    }
  }
}

// Checks every line and block of one slice partition; returns the owner rank of every block.
std::map<std::pair<uint64_t, uint64_t>, int> check_partition(const partition_t& partition) {
  const slice_lines_t& lines = partition.lines();
  // Every canonical line is computed by exactly one rank.
  std::vector<int> line_rank(lines.total_lines(), -1);
  for (int r = 0; r < partition.ranks(); r++) {
    const auto rank_lines = partition.rank_lines(r);
    EXPECT_EQ(rank_lines.size(), partition.rank_line_count(r));
    for (uint64_t i = 0; i < rank_lines.size(); i++) {
      const line_t& line = rank_lines[i];
      EXPECT_EQ(line, partition.rank_line(r, i));
      const int64_t c = lines.index(line.section, line.dimension, line.block(0));
      EXPECT_GE(c, 0);
      EXPECT_EQ(line_rank[c], -1) << "line computed twice";
      line_rank[c] = r;
      EXPECT_EQ(partition.position_of(c), partition.rank_range(r).start + i);
      EXPECT_EQ(partition.line_at(partition.rank_range(r).start + i), uint64_t(c));
    }
  }
  for (const int r : line_rank) EXPECT_GE(r, 0) << "line computed by nobody";

  // Every block is owned once, by a rank computing its owner-dimension line.
  std::map<std::pair<uint64_t, uint64_t>, int> owner;  // (sig, block index) -> rank
  for (int r = 0; r < partition.ranks(); r++) {
    const auto blocks = partition.rank_blocks(r);
    const load_t load = rank_load(partition, r);
    EXPECT_EQ(load.blocks, int64_t(blocks.size()));
    int64_t nodes = 0, line_blocks = 0, line_nodes = 0;
    for (const line_t& line : partition.rank_lines(r)) {
      line_blocks += line.length();
      line_nodes += int64_t(line.nodes());
    }
    EXPECT_EQ(load.lines, int64_t(partition.rank_line_count(r)));
    EXPECT_EQ(load.line_blocks, line_blocks);
    EXPECT_EQ(load.line_nodes, line_nodes);
    for (size_t i = 0; i < blocks.size(); i++) {
      const auto& [section, block, id] = blocks[i];
      if (i) {
        EXPECT_LT(blocks[i - 1].local_id, id) << "flat order must follow local ids";
      }
      const auto [it, fresh] = owner.insert({{section.sig(), block_index(section, block)}, r});
      EXPECT_TRUE(fresh) << "block owned twice";
      EXPECT_EQ(partition.find_block(section, block), (block_owner_t{r, id}));
      EXPECT_EQ(partition.block_by_local_id(r, id), blocks[i]);
      const int d = partition.owner_dimension(section, block);
      EXPECT_FALSE(section.quadrant_full(d));
      EXPECT_EQ(line_rank[lines.index(section, d, block)], r);
      const line_t line = partition.rank_line(r, id >> 6);
      EXPECT_EQ(line.dimension, d);
      EXPECT_EQ(line.block(int(id & 63)), block);
      nodes += block_nodes(section, block);
    }
    EXPECT_EQ(load.block_nodes, nodes);
    EXPECT_EQ(load.max_local_id, blocks.empty() ? -1 : int64_t(blocks.back().local_id));
  }
  uint64_t total_blocks = 0;
  for (const section_t& s : partition.sections()) total_blocks += section_block_count(s);
  EXPECT_EQ(owner.size(), total_blocks) << "some block has no owner";
  return owner;
}

TEST(Partition, RootSlicesRoundTrip) {
  const auto slices = descendant_sections(section_t::parse("00000000"), 6);
  // Lines per slice of the whole game (pentago-analyze sizes, docs/layout.md).
  const uint64_t expected_lines[] = {4, 4, 18, 67, 311, 922, 3183};
  for (int n = 0; n <= 6; n++) {
    const auto lines = std::make_shared<const slice_lines_t>(slices[n]);
    ASSERT_EQ(lines->total_lines(), expected_lines[n]);
    for (const int ranks : test_ranks)
      for (const uint128_t key : test_keys) {
        SCOPED_TRACE("slice " + std::to_string(n) + " ranks " + std::to_string(ranks) + " key " +
                     std::to_string(uint64_t(key)));
        check_partition(partition_t(lines, ranks, key));
        if (HasFatalFailure() || HasFailure()) return;
      }
  }
}

TEST(Partition, DescendantsOf44444554RoundTrip) {
  const auto slices = descendant_sections(section_t::parse("44444554"), 35);
  for (int n = 34; n <= 35; n++) {
    ASSERT_FALSE(slices[n].empty());
    for (const int ranks : test_ranks)
      for (const uint128_t key : test_keys) {
        SCOPED_TRACE("slice " + std::to_string(n) + " ranks " + std::to_string(ranks) + " key " +
                     std::to_string(uint64_t(key)));
        check_partition(partition_t(slices[n], ranks, key));
        if (HasFailure()) return;
      }
  }
}

// More ranks than lines: the trailing ranks are empty.
TEST(Partition, MoreRanksThanLines) {
  const auto slices = descendant_sections(section_t::parse("00000000"), 2);
  for (const uint128_t key : test_keys) {
    const partition_t partition(slices[2], 40, key);
    check_partition(partition);
    EXPECT_EQ(partition.rank_line_count(17), 1u);
    EXPECT_EQ(partition.rank_line_count(18), 0u);
    EXPECT_TRUE(partition.rank_blocks(39).empty());
    EXPECT_EQ(rank_load(partition, 39).max_local_id, -1);
  }
}

// Different keys scramble lines and owners differently; key 0 deals the canonical order.
TEST(Partition, KeysMatter) {
  const auto slices = descendant_sections(section_t::parse("00000000"), 7);
  const auto lines = std::make_shared<const slice_lines_t>(slices[7]);
  const partition_t simple(lines, 5, 0), a(lines, 5, 17), b(lines, 5, 12345);
  for (int r = 0; r < 5; r++)
    for (uint64_t i = 0; i < simple.rank_line_count(r); i++)
      ASSERT_EQ(simple.line_at(simple.rank_range(r).start + i), i * 5 + r);
  const partition_t single(lines, 1, 0);
  for (uint64_t p = 0; p < lines->total_lines(); p++) ASSERT_EQ(single.line_at(p), p);
  const auto owners_a = check_partition(a), owners_b = check_partition(b);
  int same = 0;
  for (const auto& [block, rank] : owners_a) same += owners_b.at(block) == rank;
  // Independent owners agree with probability about 1/5.
  EXPECT_LT(same, int(owners_a.size()) * 3 / 10);
  EXPECT_GT(same, int(owners_a.size()) / 10);
}

// The random owner dimension is spread evenly over the non-full dimensions.
TEST(Partition, OwnerDimensionsUniform) {
  const auto sections = slice_sections(8);
  const partition_t partition(sections, 1, 17);
  std::array<int64_t, 4> hits{}, possible{};
  for (const section_t& s : sections) {
    if (s.quadrant_full(0) || s.quadrant_full(1) || s.quadrant_full(2) || s.quadrant_full(3))
      continue;
    const uint64_t count = section_block_count(s);
    for (uint64_t i = 0; i < count; i++)
      hits[partition.owner_dimension(s, block_from_index(s, i))]++;
    for (auto& p : possible) p += int64_t(count);
  }
  for (int d = 0; d < 4; d++) EXPECT_NEAR(double(hits[d]) / double(possible[d]), 0.25, 0.01);
}

// Slice 24 of the full solve: the permutation golden values (docs/formats.md) are its first
// scrambled lines, and 16384 ranks get 5814 or 5815 lines as in the production log.
TEST(Partition, Slice24Production) {
  const partition_t partition(slice_sections(24), 16384, 17);
  ASSERT_EQ(partition.total_lines(), 95263785u);
  const uint64_t golden[] = {19614260, 67940527, 17700304, 86252772, 1676904};
  for (int p = 0; p < 5; p++) EXPECT_EQ(partition.line_at(p), golden[p]);
  EXPECT_EQ(partition.rank_line_count(0), 5815u);
  EXPECT_EQ(partition.rank_line_count(16383), 5814u);
  const auto line = partition.lines().line(golden[0]);
  const auto owner = partition.find_block(line.section, line.block(0));
  EXPECT_EQ(partition.block_by_local_id(owner.rank, owner.local_id).block, line.block(0));
}

TEST(Partition, Errors) {
  const auto slices = descendant_sections(section_t::parse("00000000"), 4);
  const partition_t partition(slices[4], 3, 17);
  EXPECT_THROW(partition.find_block(slices[3][0], {0, 0, 0, 0}), pentago_error_t);  // other slice
  const section_t s = slices[4][0];
  const auto blocks = section_blocks(s);
  EXPECT_THROW(partition.find_block(s, {uint8_t(blocks[0]), 0, 0, 0}), pentago_error_t);
  EXPECT_THROW(partition.rank_lines(3), pentago_error_t);
  EXPECT_THROW(partition.block_by_local_id(0, partition.rank_line_count(0) << 6), pentago_error_t);
  EXPECT_THROW(partition.block_by_local_id(0, 63), pentago_error_t);  // past the end of line 0
  EXPECT_THROW(partition_t(slices[4], 0, 17), pentago_error_t);
}

TEST(Partition, FormatLoadBalance) {
  load_range_t range(load_t{10, 20, 30, 0, 50, 7});
  range.add(load_t{12, 20, 45, 4, 60, 9});
  EXPECT_EQ(range.min, (std::array<int64_t, 6>{10, 20, 30, 0, 50, 7}));
  EXPECT_EQ(range.max, (std::array<int64_t, 6>{12, 20, 45, 4, 60, 9}));
  EXPECT_EQ(format_load_balance(range),
            "lines = 10 12 (1.2)\n"
            "line blocks = 20 20 (1)\n"
            "line nodes = 30 45 (1.5)\n"
            "blocks = 0 4 (inf)\n"
            "block nodes = 50 60 (1.2)\n");
  EXPECT_EQ(load_t::from_values(range.max).values(), range.max);
}

// A large slice spread over many ranks: both partitions balance lines and blocks within 20%.
TEST(Partition, LoadBalanceSlice30) {
  const auto lines = std::make_shared<const slice_lines_t>(slice_sections(30));
  ASSERT_EQ(lines->total_lines(), 10582066u);
  for (const uint128_t key : {uint128_t(17), uint128_t(0)}) {
    const auto start = std::chrono::steady_clock::now();
    const partition_t partition(lines, 256, key);
    const load_range_t range = serial_load_balance(partition);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("slice 30, 256 ranks, key %d (%.2f s):\n%s", int(key), seconds,
                format_load_balance(range).c_str());
    EXPECT_LE(range.max[0] - range.min[0], 1);                    // lines
    EXPECT_LT(double(range.max[2]) / double(range.min[2]), 1.2);  // line nodes
    EXPECT_LT(double(range.max[3]) / double(range.min[3]), 1.2);  // blocks
    EXPECT_LT(double(range.max[4]) / double(range.min[4]), 1.2);  // block nodes
  }
}

}  // namespace
}  // namespace pentago
