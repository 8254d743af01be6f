// Compacting store: fixed mmap arena, bump allocation, compacting collection and freezing.
#include "pentago/end/compacting_store.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

#include "pentago/util/atomic_max.h"
#include "pentago/util/element_lock.h"
#include "pentago/util/error.h"
#include "pentago/util/huge_pages.h"

namespace pentago {

// One array: where its bytes live, how many, and its lock. offset and size are guarded by the
// lock together with the shared heap lock, or by the exclusive heap lock alone.
struct compacting_store_t::array_entry_t {
  uint64_t offset = 0;
  uint32_t size = 0;
  element_lock_t lock;
};

// One group slot. Changed only under the exclusive heap lock.
struct compacting_store_t::group_table_t {
  std::unique_ptr<array_entry_t[]> entries;
  size_t arrays = 0;
  uint32_t generation = 0;  // 0 while the slot is unused
  bool frozen = false;
  bool movable = false;  // a frozen group with released arrays: collections compact it too
  size_t frozen_begin = 0, frozen_end = 0;  // where a frozen group's arrays lie
};

namespace {

void check_pthread(int rc, const char* what) {
  if (rc)
    throw pentago_error_t(std::string("compacting store: ") + what + ": " + std::strerror(rc));
}

// Holds the heap lock shared (array accesses) or exclusively (anything that moves arrays or
// changes group tables) for a scope.
template <bool exclusive>
class heap_guard_t {
 public:
  explicit heap_guard_t(pthread_rwlock_t& lock) : lock_(lock) {
    check_pthread(exclusive ? pthread_rwlock_wrlock(&lock) : pthread_rwlock_rdlock(&lock),
                  "heap lock");
  }
  ~heap_guard_t() { pthread_rwlock_unlock(&lock_); }
  heap_guard_t(const heap_guard_t&) = delete;
  heap_guard_t& operator=(const heap_guard_t&) = delete;

