// Memory on either page size: the asked size, zeroed and writable to its last byte, huge pages
// starting on a huge-page boundary whatever the size; each mapping released without disturbing
// the others. The probe measures both sizes and names the cheaper one by its own rule.
#include "pentago/util/huge_pages.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

namespace pentago {
namespace {

TEST(huge_pages, memory_of_either_size_is_zeroed_and_huge_pages_start_on_a_boundary) {
  std::vector<std::pair<uint8_t*, size_t>> maps;
  for (const page_size_t pages : {page_size_t::base, page_size_t::huge})
    for (const size_t bytes : {size_t(1), size_t(4096), (size_t(3) << 20) + 5, size_t(64) << 20}) {
      SCOPED_TRACE(std::string(page_size_name(pages)) + " " + std::to_string(bytes));
      auto* p = static_cast<uint8_t*>(map_pages(bytes, pages));
      ASSERT_NE(p, nullptr);
      if (pages == page_size_t::huge) {
        EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % huge_page_bytes, 0u);
      }
      EXPECT_EQ(p[0], 0);
      EXPECT_EQ(p[bytes - 1], 0);
      p[bytes - 1] = uint8_t(bytes + 1);
      p[0] = 7;
      maps.push_back({p, bytes});
    }
  // Each mapping keeps its bytes while the ones before it are released.
  for (const auto& [p, bytes] : maps) {
    EXPECT_EQ(p[0], 7);
    if (bytes > 1) {
      EXPECT_EQ(p[bytes - 1], uint8_t(bytes + 1));
    }
    unmap_pages(p, bytes);
  }
}

TEST(huge_pages, probe_measures_both_sizes_and_names_the_cheaper) {
  const page_probe_t probe = probe_page_sizes(size_t(4) << 20, 2);
  EXPECT_GT(probe.base_seconds_per_gib, 0);
  EXPECT_GT(probe.huge_seconds_per_gib, 0);
  EXPECT_EQ(probe.cheaper, probe.huge_seconds_per_gib <= 0.9 * probe.base_seconds_per_gib
                               ? page_size_t::huge
                               : page_size_t::base);
  EXPECT_STREQ(page_size_name(page_size_t::huge), "huge");
  EXPECT_STREQ(page_size_name(page_size_t::base), "base");
}

}  // namespace
}  // namespace pentago
