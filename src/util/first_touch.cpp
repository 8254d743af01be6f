// The chooser of page sizes by measured first-touch cost (see first_touch.h).
#include "pentago/util/first_touch.h"

#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "pentago/util/format.h"

namespace pentago {
namespace {

constexpr int base_index = int(page_size_t::base), huge_index = int(page_size_t::huge);

double thread_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

// Whether no page of [at, at + bytes) (page-aligned) is resident.
bool wholly_fresh(uint8_t* at, size_t bytes, size_t page) {
  std::vector<unsigned char> resident((bytes + page - 1) / page);
  if (mincore(at, bytes, resident.data())) return false;
  return std::none_of(resident.begin(), resident.end(), [](unsigned char r) { return r & 1; });
}

std::optional<double> advise_and_touch(uint8_t* at, size_t bytes, page_size_t pages) {
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  const bool fresh = wholly_fresh(at, bytes, page);
  advise_pages(at, bytes, pages);
  const double start = thread_seconds();
  if (madvise(at, bytes, MADV_POPULATE_WRITE) && fresh) {
    // A kernel before MADV_POPULATE_WRITE (Linux 5.14): fresh pages read as zeros, so
    // writing a zero into each faults it in and changes nothing. Pages that may hold data are
    // left to fault in at their first write.
    for (size_t i = 0; i < bytes; i += page) at[i] = 0;
  }
  const double seconds = thread_seconds() - start;
  if (!fresh) return std::nullopt;
  return seconds;
}

}  // namespace

std::string format_first_touch(const first_touch_stats_t& stats) {
  std::string line = "pages chosen by first touch on this rank:";
  for (const page_size_t pages : {page_size_t::huge, page_size_t::base}) {
    const int i = int(pages);
    char cost[32] = "-";
    if (stats.fresh_bytes[i])
      std::snprintf(cost, sizeof cost, "%.2f s/GiB",
                    stats.seconds[i] * double(size_t(1) << 30) / double(stats.fresh_bytes[i]));
    line += std::string(pages == page_size_t::huge ? " " : ", ") +
            format_bytes(double(stats.bytes[i])) + " " + page_size_name(pages) + " at " + cost;
  }
  return line;
}

first_touch_chooser_t::first_touch_chooser_t(const page_probe_t& start, toucher_t touch)
    : touch_(touch ? std::move(touch) : toucher_t(advise_and_touch)) {
  cost_[base_index] = start.base_seconds_per_gib;
  cost_[huge_index] = start.huge_seconds_per_gib;
}

page_size_t first_touch_chooser_t::preferred() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return cheaper();
}

page_size_t first_touch_chooser_t::cheaper() const {
  return cost_[huge_index] <= huge_bias * cost_[base_index] ? page_size_t::huge : page_size_t::base;
}

page_size_t first_touch_chooser_t::choose() {
  stats_.chunks++;
  const page_size_t better = cheaper();
  const page_size_t other = better == page_size_t::huge ? page_size_t::base : page_size_t::huge;
  const int every = cost_[int(other)] > 2 * cost_[int(better)] ? explore_rarely : explore_every;
  if (++since_explored_ < every) return better;
  since_explored_ = 0;
  return other;
}

void first_touch_chooser_t::make_resident(uint8_t* at, size_t bytes) {
  const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
  uintptr_t begin = uintptr_t(at) / page * page;
  const uintptr_t end = (uintptr_t(at) + bytes + page - 1) / page * page;
  const std::lock_guard<std::mutex> lock(mutex_);
  while (begin < end) {
    const uintptr_t stop = std::min(end, begin + chunk_bytes);
    const page_size_t pages = choose();
    const int i = int(pages);
    const size_t length = size_t(stop - begin);
    const std::optional<double> seconds = touch_(reinterpret_cast<uint8_t*>(begin), length, pages);
    stats_.bytes[i] += length;
    if (seconds && length >= huge_page_bytes) {
      // Seconds per GiB, half from this chunk and half from those before; the first timed
      // chunk replaces the probe's figure, which saw pages freed a moment ago.
      const double cost = *seconds * double(size_t(1) << 30) / double(length);
      cost_[i] = measured_[i] ? 0.5 * (cost_[i] + cost) : cost;
      measured_[i] = true;
      stats_.fresh_bytes[i] += length;
      stats_.seconds[i] += *seconds;
    }
    begin = stop;
  }
}

first_touch_stats_t first_touch_chooser_t::stats() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

}  // namespace pentago
