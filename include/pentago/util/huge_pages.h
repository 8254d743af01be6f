// Anonymous memory on base or transparent huge pages: the block arena, the partial-block pool
// and the MPI line buffers. A 2 MiB page is one fault and one TLB entry where base pages take
// 512 of each, but a huge page is cleared whole when first touched, and on some machines that
// costs more than the faults it saves (docs/performance.md: under one hypervisor huge pages
// nearly halve the engine's CPU, on another they add system time). probe_page_sizes measures
// which first touch is cheaper on this machine.
#pragma once
#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace pentago {

constexpr size_t huge_page_bytes = size_t(2) << 20;

enum class page_size_t { base, huge };
const char* page_size_name(page_size_t pages);  // "base", "huge"

// `bytes` (rounded up to whole base pages) of zeroed private memory, starting on a huge-page
// boundary where it is a huge page or more, or huge. Huge: huge pages asked for (madvise
// advice: where the kernel's transparent huge pages are "never", or none is free, base pages
// back it). Base: huge pages declined, even where the kernel would give them unasked (advice
// that first_touch.h may change per chunk). Nullptr on failure. Release it with unmap_pages
// and the same size.
void* map_pages(size_t bytes, page_size_t pages);
void unmap_pages(void* memory, size_t bytes);
// Advises mapped, page-aligned memory to `pages` from its next fault on (map_pages' advice,
// for part of a mapping).
void advise_pages(void* memory, size_t bytes, page_size_t pages);

// A fixed number of trivially copyable values on `pages`, each set to `fill`: a large table
// read at random (a lookup per block), where base pages would cost a TLB miss per read.
template <class T>
requires std::is_trivially_copyable_v<T>
class page_array_t {
 public:
  page_array_t() = default;
  page_array_t(size_t size, page_size_t pages, const T& fill)
      : data_(static_cast<T*>(map_pages(size * sizeof(T), pages))), size_(size) {
    if (!data_ && size) throw std::bad_alloc();
    for (size_t i = 0; i < size; i++) data_[i] = fill;
  }
  page_array_t(page_array_t&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  page_array_t& operator=(page_array_t&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    return *this;
  }
  ~page_array_t() { unmap_pages(data_, size_ * sizeof(T)); }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  size_t size() const { return size_; }

 private:
  T* data_ = nullptr;
  size_t size_ = 0;
};

// The first touch of fresh memory on each page size, in seconds per GiB, over `bytes` of each
// in alternating rounds after one uncounted round of each (base pages at their best counted
// round, huge ones at their worst), and the
// cheaper size: huge only where it costs at most nine tenths of base (base where either size
// could not be mapped).
struct page_probe_t {
  double base_seconds_per_gib = 0, huge_seconds_per_gib = 0;
  page_size_t cheaper = page_size_t::base;
};
page_probe_t probe_page_sizes(size_t bytes = size_t(8) << 20, int rounds = 2);

}  // namespace pentago