 private:
  pthread_rwlock_t& lock_;
};
using shared_guard_t = heap_guard_t<false>;
using exclusive_guard_t = heap_guard_t<true>;

}  // namespace

compacting_store_t::compacting_store_t(size_t heap_size, double min_free_fraction,
                                       page_size_t pages)
    : heap_size_(align(heap_size)),
      min_free_fraction_(min_free_fraction),
      groups_(new group_table_t[max_groups]),
      ceiling_(heap_size_),
      limit_(heap_size_) {
  static_assert(sizeof(array_entry_t) == bytes_per_array);
  if (!heap_size) throw pentago_error_t("compacting store: heap size must be positive");
  if (!(min_free_fraction >= 0 && min_free_fraction < 1))
    throw pentago_error_t("compacting store: min_free_fraction must be in [0, 1), got " +
                          std::to_string(min_free_fraction));
  void* p = map_pages(heap_size_, pages);
  if (!p)
    throw pentago_error_t("compacting store: cannot map " + std::to_string(heap_size_) +
                          " bytes: " + std::strerror(errno));
  heap_ = static_cast<uint8_t*>(p);
  pthread_rwlockattr_t attr;
  pthread_rwlockattr_init(&attr);
  // Writers first: a collection must not starve behind a steady stream of array accesses.
  pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
  const int rc = pthread_rwlock_init(&heap_lock_, &attr);
  pthread_rwlockattr_destroy(&attr);
  if (rc) {
    unmap_pages(heap_, heap_size_);
    check_pthread(rc, "rwlock init");
  }
}

compacting_store_t::~compacting_store_t() {
  pthread_rwlock_destroy(&heap_lock_);
  unmap_pages(heap_, heap_size_);
}

void compacting_store_t::lock_shared() const {
  check_pthread(pthread_rwlock_rdlock(&heap_lock_), "heap lock");
}
void compacting_store_t::unlock_shared() const { pthread_rwlock_unlock(&heap_lock_); }

void compacting_store_t::lock_entry(array_entry_t& entry) { entry.lock.lock(); }

void compacting_store_t::unlock_entry(array_entry_t& entry) { entry.lock.unlock(); }

compacting_store_t::group_table_t& compacting_store_t::checked_group(group_id_t group,
                                                                     const char* op) const {
  if (group.slot < 0 || group.slot >= int(max_groups) || !group.generation ||
      groups_[group.slot].generation != group.generation)
    throw pentago_error_t(std::string("compacting store: ") + op +
                          " on an unknown or destroyed group");
  return groups_[group.slot];
}

compacting_store_t::array_entry_t& compacting_store_t::checked_entry(group_id_t group, size_t index,
                                                                     const char* op) const {
  group_table_t& table = checked_group(group, op);
  if (index >= table.arrays)
    throw pentago_error_t(std::string("compacting store: ") + op + ": array index " +
                          std::to_string(index) + " out of range [0, " +
                          std::to_string(table.arrays) + ")");
  return table.entries[index];
}

void compacting_store_t::add_live(size_t added, size_t removed) {
  if (added >= removed) {
    const size_t now =
        live_bytes_.fetch_add(added - removed, std::memory_order_relaxed) + (added - removed);
    raise_to(peak_live_bytes_, now);
  } else {
    live_bytes_.fetch_sub(removed - added, std::memory_order_relaxed);
  }
}

group_id_t compacting_store_t::create_group(size_t arrays) {
  const exclusive_guard_t guard(heap_lock_);
  for (size_t slot = 0; slot < max_groups; slot++) {
    group_table_t& table = groups_[slot];
    if (table.generation) continue;
    table.entries.reset(new array_entry_t[arrays]);
    table.arrays = arrays;
    table.frozen = false;
    table.frozen_begin = table.frozen_end = 0;
    table.generation = next_generation_++;
    if (!next_generation_) next_generation_ = 1;
    return group_id_t{int(slot), table.generation};
  }
  throw pentago_error_t("compacting store: at most " + std::to_string(max_groups) +
                        " groups may exist at once");
}

void compacting_store_t::destroy_group(group_id_t group) {
  const exclusive_guard_t guard(heap_lock_);
  group_table_t& table = checked_group(group, "destroy_group");
  size_t bytes = 0;
  for (size_t i = 0; i < table.arrays; i++) bytes += align(table.entries[i].size);
  add_live(0, bytes);
  table = group_table_t();
  // Frozen data now ends at the top of the remaining frozen groups.
  frozen_end_ = 0;
  for (size_t slot = 0; slot < max_groups; slot++)
    if (groups_[slot].generation && groups_[slot].frozen)
      frozen_end_ = std::max(frozen_end_, groups_[slot].frozen_end);
  // With nothing live above the frozen data, the garbage is dropped without moving anything.
  bool unfrozen_data = false;
  for (size_t slot = 0; slot < max_groups; slot++) {
    const group_table_t& other = groups_[slot];
    if (!other.generation || other.frozen) continue;
    for (size_t i = 0; i < other.arrays && !unfrozen_data; i++)
      unfrozen_data = other.entries[i].size != 0;
  }
  if (unfrozen_data) return;
  heap_next_.store(frozen_end_, std::memory_order_relaxed);
  // The garbage counted at the last collection lay above the frozen data and is gone with it.
  const size_t live = live_bytes_.load(std::memory_order_relaxed);
  garbage_after_collection_.store(frozen_end_ > live ? frozen_end_ - live : 0,
                                  std::memory_order_relaxed);
}

size_t compacting_store_t::arrays(group_id_t group) const {
  const shared_guard_t guard(heap_lock_);
  return checked_group(group, "arrays").arrays;
}

bool compacting_store_t::frozen(group_id_t group) const {
  const shared_guard_t guard(heap_lock_);
  return checked_group(group, "frozen").frozen;
}

bool compacting_store_t::fresh_pages_worth_sparing(size_t next) const {
  // Garbage that arrived since the last collection (released inputs, replaced arrays), at
  // least an eighth of the bytes below the bump pointer: a hole-filling collection copies
  // about as many bytes as it frees, within pages already resident, where the write would
  // otherwise fault fresh ones in (a page fault clears the page, and on some VMs costs far
  // more); the eighth bounds the collections to a few per pass over the heap.
  const size_t live = live_bytes_.load(std::memory_order_relaxed);
  const size_t garbage = next > live ? next - live : 0;
  const size_t left = garbage_after_collection_.load(std::memory_order_relaxed);
  return garbage > left && garbage - left >= std::max(next / 8, size_t(16) << 20);
}

bool compacting_store_t::try_bump(size_t n, size_t& offset, bool spare_fresh_pages) {
  size_t next = heap_next_.load(std::memory_order_relaxed);
  do {
    if (n > limit_.load(std::memory_order_relaxed) - next) return false;
    if (spare_fresh_pages &&
        next + n > std::max(bump_high_water_.load(std::memory_order_relaxed),
                            resident_bytes_.load(std::memory_order_relaxed)) &&
        fresh_pages_worth_sparing(next))
      return false;
  } while (!heap_next_.compare_exchange_weak(next, next + n, std::memory_order_relaxed));
  offset = next;
  allocated_bytes_.fetch_add(n, std::memory_order_relaxed);
  raise_to(bump_high_water_, next + n);
  return true;
}

void compacting_store_t::make_resident_below(size_t end) {
  if (!first_touch_ || end <= resident_bytes_.load(std::memory_order_acquire)) return;
  const std::lock_guard<std::mutex> lock(resident_mutex_);
  const size_t from = resident_bytes_.load(std::memory_order_relaxed);
  if (end <= from) return;
  // Whole chunks where the limit allows: their pages are the heap's next ones to be written.
  const size_t chunk = first_touch_chooser_t::chunk_bytes;
  const size_t to = std::max(
      end, std::min(limit_.load(std::memory_order_relaxed), (end + chunk - 1) / chunk * chunk));
  first_touch_->make_resident(heap_ + from, to - from);
  resident_bytes_.store(to, std::memory_order_release);
}

void compacting_store_t::set(group_id_t group, size_t index, const void* bytes, size_t size) {
  set_filled(group, index, size, [&](uint8_t* array) {
    if (size) std::memcpy(array, bytes, size);
  });
}

void compacting_store_t::set_filled(group_id_t group, size_t index, size_t size,
                                    const array_filler_t& fill) {
  if (size > max_array_size)
    throw pentago_error_t("compacting store: array of " + std::to_string(size) +
                          " bytes exceeds the " + std::to_string(max_array_size) + " byte limit");
  const size_t need = align(size);
  {
    const shared_guard_t guard(heap_lock_);
    array_entry_t& entry = checked_entry(group, index, "set");
    if (groups_[group.slot].frozen)
      throw pentago_error_t("compacting store: set on a frozen group");
    lock_entry(entry);
    const size_t have = align(entry.size);
    size_t offset = entry.offset;
    const bool fits = need <= have || try_bump(need, offset, true);
    if (fits) {
      make_resident_below(offset + need);
      fill(heap_ + offset);
      entry.offset = offset;
      entry.size = uint32_t(size);
      unlock_entry(entry);
      add_live(need, have);
      return;
    }
    unlock_entry(entry);
  }
  set_exclusive(group, index, size, fill);
}

void compacting_store_t::set_exclusive(group_id_t group, size_t index, size_t size,
                                       const array_filler_t& fill) {
  const exclusive_guard_t guard(heap_lock_);
  // The group or array may have changed while no lock was held: check everything again.
  array_entry_t& entry = checked_entry(group, index, "set");
  if (groups_[group.slot].frozen) throw pentago_error_t("compacting store: set on a frozen group");
  const size_t need = align(size);
  size_t have = align(entry.size);
  size_t offset = entry.offset;
  if (need > have && !try_bump(need, offset, true)) {
    // Detach the array so the collection reclaims its old bytes too.
    entry.size = 0;
    add_live(0, have);
    have = 0;
    collect_exclusive(false, need);
    const size_t next = heap_next_.load(std::memory_order_relaxed);
    const size_t limit = limit_.load(std::memory_order_relaxed);
    // A lowered limit gives way before the heap refuses the write.
    if (limit < ceiling_ && lacks_room(limit, next, need)) {
      limit_.store(ceiling_, std::memory_order_relaxed);
      limit_raises_.fetch_add(1, std::memory_order_relaxed);
    }
    // Under lent pages: take back what the borrower has not used yet, at least a 64th of the
    // heap at a time so that writes do not ask once each.
    if (ceiling_ < heap_size_ && reclaimer_ && lacks_room(ceiling_, next, need)) {
      const size_t page = size_t(sysconf(_SC_PAGESIZE));
      const size_t want = need + size_t(min_free_fraction_ * double(heap_size_)) + heap_size_ / 64;
      const size_t ask = std::min(heap_size_ - ceiling_, (want + page - 1) / page * page);
      const size_t given = std::min(ask, reclaimer_(heap_ + ceiling_, ask));
      if (given) {
        ceiling_ += given;
        limit_.store(ceiling_, std::memory_order_relaxed);
        limit_raises_.fetch_add(1, std::memory_order_relaxed);
      }
    }
    const size_t free = ceiling_ - next;
    const std::string counts = "compacting store full: need " + std::to_string(need) + " bytes, " +
                               std::to_string(free) + " free of " + std::to_string(ceiling_);
    if (need > free) throw pentago_error_t(counts);
    if (double(free - need) < min_free_fraction_ * double(ceiling_))
      throw pentago_error_t(counts +
                            " after a collection, leaving less than the minimum free fraction " +
                            std::to_string(min_free_fraction_));
    PENTAGO_CHECK(try_bump(need, offset, false), "bump after collection");
  }
  make_resident_below(offset + need);
  fill(heap_ + offset);
  entry.offset = offset;
  entry.size = uint32_t(size);
  add_live(need, have);
}

size_t compacting_store_t::size(group_id_t group, size_t index) const {
  const shared_guard_t guard(heap_lock_);
  array_entry_t& entry = checked_entry(group, index, "size");
  lock_entry(entry);
  const size_t size = entry.size;
  unlock_entry(entry);
  return size;
}

compacting_store_t::reader_t compacting_store_t::read(group_id_t group, size_t index) const {
  lock_shared();
  try {
    array_entry_t& entry = checked_entry(group, index, "read");
    lock_entry(entry);
    return reader_t(this, &entry, heap_ + entry.offset, entry.size);
  } catch (...) {
    unlock_shared();
    throw;
  }
}

compacting_store_t::reader_t::reader_t(reader_t&& other) noexcept
    : store_(std::exchange(other.store_, nullptr)),
      entry_(other.entry_),
      data_(other.data_),
      size_(other.size_) {}

compacting_store_t::reader_t::~reader_t() {
  if (!store_) return;
  unlock_entry(*entry_);
  store_->unlock_shared();
}

void compacting_store_t::get(group_id_t group, size_t index, std::vector<uint8_t>& out) const {
  const reader_t r = read(group, index);
  out.assign(r.data(), r.data() + r.size());
}

void compacting_store_t::freeze(group_id_t group) {
  const exclusive_guard_t guard(heap_lock_);
  group_table_t& table = checked_group(group, "freeze");
  if (table.frozen) throw pentago_error_t("compacting store: group is already frozen");
  bool others_hold_data = false;
  for (size_t slot = 0; slot < max_groups; slot++) {
    const group_table_t& other = groups_[slot];
    if (&other == &table || !other.generation) continue;
    bool holds_data = false;
    for (size_t i = 0; i < other.arrays && !holds_data; i++) holds_data = other.entries[i].size;
    others_hold_data |= holds_data;
    if (holds_data && !other.frozen)
      throw pentago_error_t(
          "compacting store: cannot freeze a group while another unfrozen group holds data");
  }
  // Alone in the heap, the group may keep holes that no array fills (hole filling moves far
  // less than a slide); beside other frozen data it is packed right above it.
  collect_exclusive(others_hold_data, 0);
  table.frozen = true;
  table.frozen_begin = frozen_end_;
  table.frozen_end = heap_next_.load(std::memory_order_relaxed);
  frozen_end_ = table.frozen_end;
}

std::span<const uint8_t> compacting_store_t::frozen_data(group_id_t group, size_t index) const {
  // No locks: a frozen group's table and bytes never change until it is destroyed or one of
  // its arrays is released.
  const array_entry_t& entry = checked_entry(group, index, "frozen_data");
  if (!groups_[group.slot].frozen)
    throw pentago_error_t("compacting store: frozen_data on an unfrozen group");
  if (groups_[group.slot].movable)
    throw pentago_error_t("compacting store: frozen_data on a group with released arrays");
  return {heap_ + entry.offset, entry.size};
}

void compacting_store_t::release(group_id_t group, size_t index) {
  {
    const shared_guard_t guard(heap_lock_);
    group_table_t& table = checked_group(group, "release");
    if (table.frozen && !table.movable) {
      // First release of a frozen group: from now on collections may move its arrays.
    } else {
      array_entry_t& entry = checked_entry(group, index, "release");
      lock_entry(entry);
      const size_t have = align(entry.size);
      entry.size = 0;
      unlock_entry(entry);
      add_live(0, have);
      return;
    }
  }
  const exclusive_guard_t guard(heap_lock_);
  group_table_t& table = checked_group(group, "release");
  table.movable = true;
  array_entry_t& entry = checked_entry(group, index, "release");
  add_live(0, align(entry.size));
  entry.size = 0;
}

void compacting_store_t::collect() {
  const exclusive_guard_t guard(heap_lock_);
  collect_exclusive(true, 0);
}

namespace {

// The holes between the live arrays of a collection, with a max tree over their sizes: the
// lowest hole that holds n bytes is found, and taken from, in O(log holes).
class hole_tree_t {
 public:
  struct hole_t {
    size_t start, size;
  };
  explicit hole_tree_t(std::vector<hole_t> holes) : holes_(std::move(holes)) {
    while (leaves_ < holes_.size()) leaves_ *= 2;
    max_.assign(2 * leaves_, 0);
    for (size_t i = 0; i < holes_.size(); i++) max_[leaves_ + i] = holes_[i].size;
    for (size_t k = leaves_ - 1; k >= 1; k--) max_[k] = std::max(max_[2 * k], max_[2 * k + 1]);
  }
  // Where n bytes go in the lowest hole that holds them, if it starts below `below`; they are
  // taken from the hole. SIZE_MAX if there is no such hole.
  size_t take_below(size_t n, size_t below) {
    if (max_[1] < n) return SIZE_MAX;
    size_t k = 1;
    while (k < leaves_) k = max_[2 * k] >= n ? 2 * k : 2 * k + 1;
    hole_t& hole = holes_[k - leaves_];
    if (hole.start >= below) return SIZE_MAX;
    const size_t at = hole.start;
    hole.start += n;
    hole.size -= n;
    for (max_[k] = hole.size, k /= 2; k >= 1; k /= 2)
      max_[k] = std::max(max_[2 * k], max_[2 * k + 1]);
    return at;
  }

