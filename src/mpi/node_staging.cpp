// Shared-memory slots between the ranks of one node (see node_staging.h).
#include "pentago/mpi/node_staging.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "pentago/end/buffer_pool.h"
#include "pentago/mpi/comm.h"
#include "pentago/util/error.h"
#include "pentago/util/format.h"

namespace pentago {
namespace {

constexpr size_t page_bytes = 4096;
// A region starts with one state word per slot (0: free, 1: taken), a page of them.
constexpr size_t state_bytes = page_bytes;
constexpr int max_slots = int(state_bytes / sizeof(uint32_t));
// A region is worth mapping if it holds this many of the largest line buffers (a full block
// and its header node).
constexpr size_t min_full_slots = 4;
constexpr size_t full_slot_bytes = (buffer_pool_t::block_nodes + 2) * sizeof(superinfo_t);
// How long set_slot_bytes waits for other ranks to free this rank's slots: they free each
// right after merging it, before their slice ends.
constexpr auto release_wait = std::chrono::seconds(60);

// What a rank tells its node about its region. The file's identity lets a peer check that
// /proc/PID/fd/FD is that file and not another process's (ranks in other PID namespaces).
struct rank_region_t {
  int64_t pid = -1;
  int64_t fd = -1;  // -1: this rank has no region
  int64_t device = 0, inode = 0;
};
constexpr int region_words = 4;
static_assert(sizeof(rank_region_t) == region_words * sizeof(int64_t));

void* map_shared(int fd, size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  return p == MAP_FAILED ? nullptr : p;
}

}  // namespace

node_staging_t::node_staging_t(uint64_t mapped_bytes, bool map_peers) : rank_(mpi_rank()) {
  peers_.resize(size_t(mpi_size()));
  MPI_Comm node;
  PENTAGO_MPI(
      MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node));
  const int node_ranks = mpi_size(node), me = mpi_rank(node);
  node_ranks_ = node_ranks;
  const uint64_t share =
      node_ranks > 1 ? mapped_bytes / uint64_t(node_ranks) / page_bytes * page_bytes : 0;
  if (share < state_bytes + min_full_slots * full_slot_bytes) {  // equal on the whole node
    MPI_Comm_free(&node);
    return;
  }
  region_bytes_ = share;
  data_bytes_ = share - state_bytes;

  // This rank's region, then every other rank's, mapped through its descriptor.
  uint8_t* own = nullptr;
  fd_ = memfd_create("pentago-node-staging", MFD_CLOEXEC);
  if (fd_ >= 0 && ftruncate(fd_, off_t(region_bytes_)) == 0)
    own = static_cast<uint8_t*>(map_shared(fd_, region_bytes_));
  rank_region_t mine{int64_t(getpid()), own ? int64_t(fd_) : -1};
  struct stat file;
  if (own && fstat(fd_, &file) == 0) {
    mine.device = int64_t(file.st_dev);
    mine.inode = int64_t(file.st_ino);
  }
  std::vector<rank_region_t> regions(static_cast<size_t>(node_ranks));
  std::vector<int> world(static_cast<size_t>(node_ranks));
  PENTAGO_MPI(MPI_Allgather(&mine, region_words, MPI_INT64_T, regions.data(), region_words,
                            MPI_INT64_T, node));
  PENTAGO_MPI(MPI_Allgather(&rank_, 1, MPI_INT, world.data(), 1, MPI_INT, node));
  std::vector<uint8_t*> bases(size_t(node_ranks), nullptr);
  std::vector<char> mapped(size_t(node_ranks), 0);
  for (int q = 0; q < node_ranks; q++) {
    const rank_region_t& r = regions[size_t(q)];
    if (q == me || !own || r.fd < 0 || !map_peers) continue;
    const std::string path = "/proc/" + std::to_string(r.pid) + "/fd/" + std::to_string(r.fd);
    const int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) continue;
    struct stat opened;
    if (fstat(fd, &opened) == 0 && int64_t(opened.st_dev) == r.device &&
        int64_t(opened.st_ino) == r.inode && uint64_t(opened.st_size) == region_bytes_)
      bases[size_t(q)] = static_cast<uint8_t*>(map_shared(fd, region_bytes_));
    close(fd);
    mapped[size_t(q)] = bases[size_t(q)] != nullptr;
  }
  // A pair shares only where each mapped the other's region.
  std::vector<char> all(size_t(node_ranks) * size_t(node_ranks));
  PENTAGO_MPI(
      MPI_Allgather(mapped.data(), node_ranks, MPI_CHAR, all.data(), node_ranks, MPI_CHAR, node));
  MPI_Comm_free(&node);
  for (int q = 0; q < node_ranks; q++) {
    if (!bases[size_t(q)]) continue;
    if (all[size_t(q) * size_t(node_ranks) + size_t(me)]) {
      peers_[size_t(world[size_t(q)])].base = bases[size_t(q)];
      shared_peers_++;
    } else {
      munmap(bases[size_t(q)], region_bytes_);
    }
  }
  if (own) peers_[size_t(rank_)].base = own;
}

