// Internal to data: the interleave filter of compress.h compiled per ISA (the files
// interleave_portable.cpp, interleave_sse.cpp, interleave_avx2.cpp and
// interleave_avx512vbmi.cpp, which get their ISA's
// flags from pentago_simd_sources); compress.cpp picks one by the super kernels' SIMD level.
#pragma once
#include <cstddef>

#include "pentago/base/super.h"

namespace pentago::detail {

// Filters n nodes from in to out (the same pointer filters in place).
using interleave_fn_t = void (*)(const superinfo_t* in, superinfo_t* out, size_t n);
extern const interleave_fn_t interleave_portable, uninterleave_portable;
extern const interleave_fn_t interleave_sse, uninterleave_sse;
extern const interleave_fn_t interleave_avx2, uninterleave_avx2;
extern const interleave_fn_t interleave_avx512vbmi, uninterleave_avx512vbmi;

}  // namespace pentago::detail
