// The line kernel at every SIMD level the CPU has: every output block of sampled lines of
// slices 35, 34, 30 and 26, with pseudorandom inputs, equals the portable kernel's block word
// for word (the portable kernel itself is checked against published counts by the drivers).
// Slice-34 blocks computed again through the slice-35 lines a thread keeps equal fresh ones, and
// an output block reads exactly the input blocks line_block_inputs names.
#include "pentago/end/line_kernel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "pentago/base/super.h"
#include "pentago/end/line_compute.h"
#include "pentago/layout/blocks.h"
#include "pentago/layout/line_mapping.h"
#include "pentago/util/error.h"
#include "simd_levels.h"

using namespace pentago;

namespace {

class line_kernel_levels : public ::testing::TestWithParam<const char*> {};

// A block of `nodes` pseudorandom values (win implies notlose).
std::vector<superinfo_t> random_block(size_t nodes, std::mt19937_64& rng) {
  std::vector<superinfo_t> block(nodes);
  for (auto& v : block)
    for (int i = 0; i < 4; i++) {
      v.win.w[i] = rng() & rng();
      v.notlose.w[i] = v.win.w[i] | rng();
    }
  return block;
}

// A random block for each input block of dep's line, and pointers to them in input order.
struct random_inputs_t {
  std::vector<std::vector<superinfo_t>> blocks;
  std::vector<const superinfo_t*> pointers;
};
random_inputs_t random_inputs(const line_dependency_t& dep, std::mt19937_64& rng) {
  random_inputs_t r;
  for (int b = 0; b < dep.input.length(); b++) {
    r.blocks.push_back(random_block(block_nodes(dep.child, dep.input.block(b)), rng));
    r.pointers.push_back(r.blocks.back().data());
  }
  return r;
}

}  // namespace

TEST_P(line_kernel_levels, every_level_equals_portable) {
  test::simd_level_guard_t guard;
  const section_t s = section_t::parse(GetParam()).standardize();
  const slice_lines_t lines(std::vector<section_t>{s});
  std::mt19937_64 rng(2024);
  const uint64_t total = lines.total_lines(), count = std::min<uint64_t>(total, 8);
  int compared_levels = 0;
  uint64_t compared_nodes = 0;
  for (uint64_t n = 0; n < count; n++) {
    const line_dependency_t dep = line_dependency_of(lines.line(n * total / count));
    const random_inputs_t given = s.sum() < 35 ? random_inputs(dep, rng) : random_inputs_t();
    const std::vector<const superinfo_t*>& inputs = given.pointers;
    for (int k = 0; k < dep.output.length(); k++) {
      const uint64_t nodes = block_nodes(dep.output.section, dep.output.block(k));
      set_simd_level(simd_level_t::portable);
      std::vector<superinfo_t> expected(nodes);
      compute_line_block(dep, inputs, k, expected.data());
      // The last step alone, over the contribution as a block's merged value.
      std::vector<superinfo_t> expected_finished = expected;
      finish_block(s, dep.output.block(k), expected_finished);
      for (simd_level_t level : {simd_level_t::sse, simd_level_t::avx2, simd_level_t::avx512,
                                 simd_level_t::avx512vbmi}) {
        if (!simd_supported(level)) continue;
        set_simd_level(level);
        std::vector<superinfo_t> got(nodes);
        compute_line_block(dep, inputs, k, got.data());
        std::vector<superinfo_t> finished = got;
        finish_block(s, dep.output.block(k), finished);
        for (uint64_t i = 0; i < nodes; i++) {
          ASSERT_EQ(got[i], expected[i]) << simd_name(level) << " differs at node " << i
                                         << " of block " << k << " of line " << n;
          ASSERT_EQ(finished[i], expected_finished[i])
              << simd_name(level) << " finished differs at node " << i << " of block " << k;
        }
        compared_levels++;
      }
      compared_nodes += nodes;
    }
  }
  if (compared_levels == 0) GTEST_SKIP() << "this CPU has neither SSSE3 nor AVX2";
  EXPECT_GT(compared_nodes, 0u);
}

INSTANTIATE_TEST_SUITE_P(sections, line_kernel_levels,
                         ::testing::Values("54444554", "44444554", "44444433", "33334433"));

