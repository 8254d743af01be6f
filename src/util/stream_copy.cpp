// stream_copy (stream_copy.h): SSE2 streaming stores, part of every x86-64 target, so the
// baseline build needs no ISA dispatch for it.
#include "pentago/util/stream_copy.h"

#include <cstdint>
#include <cstring>

#if defined(__x86_64__) || defined(_M_X64)
#include <emmintrin.h>
#define PENTAGO_STREAM_COPY_SSE2 1
#endif

namespace pentago {

void stream_copy(void* dst, const void* src, size_t bytes) {
#ifdef PENTAGO_STREAM_COPY_SSE2
  if ((reinterpret_cast<uintptr_t>(dst) | reinterpret_cast<uintptr_t>(src)) % 16 == 0) {
    auto* d = static_cast<__m128i*>(dst);
    const auto* s = static_cast<const __m128i*>(src);
    const size_t vectors = bytes / 16;
    for (size_t i = 0; i < vectors; i++) _mm_stream_si128(d + i, _mm_load_si128(s + i));
    _mm_sfence();
    std::memcpy(reinterpret_cast<uint8_t*>(d + vectors),
                reinterpret_cast<const uint8_t*>(s + vectors), bytes % 16);
    return;
  }
#endif
  std::memcpy(dst, src, bytes);
}

}  // namespace pentago