node_staging_t::~node_staging_t() {
  for (const peer_t& p : peers_)
    if (p.base) munmap(p.base, region_bytes_);
  if (fd_ >= 0) close(fd_);
}

std::string node_staging_t::description() const {
  std::string line = "shared memory slots on this rank: ";
  if (node_ranks_ < 2) return line + "none (no other rank on this node)";
  if (!region_bytes_) return line + "none (off, or too many ranks on this node)";
  return line + "with " + std::to_string(shared_peers_) + " of the " +
         std::to_string(node_ranks_ - 1) + " other ranks of its node, " +
         format_bytes(double(region_bytes_)) + " each";
}

uint32_t* node_staging_t::states(int rank) const {
  return reinterpret_cast<uint32_t*>(peers_[size_t(rank)].base);
}

void node_staging_t::set_slot_bytes(size_t bytes) {
  if (!any_shared()) return;
  const auto deadline = std::chrono::steady_clock::now() + release_wait;
  while (slots_taken()) {
    if (std::chrono::steady_clock::now() > deadline)
      throw pentago_error_t("shared memory slots of this rank still held by another rank after " +
                            std::to_string(release_wait.count()) + " s");
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  slot_bytes_ = (bytes + 63) / 64 * 64;
  slots_ = slot_bytes_ ? int(std::min<size_t>(size_t(max_slots), data_bytes_ / slot_bytes_)) : 0;
}

int node_staging_t::slots_taken() const {
  if (!any_shared()) return 0;
  int taken = 0;
  for (int i = 0; i < max_slots; i++)
    taken += std::atomic_ref<uint32_t>(states(rank_)[i]).load(std::memory_order_acquire) != 0;
  return taken;
}

int node_staging_t::take() {
  if (!any_shared() || !slots_) return -1;
  static thread_local unsigned hint = 0;
  uint32_t* s = states(rank_);
  for (int i = 0; i < slots_; i++) {
    const int index = int((hint + unsigned(i)) % unsigned(slots_));
    uint32_t expected = 0;
    std::atomic_ref<uint32_t> state(s[index]);
    if (state.load(std::memory_order_relaxed) == 0 &&
        state.compare_exchange_strong(expected, 1, std::memory_order_acquire)) {
      hint = unsigned(index) + 1;
      return index;
    }
  }
  return -1;
}

uint8_t* node_staging_t::slot(int rank, int index) const {
  if (!(rank == rank_ ? any_shared() : shared_with(rank)) || index < 0 || index >= slots_)
    throw pentago_error_t("shared memory slot " + std::to_string(index) + " of rank " +
                          std::to_string(rank) + " is not shared with this rank");
  return peers_[size_t(rank)].base + state_bytes + size_t(index) * slot_bytes_;
}

void node_staging_t::release(int rank, int index) {
  slot(rank, index);  // checks the rank and the index
  std::atomic_ref<uint32_t>(states(rank)[index]).store(0, std::memory_order_release);
}

void node_staging_t::publish() { std::atomic_thread_fence(std::memory_order_seq_cst); }
void node_staging_t::acquire() { std::atomic_thread_fence(std::memory_order_acquire); }

}  // namespace pentago