// The block written merged with another (the engine's accumulation in the kernel): at every
// SIMD level, a block merged with a separate block, merged in place, and written with
// streaming stores equals the plain block ORed with the other, word for word.
TEST(line_kernel, merged_and_streamed_outputs_equal_plain_ones) {
  test::simd_level_guard_t guard;
  std::mt19937_64 rng(11);
  int compared = 0;
  for (const char* name : {"54444554", "44444433"}) {
    const section_t s = section_t::parse(name).standardize();
    const slice_lines_t lines(std::vector<section_t>{s});
    const line_dependency_t dep = line_dependency_of(lines.line(lines.total_lines() / 2));
    const random_inputs_t given = s.sum() < 35 ? random_inputs(dep, rng) : random_inputs_t();
    for (simd_level_t level : {simd_level_t::portable, simd_level_t::sse, simd_level_t::avx2,
                               simd_level_t::avx512, simd_level_t::avx512vbmi}) {
      if (!simd_supported(level)) continue;
      set_simd_level(level);
      for (int k = 0; k < dep.output.length(); k++) {
        const size_t nodes = block_nodes(dep.output.section, dep.output.block(k));
        std::vector<superinfo_t> plain(nodes);
        compute_line_block(dep, given.pointers, k, plain.data());
        const std::vector<superinfo_t> other = random_block(nodes, rng);
        std::vector<superinfo_t> expected = plain;
        merge_into(expected, other);
        std::vector<superinfo_t> merged(nodes), in_place = other, streamed(nodes),
                                                streamed_in_place = other;
        compute_line_block(dep, given.pointers, k, line_output_t{merged.data(), other.data()});
        compute_line_block(dep, given.pointers, k, line_output_t{in_place.data(), in_place.data()});
        compute_line_block(dep, given.pointers, k, line_output_t{streamed.data(), nullptr, true});
        compute_line_block(dep, given.pointers, k,
                           line_output_t{streamed_in_place.data(), streamed_in_place.data(), true});
        // The block's last line: merged, then the last step, in the kernel's pass.
        std::vector<superinfo_t> finished(nodes), finished_in_place = other;
        compute_line_block(dep, given.pointers, k,
                           line_output_t{finished.data(), other.data(), false, true});
        compute_line_block(
            dep, given.pointers, k,
            line_output_t{finished_in_place.data(), finished_in_place.data(), false, true});
        std::vector<superinfo_t> expected_finished = expected;
        finish_block(s, dep.output.block(k), expected_finished);
        for (size_t i = 0; i < nodes; i++) {
          ASSERT_EQ(merged[i], expected[i]) << simd_name(level) << " merged, node " << i;
          ASSERT_EQ(in_place[i], expected[i]) << simd_name(level) << " in place, node " << i;
          ASSERT_EQ(streamed[i], plain[i]) << simd_name(level) << " streamed, node " << i;
          ASSERT_EQ(streamed_in_place[i], expected[i]) << simd_name(level) << " node " << i;
          ASSERT_EQ(finished[i], expected_finished[i]) << simd_name(level) << " finished " << i;
          ASSERT_EQ(finished_in_place[i], expected_finished[i]) << simd_name(level) << " " << i;
        }
        compared++;
      }
    }
  }
  EXPECT_GT(compared, 0);
}

// The last step distributes over the max and a second one changes nothing (so a block may
// take it after its last line at any point), and it changes the nodes where a side has five
// in a row: on random values of sections of slices 35 to 26, finish(a | b) equals
// finish(a) | finish(b), finish(finish(a)) equals finish(a), and some nodes change.
TEST(line_kernel, last_step_distributes_over_the_max_and_is_idempotent) {
  std::mt19937_64 rng(13);
  for (const char* name : {"54444554", "44444554", "44444433", "33334433"}) {
    const section_t s = section_t::parse(name).standardize();
    uint64_t changed = 0;
    for (int n = 0; n < 4; n++) {
      const block_t b = block_from_index(s, rng() % section_block_count(s));
      const size_t nodes = block_nodes(s, b);
      const std::vector<superinfo_t> a = random_block(nodes, rng), c = random_block(nodes, rng);
      std::vector<superinfo_t> both = a, fa = a, fc = c;
      merge_into(both, c);
      finish_block(s, b, both);
      finish_block(s, b, fa);
      finish_block(s, b, fc);
      for (size_t i = 0; i < nodes; i++) changed += fa[i] != a[i];
      std::vector<superinfo_t> again = fa;
      finish_block(s, b, again);
      ASSERT_EQ(again, fa) << name;
      merge_into(fa, fc);
      ASSERT_EQ(both, fa) << name;
    }
    EXPECT_GT(changed, 0u) << name;
  }
}

