// Run-time choice of the midgame row kernels' SIMD level, and halfsuper rmax per level.
#include <string>

#include "midgame_layer.h"
#include "pentago/util/error.h"

namespace pentago {
namespace detail {
extern const midgame_row_kernels_t midgame_rows_portable;
extern const midgame_row_kernels_t midgame_rows_sse;
#ifndef __EMSCRIPTEN__
extern const midgame_row_kernels_t midgame_rows_avx2;
#endif

const midgame_row_kernels_t& midgame_kernels_for(simd_level_t level) {
  if (!simd_supported(level))
    throw pentago_error_t(std::string("this CPU lacks ") + simd_name(level) +
                          " for the midgame solver");
#ifdef __EMSCRIPTEN__
  // WebAssembly: the SSE rows on 128-bit wasm SIMD (super.cpp supports no level above sse).
  (void)level;
  return midgame_rows_sse;
#else
  switch (level) {
    case simd_level_t::avx2:
    case simd_level_t::avx512:  // the midgame rows have no AVX-512 code of their own
    case simd_level_t::avx512vbmi:
      return midgame_rows_avx2;
    case simd_level_t::sse:
      return midgame_rows_sse;
    default:
      return midgame_rows_portable;
  }
#endif
}
}  // namespace detail

halfsuper_t halfsuper_rmax_at(simd_level_t level, halfsuper_t h) {
  return detail::midgame_kernels_for(level).rmax(h);
}

}  // namespace pentago
