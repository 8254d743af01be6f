// Helpers for tests that run code at every SIMD level: the levels this CPU supports, and a
// guard that puts the level back when the test ends.
#pragma once
#include <vector>

#include "pentago/base/super.h"

namespace pentago::test {

inline std::vector<simd_level_t> supported_simd_levels() {
  std::vector<simd_level_t> r;
  for (auto l : {simd_level_t::portable, simd_level_t::sse, simd_level_t::avx2,
                 simd_level_t::avx512, simd_level_t::avx512vbmi})
    if (simd_supported(l)) r.push_back(l);
  return r;
}

struct simd_level_guard_t {
  simd_level_t saved = current_simd_level();
  ~simd_level_guard_t() { set_simd_level(saved); }
};

}  // namespace pentago::test