// The kernel keeps the previous block's win tables for the quadrants a line's blocks share.
// At every SIMD level, a line's blocks computed one after another (tables kept), in order and
// in reverse, and as the last line with other lines between, equal the same blocks each
// computed with every table built afresh.
TEST(line_kernel, kept_tables_equal_fresh_ones) {
  test::simd_level_guard_t guard;
  const section_t s = section_t::parse("44444433").standardize();
  const slice_lines_t lines(std::vector<section_t>{s});
  std::mt19937_64 rng(7);
  int compared = 0;
  for (simd_level_t level :
       {simd_level_t::portable, simd_level_t::avx2, simd_level_t::avx512vbmi}) {
    if (!simd_supported(level)) continue;
    set_simd_level(level);
    for (int d = 0; d < 4; d++) {
      // The first line along each quadrant with at least three blocks.
      line_t line{};
      for (uint64_t i = 0; i < lines.total_lines(); i++)
        if (lines.line(i).dimension == d && lines.line(i).length() >= 3) {
          line = lines.line(i);
          break;
        }
      if (line.length() < 3) continue;
      const line_dependency_t dep = line_dependency_of(line);
      const random_inputs_t given = random_inputs(dep, rng);
      const std::vector<const superinfo_t*>& inputs = given.pointers;
      const int length = line.length();
      const size_t count = size_t(length);
      std::vector<std::vector<superinfo_t>> fresh(count), forward(count), backward(count),
          fresh_finished(count), finished(count);
      // The last line's output (with the last step, which also reads the opponent's tables).
      const auto finishing = [&](int k, std::vector<superinfo_t>& out) {
        compute_line_block(dep, inputs, k, line_output_t{out.data(), nullptr, false, true});
      };
      for (int k = 0; k < length; k++) {
        const size_t nodes = block_nodes(s, line.block(k));
        fresh[k].resize(nodes), forward[k].resize(nodes), backward[k].resize(nodes);
        fresh_finished[k].resize(nodes), finished[k].resize(nodes);
        forget_kept_line_tables();
        compute_line_block(dep, inputs, k, fresh[k].data());
        forget_kept_line_tables();
        finishing(k, fresh_finished[k]);
      }
      for (int k = 0; k < length; k++) compute_line_block(dep, inputs, k, forward[k].data());
      for (int k = length - 1; k >= 0; k--) compute_line_block(dep, inputs, k, backward[k].data());
      // Lines without the step between, so that the opponent's kept tables are older ones.
      for (int k = 0; k < length; k++) {
        if (k % 2) compute_line_block(dep, inputs, length - 1 - k, forward[length - 1 - k].data());
        finishing(k, finished[k]);
      }
      for (int k = 0; k < length; k++) {
        ASSERT_EQ(forward[k], fresh[k]) << simd_name(level) << " quadrant " << d << " block " << k;
        ASSERT_EQ(backward[k], fresh[k]) << simd_name(level) << " quadrant " << d << " block " << k;
        ASSERT_EQ(finished[k], fresh_finished[k])
            << simd_name(level) << " quadrant " << d << " block " << k;
        compared++;
      }
    }
  }
  EXPECT_GT(compared, 0);
}

