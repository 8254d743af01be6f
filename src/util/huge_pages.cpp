// Huge-page-aligned anonymous memory (see huge_pages.h).
#include "pentago/util/huge_pages.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

namespace pentago {
namespace {

size_t whole_pages(size_t bytes) {
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  return (bytes + page - 1) / page * page;
}

}  // namespace

void* map_huge_pages(size_t bytes) {
  const size_t length = whole_pages(bytes);
  // Map a huge page more than asked, then trim both ends so that the rest starts on a boundary.
  void* p = mmap(nullptr, length + huge_page_bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  const uintptr_t at = uintptr_t(p);
  const uintptr_t start = (at + huge_page_bytes - 1) / huge_page_bytes * huge_page_bytes;
  if (start > at) munmap(p, start - at);
  munmap(reinterpret_cast<void*>(start + length), at + huge_page_bytes - start);
  (void)madvise(reinterpret_cast<void*>(start), length, MADV_HUGEPAGE);  // advice only
  return reinterpret_cast<void*>(start);
}

void unmap_huge_pages(void* memory, size_t bytes) {
  if (memory) munmap(memory, whole_pages(bytes));
}

}  // namespace pentago
