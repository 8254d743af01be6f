// Counter-based randomness (docs/formats.md, "Randomness"): 128-bit helpers, Threefry2x64-20,
// a counter-mode generator and the Black-Rogaway FE2 permutation of an arbitrary range.
#pragma once
#include <array>
#include <cstdint>
#include <string>

namespace pentago {

using uint128_t = unsigned __int128;

constexpr uint64_t low64(uint128_t x) { return static_cast<uint64_t>(x); }
constexpr uint64_t high64(uint128_t x) { return static_cast<uint64_t>(x >> 64); }
constexpr uint128_t make_uint128(uint64_t hi, uint64_t lo) { return uint128_t(hi) << 64 | lo; }
// "hhhhhhhhhhhhhhhh:llllllllllllllll" (high word, then low word, lowercase hex).
std::string hex(uint128_t x);

// The splitmix64 finalizer: a bijective 64-bit mixer (odd multiplications and xor-shifts).
constexpr uint64_t mix64_finalize(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
// One splitmix64 step on a counter value: the golden-ratio increment, then the finalizer. Used
// to pick items pseudorandomly but reproducibly (check, predict).
constexpr uint64_t mix64(uint64_t x) { return mix64_finalize(x + 0x9e3779b97f4a7c15ULL); }

// Threefry2x64 with 20 rounds (Random123). Counter words are (low64(ctr), high64(ctr)), key
// words (low64(key), high64(key)); the result is out[0] | out[1] << 64.
uint128_t threefry(uint128_t key, uint128_t ctr);

// Counter-mode generator: each draw is threefry(seed, counter++) truncated to the low bits.
class random_t {
 public:
  explicit random_t(uint128_t seed) : seed_(seed) {}

  uint128_t seed() const { return seed_; }
  uint128_t counter() const { return counter_; }

  // T is one of uint32_t, uint64_t, uint128.
  template <class T>
  T bits() {
    return static_cast<T>(threefry(seed_, counter_++));
  }
  // Uniform in [a, b) as a + (uint32 bits % (b - a)); the small modulo bias is deliberate.
  int uniform(int a, int b) {
    return a + static_cast<int>(bits<uint32_t>() % static_cast<uint32_t>(b - a));
  }
  // Each coordinate uniform in [0, shape[i]), drawn in axis order 0..3.
  std::array<int, 4> uniform_index(const std::array<int, 4>& shape) {
    std::array<int, 4> index;
    for (int i = 0; i < 4; i++) index[i] = uniform(0, shape[i]);
    return index;
  }
  // 2^-64 times 64 random bits (the top 2^10 values round to exactly 1.0).
  double uniform_double() { return 0x1p-64 * static_cast<double>(bits<uint64_t>()); }

 private:
  uint128_t seed_;
  uint128_t counter_ = 0;
};

// A key-dependent bijection of [0, n), 0 < n < 2^63, x < n: FE2 Feistel with 3 Threefry rounds
// over the smallest power of two strictly greater than n, cycle walking back into [0, n).
uint64_t random_permute(uint64_t n, uint128_t key, uint64_t x);
// The inverse: random_unpermute(n, key, random_permute(n, key, x)) == x.
uint64_t random_unpermute(uint64_t n, uint128_t key, uint64_t x);

}  // namespace pentago
