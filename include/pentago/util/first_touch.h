// Fresh memory made resident a chunk at a time on whichever page size has cost less to touch
// first so far (docs/design.md, "Pages"). probe_page_sizes, at the start of a run, touches a few
// MiB, which the system hands out from pages freed a moment ago; past those, on a VM whose host
// takes free memory back, each page size costs what the host charges to back it afresh, which
// can rank the two sizes the other way (docs/performance.md, "The first touch of fresh
// memory"). So where --huge-pages is auto the arena and the partial pool hand each chunk to
// the chooser before its first write: it advises the chunk to one size, faults it in, and
// times that on the thread's CPU clock; a chunk that was wholly fresh updates its size's
// running cost (seconds per GiB, starting from the probe's figures). Huge pages are taken while
// they cost at most huge_bias times base pages (a huge page is also one TLB entry for 512), and
// now and then a chunk goes to the other size so that its cost stays current.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "pentago/util/huge_pages.h"

namespace pentago {

// What a chooser made resident so far, by page size (index: page_size_t).
struct first_touch_stats_t {
  uint64_t bytes[2] = {};        // made resident
  uint64_t fresh_bytes[2] = {};  // of which wholly fresh chunks, timed
  double seconds[2] = {};        // CPU seconds faulting in the fresh chunks
  uint64_t chunks = 0;
};

// "pages chosen by first touch on this rank: 16.00 MiB huge at 1.01 s/GiB, 215.98 MiB base
// at 0.37 s/GiB" (the cost over the chunks that were wholly fresh; "-" where none was).
std::string format_first_touch(const first_touch_stats_t& stats);

class first_touch_chooser_t {
 public:
  static constexpr size_t chunk_bytes = size_t(16) << 20;
  static constexpr double huge_bias = 1.5;
  // Chunks between two on the other size: explore_every, or explore_rarely while the other
  // costs more than twice as much.
  static constexpr int explore_every = 8, explore_rarely = 32;

  // Advises [at, at + bytes) to `pages` and faults it in; returns the CPU seconds that took
  // where none of it was resident before, nothing otherwise (its cost says nothing then).
  using toucher_t =
      std::function<std::optional<double>(uint8_t* at, size_t bytes, page_size_t pages)>;
  // `touch` empty: the real one (madvise, MADV_POPULATE_WRITE, the thread's CPU clock).
  explicit first_touch_chooser_t(const page_probe_t& start, toucher_t touch = {});

  // Makes [at, at + bytes) resident in pieces of chunk_bytes from `at` (from a huge-page
  // boundary they hold whole huge pages), each on the size chosen for it; pieces under a huge
  // page are not timed. Resident pages keep their bytes. Thread safe.
  void make_resident(uint8_t* at, size_t bytes);

  page_size_t preferred() const;  // the size the next chunk takes unless it explores
  first_touch_stats_t stats() const;

 private:
  page_size_t cheaper() const;  // by the costs so far, with huge_bias (mutex held)
  page_size_t choose();         // the next chunk's: cheaper, or the other to explore (mutex held)

  toucher_t touch_;
  mutable std::mutex mutex_;
  double cost_[2];          // seconds per GiB, by page_size_t
  bool measured_[2] = {};   // a fresh chunk of that size was timed (the probe's figure replaced)
  int since_explored_ = 0;  // chunks since the last on the other size
  first_touch_stats_t stats_;
};

}  // namespace pentago
