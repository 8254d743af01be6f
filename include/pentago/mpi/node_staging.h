// Blocks passed between the ranks of one node through shared memory instead of inside MPI
// messages (docs/design.md, "MPI flow"). Each rank maps a region of slots (a memfd) that every
// rank of its node maps too, through /proc/PID/fd. A rank that answers an input request writes
// the block straight into the requester's slot, named in the request; a rank that computed an
// output block for another rank computes it into a slot of its own and the owner merges it from
// there. Either way the MPI message that follows carries a few bytes instead of the block, so
// the block is copied once (or not at all) where MPI's single-copy transport read it again
// from the sender at a fraction of memcpy's speed. Slots are one size per slice (the flow's
// line buffer size), and a slot's state word is the only thing two ranks write: taken by its
// rank, freed by whichever rank read it last. Where no slot is free, or a peer is on another
// node or could not be mapped, the block travels inside the message as before.
#pragma once
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace pentago {

class node_staging_t {
 public:
  // Collective over MPI_COMM_WORLD. Each rank maps at most `mapped_bytes` of regions in all
  // (its own and those of the other ranks of its node, equal shares); 0, a rank alone on its
  // node, or shares too small for a few full blocks: nothing is shared. `map_peers` false
  // (tests) acts as if no other rank's region could be mapped here.
  explicit node_staging_t(uint64_t mapped_bytes, bool map_peers = true);
  ~node_staging_t();
  node_staging_t(const node_staging_t&) = delete;
  node_staging_t& operator=(const node_staging_t&) = delete;

  // Whether blocks to and from world rank `rank` go through its or this rank's slots.
  bool shared_with(int rank) const {
    return rank >= 0 && size_t(rank) < peers_.size() && peers_[size_t(rank)].base;
  }
  bool any_shared() const { return shared_peers_ > 0; }
  int rank() const { return rank_; }
  // Slots of `bytes` from now on (equal on every rank of the node; between slices). Waits
  // until the other ranks have freed this rank's slots that they still read.
  void set_slot_bytes(size_t bytes);
  size_t slot_bytes() const { return slot_bytes_; }
  // A free slot of this rank, taken (any thread); -1 when every slot is taken.
  int take();
  // Slot `index` of world rank `rank` (this rank or one it shares with); throws on a bad
  // index or a rank not shared with.
  uint8_t* slot(int rank, int index) const;
  // Frees slot `index` of world rank `rank` (any thread, on any rank that shares it).
  void release(int rank, int index);
  // Fences around the messages that announce slot contents: publish before the send that
  // names a written slot, acquire after the receive, before reading it.
  static void publish();
  static void acquire();
  // One log line: "shared memory slots on this rank: with 1 of the 1 other ranks of its node,
  // 8.00 MiB each" (or "none" and why).
  std::string description() const;

 private:
  struct peer_t {
    uint8_t* base = nullptr;  // the peer's region, mapped here (this rank's own for itself)
  };
  uint32_t* states(int rank) const;
  int slots_taken() const;  // this rank's slots in use now (0 between slices)

  std::vector<peer_t> peers_;  // by world rank
  int rank_ = 0;
  int fd_ = -1;
  size_t region_bytes_ = 0;  // each rank's region: the state words, then the slots
  size_t data_bytes_ = 0;    // the slots' share of a region
  size_t slot_bytes_ = 0;
  int slots_ = 0;
  int node_ranks_ = 1;    // ranks of this node, this one included
  int shared_peers_ = 0;  // the other ranks of the node it shares slots with
};

}  // namespace pentago
