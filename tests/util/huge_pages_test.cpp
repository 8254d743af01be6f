// Memory on either page size: the asked size, zeroed and writable to its last byte, huge pages
// starting on a huge-page boundary whatever the size; each mapping released without disturbing
// the others. A page array holds its fill value in every slot and moves without copying. The
// probe measures both sizes and names the cheaper one by its own rule.
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

TEST(huge_pages, page_array_is_filled_and_moves_its_memory) {
  struct slot_t {
    uint64_t key;
    int value;
  };
  for (const page_size_t pages : {page_size_t::base, page_size_t::huge}) {
    page_array_t<slot_t> a(size_t(3) << 17, pages, slot_t{UINT64_MAX, -1});  // 6 MiB
    ASSERT_EQ(a.size(), size_t(3) << 17);
    for (const size_t i : {size_t(0), size_t(12345), a.size() - 1}) {
      EXPECT_EQ(a[i].key, UINT64_MAX);
      EXPECT_EQ(a[i].value, -1);
    }
    if (pages == page_size_t::huge) {
      EXPECT_EQ(reinterpret_cast<uintptr_t>(&a[0]) % huge_page_bytes, 0u);
    }
    a[7] = {7, 70};
    const slot_t* at = &a[0];
    page_array_t<slot_t> b(std::move(a));
    EXPECT_EQ(&b[0], at);
    EXPECT_EQ(b[7].value, 70);
    EXPECT_EQ(a.size(), 0u);
    page_array_t<slot_t> c(5, pages, slot_t{1, 2});
    c = std::move(b);
    EXPECT_EQ(c.size(), size_t(3) << 17);
    EXPECT_EQ(c[7].key, 7u);
    EXPECT_EQ(b.size(), 5u);  // the swap leaves the other array to its own destructor
    EXPECT_EQ(b[4].value, 2);
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
