// map_huge_pages: memory of the asked size, zeroed and writable to its last byte, starting on a
// huge-page boundary whatever the size; released again without disturbing its neighbours.
#include "pentago/util/huge_pages.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace pentago {
namespace {

TEST(huge_pages, memory_starts_on_a_huge_page_and_is_zeroed) {
  std::vector<std::pair<uint8_t*, size_t>> maps;
  for (const size_t bytes : {size_t(1), size_t(4096), (size_t(3) << 20) + 5, size_t(64) << 20}) {
    SCOPED_TRACE(bytes);
    auto* p = static_cast<uint8_t*>(map_huge_pages(bytes));
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % huge_page_bytes, 0u);
    EXPECT_EQ(p[0], 0);
    EXPECT_EQ(p[bytes - 1], 0);
    p[0] = 1;
    p[bytes - 1] = uint8_t(bytes);
    maps.push_back({p, bytes});
  }
  // Each mapping keeps its bytes while the others come and go.
  for (size_t i = 0; i < maps.size(); i++) {
    const auto [p, bytes] = maps[i];
    EXPECT_EQ(p[0], bytes == 1 ? uint8_t(bytes) : 1);
    EXPECT_EQ(p[bytes - 1], uint8_t(bytes));
    unmap_huge_pages(p, bytes);
  }
}

}  // namespace
}  // namespace pentago