 private:
  std::vector<hole_t> holes_;
  size_t leaves_ = 1;
  std::vector<size_t> max_;
};

}  // namespace

void compacting_store_t::collect_exclusive(bool full, size_t need) {
  // The arrays that may move: those of unfrozen groups, and of frozen groups with released
  // arrays when no fixed frozen group lies above them. They all lie above fixed_end.
  size_t fixed_end = 0;  // frozen data that does not move ends here
  for (size_t slot = 0; slot < max_groups; slot++) {
    const group_table_t& table = groups_[slot];
    if (table.generation && table.frozen && !table.movable)
      fixed_end = std::max(fixed_end, table.frozen_end);
  }
  std::vector<std::pair<uint64_t, array_entry_t*>> live;
  std::vector<group_table_t*> moving_frozen;
  size_t live_total = 0;
  for (size_t slot = 0; slot < max_groups; slot++) {
    group_table_t& table = groups_[slot];
    if (!table.generation) continue;
    if (table.frozen && !(table.movable && table.frozen_begin >= fixed_end)) continue;
    if (table.frozen) moving_frozen.push_back(&table);
    for (size_t i = 0; i < table.arrays; i++)
      if (table.entries[i].size) {
        live.emplace_back(table.entries[i].offset, &table.entries[i]);
        live_total += align(table.entries[i].size);
      }
  }
  std::sort(live.begin(), live.end());
  const size_t packed_top = fixed_end + live_total;  // the top after a full slide
  uint64_t moved = 0;
  size_t top = full ? SIZE_MAX : fill_holes(live, fixed_end, packed_top, need, moved);
  if (top == SIZE_MAX) {
    // Slide every array down, in address order, to just above the data that stays. Each target
    // is at or below its source, so memmove never overwrites an unmoved array.
    top = fixed_end;
    for (const auto& [offset, entry] : live) {
      PENTAGO_CHECK(offset >= top, "array below the compaction target");
      if (offset != top) {
        std::memmove(heap_ + top, heap_ + offset, entry->size);
        entry->offset = top;
        moved += entry->size;
      }
      top += align(entry->size);
    }
  }
  // Find where the moving frozen groups lie now, and where frozen data ends.
  for (group_table_t* table : moving_frozen) {
    size_t begin = SIZE_MAX, end = 0;
    for (size_t i = 0; i < table->arrays; i++)
      if (table->entries[i].size) {
        begin = std::min<size_t>(begin, table->entries[i].offset);
        end = std::max<size_t>(end, table->entries[i].offset + align(table->entries[i].size));
      }
    if (begin == SIZE_MAX) begin = end = fixed_end;
    table->frozen_begin = begin;
    table->frozen_end = end;
  }
  frozen_end_ = 0;
  for (size_t slot = 0; slot < max_groups; slot++)
    if (groups_[slot].generation && groups_[slot].frozen)
      frozen_end_ = std::max(frozen_end_, groups_[slot].frozen_end);
  heap_next_.store(top, std::memory_order_relaxed);
  const size_t live_now = live_bytes_.load(std::memory_order_relaxed);
  garbage_after_collection_.store(top > live_now ? top - live_now : 0, std::memory_order_relaxed);
  collections_.fetch_add(1, std::memory_order_relaxed);
  moved_bytes_.fetch_add(moved, std::memory_order_relaxed);
  last_collection_free_ratio_ = double(heap_size_ - top) / double(heap_size_);
}

size_t compacting_store_t::fill_holes(const std::vector<std::pair<uint64_t, array_entry_t*>>& live,
                                      size_t base, size_t packed_top, size_t need,
                                      uint64_t& moved) {
  std::vector<hole_tree_t::hole_t> holes;
  size_t cursor = base;
  for (const auto& [offset, entry] : live) {
    PENTAGO_CHECK(offset >= cursor, "arrays overlap in the heap");
    if (offset > cursor) holes.push_back({cursor, offset - cursor});
    cursor = offset + align(entry->size);
  }
  if (holes.empty()) return SIZE_MAX;
  // Plan first: the arrays from the top down go to the lowest hole below them that holds
  // them, until one finds none.
  hole_tree_t tree(std::move(holes));
  std::vector<size_t> target(live.size());
  size_t stay = live.size();  // arrays [0, stay) stay where they are
  while (stay > 0) {
    const auto& [offset, entry] = live[stay - 1];
    const size_t at = tree.take_below(align(entry->size), offset);
    if (at == SIZE_MAX) break;
    target[--stay] = at;
  }
  // The top: the end of the highest array that stays, or of one moved into a hole above it.
  size_t top = stay ? live[stay - 1].first + align(live[stay - 1].second->size) : base;
  for (size_t i = stay; i < live.size(); i++)
    top = std::max(top, target[i] + align(live[i].second->size));
  // Holes too small for the arrays above them stay as garbage: the full slide is worth its
  // larger move when they would take more than a quarter of the room it leaves under the
  // limit, or leave too little for the write that asked (the limit would have to rise).
  const size_t limit = limit_.load(std::memory_order_relaxed);
  const size_t room = std::max(limit, packed_top) - packed_top;
  if (top - packed_top > room / 4 || lacks_room(limit, top, need)) return SIZE_MAX;
  // Holes and arrays never overlap, so each copy reads and writes disjoint bytes.
  for (size_t i = stay; i < live.size(); i++) {
    array_entry_t* entry = live[i].second;
    std::memcpy(heap_ + target[i], heap_ + entry->offset, entry->size);
    entry->offset = target[i];
    moved += entry->size;
  }
  return top;
}

void compacting_store_t::set_limit(size_t bytes) {
  const exclusive_guard_t guard(heap_lock_);
  const size_t limit = limit_at(bytes, ceiling_);
  limit_.store(limit, std::memory_order_relaxed);
  // The chooser may have made pages resident past the bump pointer's highest point.
  const size_t touched = std::max(bump_high_water_.load(std::memory_order_relaxed),
                                  resident_bytes_.load(std::memory_order_relaxed));
  if (touched <= limit) return;
  // Nothing lives above the bump pointer: give those pages back (they read as zeros if used
  // again), so the resident arena is at most the limit.
  if (madvise(heap_ + limit, ceiling_ - limit, MADV_DONTNEED))
    throw pentago_error_t(std::string("compacting store: cannot release pages: ") +
                          std::strerror(errno));
  bump_high_water_.store(limit, std::memory_order_relaxed);
  if (resident_bytes_.load(std::memory_order_relaxed) > limit)
    resident_bytes_.store(limit, std::memory_order_relaxed);
}

bool compacting_store_t::lacks_room(size_t top, size_t next, size_t need) const {
  return need > top - next || double(top - next - need) < min_free_fraction_ * double(top);
}

size_t compacting_store_t::limit_at(size_t bytes, size_t cap) const {
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  const size_t next = heap_next_.load(std::memory_order_relaxed);
  return std::min(cap, (std::max(bytes, next) + page - 1) / page * page);
}

std::span<uint8_t> compacting_store_t::lend_top(size_t bytes) {
  const exclusive_guard_t guard(heap_lock_);
  const size_t before = limit_.load(std::memory_order_relaxed);
  // The bump pointer may lie above `bytes`, but never above the old limit.
  const size_t limit = limit_at(bytes, before);
  if (limit >= before) return {};
  limit_.store(limit, std::memory_order_relaxed);
  ceiling_ = limit;
  // The lent pages are the borrower's now: the heap has touched nothing above its limit.
  if (bump_high_water_.load(std::memory_order_relaxed) > limit)
    bump_high_water_.store(limit, std::memory_order_relaxed);
  if (resident_bytes_.load(std::memory_order_relaxed) > limit)
    resident_bytes_.store(limit, std::memory_order_relaxed);
  return {heap_ + limit, before - limit};
}

void compacting_store_t::reclaim_lent() {
  const exclusive_guard_t guard(heap_lock_);
  ceiling_ = heap_size_;
}

compacting_store_stats_t compacting_store_t::stats() const {
  const shared_guard_t guard(heap_lock_);
  compacting_store_stats_t s;
  s.heap_size = heap_size_;
  s.live_bytes = live_bytes_.load(std::memory_order_relaxed);
  s.peak_live_bytes = peak_live_bytes_.load(std::memory_order_relaxed);
  s.frozen_bytes = frozen_end_;
  s.bump_bytes = heap_next_.load(std::memory_order_relaxed);
  s.bump_high_water = bump_high_water_.load(std::memory_order_relaxed);
  s.collections = collections_.load(std::memory_order_relaxed);
  s.allocated_bytes = allocated_bytes_.load(std::memory_order_relaxed);
  s.moved_bytes = moved_bytes_.load(std::memory_order_relaxed);
  s.free_ratio = double(heap_size_ - s.live_bytes) / double(heap_size_);
  s.last_collection_free_ratio = last_collection_free_ratio_;
  s.limit = limit_.load(std::memory_order_relaxed);
  s.limit_raises = limit_raises_.load(std::memory_order_relaxed);
  return s;
}

}  // namespace pentago
