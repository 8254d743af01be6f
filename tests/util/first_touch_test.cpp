// The first-touch chooser: with made-up costs, it leaves huge pages once they cost more than
// huge_bias times base pages (and only then), returns to them when they get cheap again,
// explores the other size now and then (more rarely where it costs more than twice as much),
// ignores chunks that were not fresh, and cuts ranges into chunk_bytes pieces. On real memory it
// faults every page in, keeps the bytes of resident pages, and times only what was fresh.
#include "pentago/util/first_touch.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <vector>

namespace pentago {
namespace {

constexpr size_t chunk = first_touch_chooser_t::chunk_bytes;
constexpr double gib = double(size_t(1) << 30);

// A range of addresses that is never dereferenced by the made-up toucher.
uint8_t* nowhere() { return reinterpret_cast<uint8_t*>(uintptr_t(1) << 40); }

page_probe_t probe(double huge, double base) {
  page_probe_t p;
  p.huge_seconds_per_gib = huge;
  p.base_seconds_per_gib = base;
  return p;
}

struct made_up_t {
  // Cost in seconds per GiB of the next chunk on each size (index: page_size_t).
  std::function<double(int chunk, page_size_t)> cost;
  bool fresh = true;
  std::vector<page_size_t> chosen;
  first_touch_chooser_t::toucher_t toucher() {
    return [this](uint8_t*, size_t bytes, page_size_t pages) -> std::optional<double> {
      const double c = cost(int(chosen.size()), pages);
      chosen.push_back(pages);
      if (!fresh) return std::nullopt;
      return c * double(bytes) / gib;
    };
  }
  int count(page_size_t pages, int from = 0) const {
    int n = 0;
    for (size_t i = size_t(from); i < chosen.size(); i++) n += chosen[i] == pages;
    return n;
  }
};

TEST(first_touch, leaves_huge_pages_where_they_cost_more_than_the_bias_allows) {
  made_up_t m;
  m.cost = [](int, page_size_t p) { return p == page_size_t::huge ? 1.0 : 0.45; };
  // The probe saw huge pages cheap (memory freed a moment ago).
  first_touch_chooser_t chooser(probe(0.15, 0.5), m.toucher());
  EXPECT_EQ(chooser.preferred(), page_size_t::huge);
  chooser.make_resident(nowhere(), 64 * chunk);
  ASSERT_EQ(m.chosen.size(), 64u);
  EXPECT_EQ(m.chosen[0], page_size_t::huge);
  EXPECT_EQ(chooser.preferred(), page_size_t::base);
  // After the first chunk, huge pages only where the chooser explores: as they cost more than
  // twice as much, once in explore_rarely chunks.
  EXPECT_EQ(m.count(page_size_t::huge, 1), 64 / first_touch_chooser_t::explore_rarely);
  const first_touch_stats_t s = chooser.stats();
  EXPECT_EQ(s.bytes[int(page_size_t::huge)] + s.bytes[int(page_size_t::base)], 64 * chunk);
  EXPECT_EQ(s.fresh_bytes[int(page_size_t::base)], s.bytes[int(page_size_t::base)]);
  EXPECT_NEAR(s.seconds[int(page_size_t::base)] * gib / double(s.fresh_bytes[0]), 0.45, 1e-9);
  EXPECT_EQ(s.chunks, 64u);
  EXPECT_NE(format_first_touch(s).find("base at 0.45 s/GiB"), std::string::npos)
      << format_first_touch(s);
}

TEST(first_touch, keeps_huge_pages_within_the_bias_and_comes_back_when_they_get_cheap) {
  made_up_t m;
  // Huge pages cost a little more than base (within the bias) for 32 chunks, then far more
  // for 32, then less again.
  m.cost = [](int k, page_size_t p) {
    if (p == page_size_t::base) return 3.0;
    return k < 32 ? 3.6 : k < 64 ? 9.0 : 2.0;
  };
  first_touch_chooser_t chooser(probe(3.0, 3.0), m.toucher());
  for (int k = 0; k < 160; k++) chooser.make_resident(nowhere(), chunk);
  // Within the bias: huge, base once in explore_every chunks.
  EXPECT_EQ(m.count(page_size_t::base) - m.count(page_size_t::base, 32),
            32 / first_touch_chooser_t::explore_every);
  // From the first expensive chunk on: base, but for at most one exploration.
  EXPECT_EQ(m.chosen[32], page_size_t::huge);
  EXPECT_GE(m.count(page_size_t::base, 33) - m.count(page_size_t::base, 64), 30);
  // Explorations after huge pages got cheap bring them back.
  EXPECT_EQ(chooser.preferred(), page_size_t::huge);
  EXPECT_GE(m.count(page_size_t::huge, 128), 28);
}

TEST(first_touch, chunks_that_were_not_fresh_leave_the_costs_alone) {
  made_up_t m;
  m.fresh = false;
  m.cost = [](int, page_size_t p) { return p == page_size_t::huge ? 5.0 : 0.1; };
  first_touch_chooser_t chooser(probe(0.2, 0.5), m.toucher());
  chooser.make_resident(nowhere(), 16 * chunk);
  EXPECT_EQ(chooser.preferred(), page_size_t::huge);
  const first_touch_stats_t s = chooser.stats();
  EXPECT_EQ(s.fresh_bytes[0] + s.fresh_bytes[1], 0u);
  EXPECT_EQ(s.bytes[0] + s.bytes[1], 16 * chunk);
  EXPECT_NE(format_first_touch(s).find("huge at -"), std::string::npos) << format_first_touch(s);
}

TEST(first_touch, ranges_are_cut_into_chunks_from_their_start_and_small_pieces_not_timed) {
  std::vector<std::pair<uintptr_t, size_t>> pieces;
  first_touch_chooser_t chooser(probe(1, 1), [&](uint8_t* at, size_t bytes, page_size_t) {
    pieces.push_back({uintptr_t(at), bytes});
    return std::optional<double>(100.0);  // absurd: would move the costs if timed
  });
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  // A start inside a page is rounded down, an end rounded up.
  chooser.make_resident(nowhere() + 5, 2 * chunk + 8 * page);
  ASSERT_EQ(pieces.size(), 3u);
  EXPECT_EQ(pieces[0], std::make_pair(uintptr_t(nowhere()), chunk));
  EXPECT_EQ(pieces[1], std::make_pair(uintptr_t(nowhere()) + chunk, chunk));
  EXPECT_EQ(pieces[2], std::make_pair(uintptr_t(nowhere()) + 2 * chunk, 9 * page));
  // The third piece is under a huge page: counted, not timed.
  const first_touch_stats_t s = chooser.stats();
  EXPECT_EQ(s.bytes[0] + s.bytes[1], 2 * chunk + 9 * page);
  EXPECT_EQ(s.fresh_bytes[0] + s.fresh_bytes[1], 2 * chunk);
}

TEST(first_touch, real_memory_is_made_resident_keeping_what_it_holds) {
  const size_t bytes = 3 * chunk;
  auto* p = static_cast<uint8_t*>(map_pages(bytes, page_size_t::base));
  ASSERT_NE(p, nullptr);
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  // The first chunk's pages hold data before the chooser sees them.
  for (size_t i = 0; i < chunk; i += page) p[i] = uint8_t(i / page + 1);
  first_touch_chooser_t chooser(probe(0.1, 0.5));
  chooser.make_resident(p, bytes);
  std::vector<unsigned char> resident(bytes / page);
  ASSERT_EQ(mincore(p, bytes, resident.data()), 0);
  for (size_t i = 0; i < resident.size(); i++) ASSERT_TRUE(resident[i] & 1) << i;
  for (size_t i = 0; i < chunk; i += page) ASSERT_EQ(p[i], uint8_t(i / page + 1)) << i;
  for (size_t i = chunk; i < bytes; i += page) ASSERT_EQ(p[i], 0) << i;
  // Only the two chunks that were fresh were timed.
  const first_touch_stats_t s = chooser.stats();
  EXPECT_EQ(s.bytes[0] + s.bytes[1], bytes);
  EXPECT_EQ(s.fresh_bytes[0] + s.fresh_bytes[1], 2 * chunk);
  EXPECT_GT(s.seconds[0] + s.seconds[1], 0);
  unmap_pages(p, bytes);
}

}  // namespace
}  // namespace pentago
