// Granule restore and the interleave filter undone in one pass, at the AVX-512 VBMI level:
// granule_elision_avx512.h's loop, each restored node un-interleaved in its register before it
// is stored (a block decodes to the solver's nodes without a second pass over them).
#include <immintrin.h>

#include <cstdint>

#include "granule_elision.h"
#include "granule_elision_avx512.h"
#include "interleave_avx512vbmi.h"

namespace pentago::simd::PENTAGO_ISA {
namespace {

void restore_uninterleaved(const uint8_t* mask, const uint8_t* literal, const uint8_t* end,
                           size_t nodes, uint8_t* out) {
  const node_uninterleaver_t uninterleave_node;
  restore_nodes(mask, literal, end, nodes, [&](size_t n, __m512i x) {
    _mm512_storeu_si512(out + 64 * n, uninterleave_node(x));
  });
}

}  // namespace
}  // namespace pentago::simd::PENTAGO_ISA

namespace pentago::detail {

extern const restore_fn_t restore_granules_uninterleaved_avx512vbmi =
    simd::PENTAGO_ISA::restore_uninterleaved;

}  // namespace pentago::detail
