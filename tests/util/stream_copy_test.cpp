// stream_copy against memcpy: every size up to a few vectors and a block-sized one, aligned and
// unaligned, never writing past the end.
#include "pentago/util/stream_copy.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace pentago {
namespace {

std::vector<uint8_t> pattern(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; i++) v[i] = uint8_t(seed + 37 * i + (i >> 8));
  return v;
}

void check_copy(size_t bytes, size_t src_offset, size_t dst_offset) {
  alignas(64) static uint8_t src[(256 << 10) + 128], dst[(256 << 10) + 128];
  const auto data = pattern(bytes, uint8_t(bytes + src_offset));
  std::memcpy(src + src_offset, data.data(), bytes);
  std::memset(dst, 0xa5, sizeof dst);
  stream_copy(dst + dst_offset, src + src_offset, bytes);
  ASSERT_EQ(0, std::memcmp(dst + dst_offset, data.data(), bytes))
      << bytes << " bytes, offsets " << src_offset << " / " << dst_offset;
  for (size_t i = 0; i < sizeof dst; i++) {
    if (i < dst_offset || i >= dst_offset + bytes) {
      ASSERT_EQ(0xa5, dst[i]) << "byte " << i << " written outside the copy of " << bytes;
    }
  }
}

TEST(stream_copy, EqualsMemcpyAlignedAndNot) {
  for (size_t bytes = 0; bytes <= 100; bytes++)
    for (size_t src_offset : {0, 16, 1, 8})
      for (size_t dst_offset : {0, 32, 3}) check_copy(bytes, src_offset, dst_offset);
}

TEST(stream_copy, CopiesABlockOfNodes) {
  check_copy(256 << 10, 0, 0);         // a whole 8^4 block of 64-byte nodes
  check_copy((256 << 10) - 7, 0, 64);  // ending mid-vector
  check_copy(100000, 5, 0);            // unaligned: the memcpy path
}

}  // namespace
}  // namespace pentago
