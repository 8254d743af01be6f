// The interleave filter of compress.h with AVX-512 VBMI and GFNI: a node is one 512-bit
// register. Output byte j holds nibble j of the win table on its even bits and nibble j of the
// notlose table on its odd bits. One byte permutation copies each table's bytes so that the
// first four 64-bit lanes hold the sources of the even output bytes (low nibbles) and the last
// four those of the odd ones (high nibbles); a per-lane bit-matrix product (gf2p8affineqb)
// spreads the right nibble onto the right bits; a final byte permutation restores the order.
// Uninterleaving runs the same steps backwards.
#include "interleave_avx512vbmi.h"

#include <immintrin.h>

#include <cstdint>

#include "interleave_simd.h"

namespace pentago::simd::PENTAGO_ISA {
namespace {

void interleave_avx512vbmi(const superinfo_t* in, superinfo_t* out, size_t n) {
  const __m512i win_source = load(win_bytes), notlose_source = load(notlose_bytes);
  const __m512i out_order = load(order);
  const __m512i win_spread = lanes(win_low, win_high);
  const __m512i notlose_spread = lanes(notlose_low, notlose_high);
  for (size_t i = 0; i < n; i++) {
    const __m512i x = _mm512_loadu_si512(&in[i]);
    const __m512i w =
        _mm512_gf2p8affine_epi64_epi8(_mm512_permutexvar_epi8(win_source, x), win_spread, 0);
    const __m512i l = _mm512_gf2p8affine_epi64_epi8(_mm512_permutexvar_epi8(notlose_source, x),
                                                    notlose_spread, 0);
    _mm512_storeu_si512(&out[i], _mm512_permutexvar_epi8(out_order, _mm512_or_si512(w, l)));
  }
}

void uninterleave_avx512vbmi(const superinfo_t* in, superinfo_t* out, size_t n) {
  const node_uninterleaver_t uninterleave_node;
  for (size_t i = 0; i < n; i++)
    _mm512_storeu_si512(&out[i], uninterleave_node(_mm512_loadu_si512(&in[i])));
}

}  // namespace
}  // namespace pentago::simd::PENTAGO_ISA

namespace pentago::detail {

extern const interleave_fn_t interleave_avx512vbmi = simd::PENTAGO_ISA::interleave_avx512vbmi;
extern const interleave_fn_t uninterleave_avx512vbmi = simd::PENTAGO_ISA::uninterleave_avx512vbmi;

}  // namespace pentago::detail
