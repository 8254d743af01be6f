// Threefry2x64-20 through Random123 and the FE2 arbitrary-domain permutation (docs/formats.md,
// "Randomness and the partition").
#include "pentago/util/random.h"

#include <Random123/threefry.h>

#include <bit>
#include <cstdio>

#include "pentago/util/error.h"

namespace pentago {

std::string hex(uint128_t x) {
  char buffer[40];
  std::snprintf(buffer, sizeof(buffer), "%016llx:%016llx",
                static_cast<unsigned long long>(high64(x)),
                static_cast<unsigned long long>(low64(x)));
  return buffer;
}

uint128_t threefry(uint128_t key, uint128_t ctr) {
  const r123::Threefry2x64::ctr_type c = {{low64(ctr), high64(ctr)}};
  const r123::Threefry2x64::key_type k = {{low64(key), high64(key)}};
  const auto out = r123::Threefry2x64()(c, k);
  return make_uint128(out.v[1], out.v[0]);
}

namespace {

// The Feistel geometry for a domain of size n: 2^bits > n, a high bits and b low bits.
struct feistel_t {
  int a, b;
  uint64_t mask_a, mask_b;
  explicit feistel_t(uint64_t n) {
    PENTAGO_CHECK(n > 0 && n < (uint64_t(1) << 63), "random_permute: n out of range");
    const int bits = std::bit_width(n);  // floor(log2 n) + 1
    a = bits / 2;
    b = bits - a;
    mask_a = (uint64_t(1) << a) - 1;
    mask_b = (uint64_t(1) << b) - 1;
  }
};

// Round function: the low 32 bits of threefry(key, round << 32 | half).
uint32_t round_value(uint128_t key, int round, uint32_t half) {
  return static_cast<uint32_t>(threefry(key, uint128_t(round) << 32 | half));
}

uint64_t encrypt(const feistel_t& f, uint128_t key, uint64_t x) {
  uint32_t L = static_cast<uint32_t>(x >> f.b), R = static_cast<uint32_t>(x & f.mask_b);
  L = (L + round_value(key, 1, R)) & f.mask_a;
  R = (R + round_value(key, 2, L)) & f.mask_b;
  L = (L + round_value(key, 3, R)) & f.mask_a;
  return uint64_t(L) << f.b | R;
}

uint64_t decrypt(const feistel_t& f, uint128_t key, uint64_t x) {
  uint32_t L = static_cast<uint32_t>(x >> f.b), R = static_cast<uint32_t>(x & f.mask_b);
  L = (L - round_value(key, 3, R)) & f.mask_a;
  R = (R - round_value(key, 2, L)) & f.mask_b;
  L = (L - round_value(key, 1, R)) & f.mask_a;
  return uint64_t(L) << f.b | R;
}

}  // namespace

uint64_t random_permute(uint64_t n, uint128_t key, uint64_t x) {
  const feistel_t f(n);
  PENTAGO_CHECK(x < n, "random_permute: x out of range");
  do x = encrypt(f, key, x);
  while (x >= n);
  return x;
}

uint64_t random_unpermute(uint64_t n, uint128_t key, uint64_t x) {
  const feistel_t f(n);
  PENTAGO_CHECK(x < n, "random_unpermute: x out of range");
  do x = decrypt(f, key, x);
  while (x >= n);
  return x;
}

}  // namespace pentago
