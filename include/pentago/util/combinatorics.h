// Binomial coefficients, exact from a table (board counting, section sizes, subset ranks).
#pragma once
#include <array>
#include <cstdint>

namespace pentago {

// C(n, k) for 0 <= n <= 40 (0 when k < 0 or k > n).
inline uint64_t binomial(int n, int k) {
  static const auto table = [] {
    std::array<std::array<uint64_t, 41>, 41> c{};
    for (int i = 0; i <= 40; i++) {
      c[i][0] = 1;
      for (int j = 1; j <= i; j++) c[i][j] = c[i - 1][j - 1] + c[i - 1][j];
    }
    return c;
  }();
  return k < 0 || k > n ? 0 : table[n][k];
}

}  // namespace pentago
