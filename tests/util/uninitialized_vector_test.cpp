// uninitialized_vector: constructors and resizes that pass values still store them (only
// value-initialization is skipped), and the vector behaves as a std::vector otherwise.
#include "pentago/util/uninitialized_vector.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace pentago {
namespace {

TEST(uninitialized_vector, given_values_are_stored) {
  uninitialized_vector<uint64_t> v(1000, 7);
  for (const uint64_t x : v) ASSERT_EQ(x, 7u);
  v.resize(2000, 9);
  for (size_t i = 0; i < v.size(); i++) ASSERT_EQ(v[i], i < 1000 ? 7u : 9u);
  v.push_back(11);
  EXPECT_EQ(v.back(), 11u);
  EXPECT_EQ(v.size(), 2001u);
}

TEST(uninitialized_vector, resize_keeps_the_prefix_and_is_writable) {
  uninitialized_vector<uint8_t> v;
  v.push_back(1);
  v.push_back(2);
  v.resize(1 << 20);  // the new bytes are unspecified until written
  EXPECT_EQ(v[0], 1);
  EXPECT_EQ(v[1], 2);
  for (size_t i = 2; i < v.size(); i++) v[i] = uint8_t(i);
  EXPECT_EQ(v[1000], uint8_t(1000));
  const uninitialized_vector<uint8_t> copy = v;
  EXPECT_EQ(copy, v);
}

}  // namespace
}  // namespace pentago
