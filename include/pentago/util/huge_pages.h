// Anonymous memory backed by transparent huge pages where the kernel offers them: the block
// arena, the partial-block pool and the MPI line buffers. A 2 MiB page is one fault and one
// TLB entry where 4 KiB pages take 512 of each; under a hypervisor, whose nested page walks
// make every TLB miss dear, that halves the engine's CPU on some roots (docs/performance.md).
#pragma once
#include <cstddef>

namespace pentago {

constexpr size_t huge_page_bytes = size_t(2) << 20;

// `bytes` (rounded up to whole base pages) of zeroed private memory starting on a huge-page
// boundary, with huge pages asked for (madvise advice: where the kernel's transparent huge
// pages are "never", or none is free, base pages back it). Nullptr on failure. Release it
// with unmap_huge_pages and the same size.
void* map_huge_pages(size_t bytes);
void unmap_huge_pages(void* memory, size_t bytes);

}  // namespace pentago
