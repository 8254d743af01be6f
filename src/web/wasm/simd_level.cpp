// The SIMD level of the WebAssembly module, in place of base's super.cpp (whose kernels need
// x86 vector instructions): level sse runs the midgame rows on 128-bit wasm SIMD through
// emscripten's SSE headers; the module uses no super kernel.
#include "pentago/base/super.h"

namespace pentago {

bool simd_supported(simd_level_t level) {
  return level == simd_level_t::portable || level == simd_level_t::sse;
}
simd_level_t best_simd_level() { return simd_level_t::sse; }
simd_level_t current_simd_level() { return simd_level_t::sse; }
const char* simd_name(simd_level_t level) {
  return level == simd_level_t::sse ? "sse" : "portable";
}

}  // namespace pentago