// A slice-34 block computed again (compute_block_again, through the slice-35 lines each thread
// keeps) equals the max over its open quadrants of its line block from slice-35 blocks each
// computed afresh: blocks of two sections along a few block lines, asked for shuffled, in
// order (neighbours share slice-35 lines) and shuffled again, reading many more lines than
// the thread keeps, so that lines are found, give way and are computed again.
TEST(line_kernel, blocks_computed_again_equal_fresh_ones_in_any_order) {
  std::vector<std::pair<section_t, block_t>> blocks;
  std::mt19937_64 rng(34);
  for (const char* name : {"44444554", "45444454"}) {
    const section_t s = section_t::parse(name).standardize();
    ASSERT_EQ(s.sum(), 34);
    const auto extent = section_blocks(s);
    for (int d = 0; d < 4; d++) {
      if (s.quadrant_full(d)) continue;
      for (int n = 0; n < 3; n++) {  // all blocks of three random lines along d
        block_t b;
        for (int a = 0; a < 4; a++) b[a] = uint8_t(rng() % uint64_t(extent[a]));
        for (b[d] = 0; b[d] < extent[d]; b[d]++) blocks.push_back({s, b});
      }
    }
  }
  int lines = 0;  // slice-35 lines read, one per open quadrant of each block
  const auto fresh = [&](const section_t& s, const block_t& b) {
    std::vector<superinfo_t> value(block_nodes(s, b));
    bool first = true;
    for (int d = 0; d < 4; d++) {
      if (s.quadrant_full(d)) continue;
      line_t line;
      line.section = s;
      line.dimension = d;
      for (int a = 0, j = 0; a < 4; a++)
        if (a != d) line.base[j++] = b[a];
      const line_dependency_t dep = line_dependency_of(line);
      lines++;
      std::vector<std::vector<superinfo_t>> top(dep.input.length());
      std::vector<const superinfo_t*> inputs;
      for (int k = 0; k < dep.input.length(); k++) {
        compute_top_block(dep.input.section, dep.input.block(k), top[k]);
        inputs.push_back(top[k].data());
      }
      std::vector<superinfo_t> part(value.size());
      compute_line_block(dep, inputs, b[d], part.data());
      if (first)
        value = part;
      else
        merge_into(value, part);
      first = false;
    }
    finish_block(s, b, value);
    return value;
  };
  std::vector<std::vector<superinfo_t>> expected;
  for (const auto& [s, b] : blocks) expected.push_back(fresh(s, b));
  ASSERT_GT(lines, 40);
  std::vector<size_t> order(blocks.size());
  for (size_t i = 0; i < order.size(); i++) order[i] = i;
  for (int pass = 0; pass < 3; pass++) {
    if (pass == 1)
      std::sort(order.begin(), order.end());
    else
      std::shuffle(order.begin(), order.end(), rng);
    for (const size_t i : order) {
      const auto& [s, b] = blocks[i];
      std::vector<superinfo_t> got(block_nodes(s, b));
      compute_block_again(s, b, got);
      ASSERT_EQ(got, expected[i]) << s.name() << " block " << int(b[0]) << int(b[1]) << int(b[2])
                                  << int(b[3]) << " pass " << pass;
    }
  }
}

// line_block_inputs names exactly the input blocks an output block reads: computed from those
// alone (the others null), each output block equals the one computed from the whole input line,
// and leaving out any one of them is an error. On slices 34 and 33 most output blocks read
// fewer input blocks than their line has, which is what slice 33 saves when it computes slice
// 34's blocks again.
TEST(line_kernel, line_block_inputs_are_exactly_the_blocks_read) {
  std::mt19937_64 rng(35);
  uint64_t listed = 0, available = 0;
  for (const char* name : {"44444554", "44444454", "44444444", "54454454"}) {
    const section_t s = section_t::parse(name).standardize();
    const slice_lines_t lines(std::vector<section_t>{s});
    const uint64_t total = lines.total_lines(), count = std::min<uint64_t>(total, 6);
    for (uint64_t n = 0; n < count; n++) {
      const line_dependency_t dep = line_dependency_of(lines.line(n * total / count));
      if (s.sum() == 35) {
        EXPECT_TRUE(line_block_inputs(dep, 0).empty());
        continue;
      }
      const random_inputs_t given = random_inputs(dep, rng);
      const std::vector<const superinfo_t*>& all = given.pointers;
      for (int k = 0; k < dep.output.length(); k++) {
        const std::vector<int> read = line_block_inputs(dep, k);
        ASSERT_FALSE(read.empty());
        ASSERT_TRUE(std::is_sorted(read.begin(), read.end()));
        listed += read.size(), available += all.size();
        const uint64_t nodes = block_nodes(dep.output.section, dep.output.block(k));
        std::vector<superinfo_t> expected(nodes), got(nodes);
        compute_line_block(dep, all, k, expected.data());
        std::vector<const superinfo_t*> some(all.size(), nullptr);
        for (const int b : read) some[size_t(b)] = all[size_t(b)];
        compute_line_block(dep, some, k, got.data());
        ASSERT_EQ(got, expected) << name << " line " << n << " block " << k;
        for (const int b : read) {
          some[size_t(b)] = nullptr;
          EXPECT_THROW(compute_line_block(dep, some, k, got.data()), pentago_error_t)
              << name << " line " << n << " block " << k << " without input " << b;
          some[size_t(b)] = all[size_t(b)];
        }
      }
    }
  }
  EXPECT_GT(listed, 0u);
  EXPECT_LT(listed, available);
}
