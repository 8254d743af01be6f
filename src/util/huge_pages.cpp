// Memory on base or huge pages, and the probe of their first-touch cost (see huge_pages.h).
#include "pentago/util/huge_pages.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>

namespace pentago {
namespace {

size_t whole_pages(size_t bytes) {
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  return (bytes + page - 1) / page * page;
}

// `length` bytes starting on a huge-page boundary: a huge page more is mapped, and both ends
// trimmed.
void* map_aligned(size_t length) {
  void* p = mmap(nullptr, length + huge_page_bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  const uintptr_t at = uintptr_t(p);
  const uintptr_t start = (at + huge_page_bytes - 1) / huge_page_bytes * huge_page_bytes;
  if (start > at) munmap(p, start - at);
  munmap(reinterpret_cast<void*>(start + length), at + huge_page_bytes - start);
  return reinterpret_cast<void*>(start);
}

// Seconds to write one byte into every base page of fresh memory of the given size; -1 where
// the memory could not be mapped.
double first_touch_seconds(size_t bytes, page_size_t pages) {
  auto* p = static_cast<uint8_t*>(map_pages(bytes, pages));
  if (!p) return -1;
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  const auto start = std::chrono::steady_clock::now();
  for (size_t i = 0; i < bytes; i += page) p[i] = 1;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  unmap_pages(p, bytes);
  return seconds;
}

}  // namespace

const char* page_size_name(page_size_t pages) {
  return pages == page_size_t::huge ? "huge" : "base";
}

void* map_pages(size_t bytes, page_size_t pages) {
  const size_t length = whole_pages(bytes);
  // Base pages on a huge-page boundary too, from a huge page up: a first-touch chooser may
  // advise parts of the mapping to huge pages (first_touch.h).
  void* p = nullptr;
  if (pages == page_size_t::huge || length >= huge_page_bytes) {
    p = map_aligned(length);
  } else {
    p = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) p = nullptr;
  }
  if (p) advise_pages(p, length, pages);
  return p;
}

void advise_pages(void* memory, size_t bytes, page_size_t pages) {
  // Advice only: where the kernel's transparent huge pages are "never", or none is free, base
  // pages back it; and base pages are asked for even where the kernel would give huge unasked.
  (void)madvise(memory, bytes, pages == page_size_t::huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
}

void unmap_pages(void* memory, size_t bytes) {
  if (memory) munmap(memory, whole_pages(bytes));
}

page_probe_t probe_page_sizes(size_t bytes, int rounds) {
  const size_t whole = std::max(huge_page_bytes, bytes / huge_page_bytes * huge_page_bytes);
  // One round of each size first, not counted: memory a hypervisor has handed back to its host
  // costs the same to back again per byte on either page size, and whichever size came first
  // would pay it alone (a huge page 6 s/GiB instead of 0.08 on the Zen 5 VM just after another
  // run freed its memory), so the counted rounds compare what the page sizes themselves cost.
  // Then base pages at their best round, huge ones at their worst: huge pages win only where
  // even their worst round does. A round that could not map its memory leaves base pages.
  bool mapped = first_touch_seconds(whole, page_size_t::base) >= 0 &&
                first_touch_seconds(whole, page_size_t::huge) >= 0;
  double base = 1e30, huge = 0;
  for (int r = 0; r < std::max(rounds, 1); r++) {
    const double b = first_touch_seconds(whole, page_size_t::base);
    const double h = first_touch_seconds(whole, page_size_t::huge);
    mapped = mapped && b >= 0 && h >= 0;
    base = std::min(base, std::max(b, 0.0));
    huge = std::max(huge, h);
  }
  const double gib = double(whole) / double(size_t(1) << 30);
  page_probe_t probe;
  probe.base_seconds_per_gib = base / gib;
  probe.huge_seconds_per_gib = huge / gib;
  probe.cheaper = mapped && huge <= 0.9 * base ? page_size_t::huge : page_size_t::base;
  return probe;
}

}  // namespace pentago
