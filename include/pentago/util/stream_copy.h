// Copies a large buffer into memory that will not be read again soon (a held partial block):
// non-temporal stores skip the read-for-ownership of the destination's cache lines and keep
// the copy from evicting the caller's working set.
#pragma once
#include <cstddef>

namespace pentago {

// Copies `bytes` from src to dst (which must not overlap), as std::memcpy does. Uses
// streaming stores where both pointers are 16-byte aligned on x86-64, memcpy elsewhere; the
// stores are fenced before it returns, so the copy is visible to other threads as usual.
void stream_copy(void* dst, const void* src, size_t bytes);

}  // namespace pentago
