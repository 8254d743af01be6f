// The compressed block store of one slice: every held block compressed in memory, one
// line contribution per non-full dimension merged with max (bitwise OR of (win, notlose)) as
// it arrives, per-section win/notlose/total counts and sparse samples gathered when a block
// is complete (paper §IV-B; docs/design.md, "Line compute and the block store";
// docs/formats.md, "Counting" and "Samples").
#pragma once
#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <span>
#include <utility>
#include <vector>

#include "pentago/base/super.h"
#include "pentago/data/compress.h"
#include "pentago/end/buffer_pool.h"
#include "pentago/end/compacting_store.h"
#include "pentago/end/input_cache.h"
#include "pentago/end/line_compute.h"
#include "pentago/layout/blocks.h"
#include "pentago/util/element_lock.h"
#include "pentago/util/huge_pages.h"
#include "pentago/util/worker_pool.h"

namespace pentago {

struct block_key_t {
  int section;  // index into the slice's section list
  block_t block;
};

// A sparse sample: draw `draw` of section `section`, its board and store-format value.
struct sample_t {
  int section;
  int draw;
  board_t board;
  superinfo_t value;
};

// Per-section (mover wins, mover wins or ties, total) with stabilizer counting
// (docs/formats.md, "Counting").
using section_counts_t = std::array<uint64_t, 3>;

// Adds a block's counts: per node popcount >> s, where 2^s local rotations fix the board.
section_counts_t count_block(const section_t& s, const block_t& b,
                             std::span<const superinfo_t> values);

class arena_lending_t;

// How a store holds its blocks: the run's codec travels here (data/compress.h).
struct block_store_options_t {
  int samples_per_section = 0;
  block_codec_t codec = block_codec_t::snappy;  // complete blocks
  // Incomplete blocks that hold no partial buffer (LZ4 for a dropped slice where the plan fits
  // with it: run_plan_t::partial_codec).
  block_codec_t partial_codec = block_codec_t::snappy;
  // Complete blocks are kept uncompressed (fast_store_raw: no codec to store or read them)
  // while the arena has room for them beyond what the store's blocks still to come need at
  // this compressed share of their bytes (the plan's ratio for the slice) and a margin against
  // frequent collections; 0: every complete block goes through the codec.
  double raw_reserve_ratio = 0;
  // And while the store holds at most this many bytes beyond its blocks at that share: the
  // plan's room for uncompressed blocks (run_plan_t::raw_bytes) where a slice below reads this
  // one, whose own store then needs the rest of the arena while this one is still resident.
  uint64_t raw_excess_bytes = UINT64_MAX;
  // Complete blocks are kept as granule elision's form alone, never uncompressed, within that
  // room (run_plan_t::elided_first: where elision leaves little of the bytes).
  bool elided_first = false;
};

class block_store_t {
 public:
  // `blocks` lists the held blocks; their position is the block's flat id. Samples are drawn
  // for every section of the slice; those landing in held blocks are recorded here.
  // Up to `partial_budget` bytes of incomplete blocks are held uncompressed (outside the
  // heap), so that each of them is compressed once, when complete, instead of once per
  // contribution; the rest take the compressed path. Throws if a codec is not built in.
  block_store_t(std::span<const section_t> sections, std::vector<block_key_t> blocks,
                const block_store_options_t& options, compacting_store_t& heap,
                uint64_t partial_budget = 0);
  // The same, taking partial buffers from a pool shared across slices (may be null).
  block_store_t(std::span<const section_t> sections, std::vector<block_key_t> blocks,
                const block_store_options_t& options, compacting_store_t& heap,
                buffer_pool_t* pool);
  ~block_store_t();
  block_store_t(const block_store_t&) = delete;
  block_store_t& operator=(const block_store_t&) = delete;

  int blocks() const { return int(keys_.size()); }
  const block_key_t& key(int flat) const { return keys_[flat]; }
  const section_t& section(int flat) const { return sections_[keys_[flat].section]; }
  std::span<const section_t> sections() const { return sections_; }
  int flat_id(int section, const block_t& block) const;  // -1 if not held
  int nodes(int flat) const;

  // Merges one line's contribution along `dimension` into a block (thread safe), and after
  // the block's last line takes the recurrence's last step (finish_block): a complete block
  // is counted and stored as its value. `values` is used as scratch and destroyed. Throws if
  // that dimension already contributed.
  void accumulate(int flat, int dimension, std::span<superinfo_t> values);
  // The same for a contribution that `compute` computes (compute_line_block) under the
  // block's lock into the place the store passes: into the block's uncompressed buffer where
  // it holds one (streamed, or merged in place), else into `values` (nodes(flat) values,
  // scratch), possibly merged with the buffer or the block decompressed, which the store then
  // merges as accumulate does; for the block's last line, with the last step too (the output's
  // `finish`). The merging and the last step are then part of the kernel's pass over the
  // block, with no pass of their own.
  void accumulate_computed(int flat, int dimension, std::span<superinfo_t> values,
                           const std::function<void(const line_output_t&)>& compute);
  // Stores a complete block (meaningless data, restart). Destroys `values`.
  void set(int flat, std::span<superinfo_t> values);
  // Decompresses a block into `out` (nodes(flat) values, store format).
  void read(int flat, std::span<superinfo_t> out) const;
  // The compressed bytes of a block; only after freeze(), stable until the store dies or a
  // block is released.
  std::span<const uint8_t> compressed(int flat) const;
  // A copy of a frozen block's compressed bytes (locked; safe while blocks are released).
  void read_compressed(int flat, std::vector<uint8_t>& out) const;
  // The same into `out`; returns the bytes written, and throws if they do not fit.
  size_t read_compressed(int flat, std::span<uint8_t> out) const;
  // Frees a frozen block whose last reader is done (an input block of the slice below).
  void release(int flat);
  // Input-block bookkeeping of a frozen store read by the slice below: every block of section
  // s is read readers[s] times (input_readers in line_order.h). read_done counts one read of
  // a block (thread safe) and releases it after the last; check_reads_done throws unless every
  // block was read exactly as often as expected.
  void expect_reads(const std::vector<int>& readers);
  int read_done(int flat);  // returns the reads still to come
  void check_reads_done() const;
  // The reads of input blocks that this rank's own lines will make through read_input: one
  // (flat id in the store above, which has `above_blocks` blocks; the line's place in the
  // rank's line order) per read. The input cache orders its copies by their next read.
  void plan_input_reads(int above_blocks, std::span<const std::pair<int, uint32_t>> reads);
  // The same from the lines, in the rank's order: the line at place p reads each input block
  // of its dependency that `here` accepts (every block when `here` is empty; a rank passes
  // its own), from `above`, whose sections are `above_lines`'.
  void plan_input_reads(std::span<const line_t> lines, const slice_lines_t& above_lines,
                        const block_store_t& above,
                        const std::function<bool(const section_t&, const block_t&)>& here = {});
  // One read of input block `flat` of `above` (the frozen store of the slice above, with
  // expect_reads) by the line at `place` of the planned reads, followed by above.read_done.
  // Returns the block's nodes: a copy in this store's input cache where one is there, or where
  // a later line of the plan reads the block again and the cache takes a copy (decoded into
  // it); `pin` then holds the copy until it is reset or destroyed. Otherwise decoded into out.
  const superinfo_t* read_input(block_store_t& above, int flat, std::span<superinfo_t> out,
                                uint32_t place, input_pin_t& pin);
  // Input block `flat`'s last read was done elsewhere (sent to another rank): drops its copy.
  void forget_input(int flat) {
    if (cache_) cache_->forget(flat);
  }
  // Reads through read_input, and those the input cache served (zero without a pool).
  uint64_t input_reads() const { return input_reads_.load(); }
  uint64_t input_cache_hits() const { return cache_ ? cache_->hits() : 0; }
  // Packs the store and forbids further writes (the input cache's buffers go back to the
  // pool). Every block must be complete.
  void freeze();
  // From now on complete blocks are counted and sampled, then dropped instead of stored: for
  // the last slice of a run that does not save it, which nothing reads afterwards. Blocks can
  // then not be read. Call before the first write.
  void drop_complete_blocks();
  bool drops_complete_blocks() const { return drop_complete_; }
  // A store that drops complete blocks above the lowest slice (run_plan.h's recomputed, slice
  // 35 or 34): the slice below computes each of its blocks again where it reads them
  // (line_compute.h's compute_block_again). Slice 35's readers compute them directly, slice
  // 34's through read_input, which keeps copies for their next readers as for stored blocks.
  bool computed_again_by_readers() const { return drop_complete_ && slice() == 34; }
  int slice() const { return sections_.empty() ? -1 : sections_.front().sum(); }
  // While this (dropped) slice runs, the arena space that the slice above frees as its inputs
  // are released goes to the partial pool: when the pool runs dry, the store asks `lending`
  // (which owns the protocol and its reserve: arena_lending_t::lend_freed) for a step. `lending`
  // must join this store's heap and pool. Call before the first write; needs a pool.
  void lend_freed_arena(arena_lending_t& lending);
  uint64_t arena_lent_bytes() const;  // given to the pool during this store's slice
  bool frozen() const { return frozen_; }

  uint64_t missing_contributions() const { return missing_.load(); }
  std::vector<section_counts_t> counts() const;  // per section of the slice
  std::vector<sample_t> samples() const;         // recorded samples, by (section, draw)
  uint64_t compressed_bytes() const;
  uint64_t peak_held_bytes() const { return peak_held_.load(); }  // compressed, high water
  uint64_t uncompressed_bytes() const { return uncompressed_bytes_; }
  // Complete blocks stored uncompressed (block_store_options_t::raw_reserve_ratio): their bytes
  // in the store when it froze, and the compressed share of the blocks that went through the
  // codec (held bytes over their uncompressed bytes; 0 if none did). Before any release.
  uint64_t raw_bytes() const { return raw_bytes_.load(); }
  // Bytes of complete blocks held as granule elision's form alone (no codec).
  uint64_t elided_bytes() const { return elided_bytes_.load(); }
  double codec_ratio() const;
  // Incomplete blocks compressed into the heap (each contribution that found no partial
  // buffer but was not the last), and partial blocks compressed to give their buffer to a
  // block needed sooner.
  uint64_t partial_recompressions() const { return recompressions_.load(); }
  uint64_t partial_evictions() const { return evictions_.load(); }
  // Of those recompressions, the ones kept as granule elision's form alone (elided_first).
  uint64_t partial_elided() const { return partial_elided_.load(); }

 private:
  void complete_block(int flat, std::span<const superinfo_t> values);
  // read, or for a recomputed store, compute_block_again.
  void read_or_compute(int flat, std::span<superinfo_t> out) const;
  // Whether a block is held uncompressed (its read is one copy: no input cache copy pays).
  bool holds_uncompressed(int flat) const;
  // Stores (or drops) a complete block in the first of three tiers that the arena has room
  // for: uncompressed, granule elision alone, the codec.
  void store_complete(int flat, std::span<superinfo_t> values);
  // The most bytes a complete block of `nodes` nodes may take now, with the rest of the store
  // reserved at `rest_ratio` of its raw bytes (0 when the plan gave no room beyond the codec).
  uint64_t room_for(size_t nodes, double rest_ratio) const;
  // Stores a block through `codec`, or as its elided form alone where that fits `elided_room`
  // bytes (fast_compress); returns the elided form's size (0 where elision did not run).
  size_t store_compressed(int flat, std::span<superinfo_t> values, block_codec_t codec,
                          size_t elided_room = 0);
  void hold(int flat, std::span<const uint8_t> bytes);  // a block's bytes into the heap
  // An incomplete block's compressed or elided bytes into the heap, counted.
  void hold_incomplete(int flat, std::span<const uint8_t> bytes);
  // The most bytes an incomplete block may take as its elided form alone: the arena's room
  // for complete blocks (room_for) where the plan keeps blocks elided first, else 0.
  uint64_t partial_elided_room(int flat) const;
  // The elided form's share of the raw bytes, over the complete blocks measured so far (1
  // before any).
  double measured_elided_share() const;
  void drop(int flat);  // frees a block's compressed bytes
  void held_changed(int flat, uint32_t size);
  // Sizes the pool's buffers to the largest held block.
  void attach_pool();
  // When the pool runs dry: each incomplete block's next contribution comes at its line's
  // place in completion order (the order every rank computes its lines in, line_order.h's
  // completion_time), and a block needed sooner takes the buffer of the one needed last (the
  // caching rule that compresses least), which is compressed into the heap.
  uint64_t next_time(int flat, uint8_t dims) const;
  superinfo_t* take_buffer(int flat, uint8_t left);
  void track_buffer(int flat, uint8_t dims_before, uint8_t dims_after);

  std::vector<section_t> sections_;
  std::vector<block_key_t> keys_;
  // Flat ids by (section, block) key: an open-addressed table with linear probing, a power of
  // two at least twice the held blocks (one cache line per lookup, not a node per entry), on
  // huge pages (the whole game's slice 33 on one rank reads 64 MiB of it at random).
  struct flat_slot_t {
    uint64_t key = UINT64_MAX;  // UINT64_MAX: empty
    int flat = -1;
  };
  page_array_t<flat_slot_t> flat_of_;
  int flat_shift_ = 64;
  std::unique_ptr<std::atomic<uint8_t>[]> missing_dims_;  // per block: dimensions to come
  std::unique_ptr<element_lock_t[]> locks_;
  std::vector<superinfo_t*> partial_;               // uncompressed incomplete blocks, from pool_
  std::vector<std::array<int, 4>> section_blocks_;  // per section, with a pool
  std::vector<uint8_t> section_open_;               // per section: open_quadrants, with a pool
  std::vector<int> section_rank_;                   // place in section_completion_order
  std::mutex evict_mutex_;
  std::set<std::pair<uint64_t, int>> by_next_time_;  // buffer holders (guarded by evict_mutex_)
  std::atomic<uint64_t> recompressions_{0}, evictions_{0}, partial_elided_{0};
  std::unique_ptr<buffer_pool_t> own_pool_;
  buffer_pool_t* pool_ = nullptr;
  std::unique_ptr<input_cache_t> cache_;  // decoded input blocks of the slice above, in pool_
  std::atomic<uint64_t> input_reads_{0};
  // plan_input_reads: the places of the lines reading each block of the store above, in
  // order, block by block (read_places_[read_offsets_[f]] onwards).
  std::vector<uint32_t> read_offsets_, read_places_;
  std::atomic<uint64_t> missing_{0};
  uint64_t uncompressed_bytes_ = 0;
  compacting_store_t& heap_;
  group_id_t group_;
  bool frozen_ = false;
  bool drop_complete_ = false;
  const block_codec_t codec_, partial_codec_;
  arena_lending_t* lending_ = nullptr;              // lend_freed_arena
  std::unique_ptr<uint32_t[]> held_size_;           // per block: compressed bytes in the heap
  std::unique_ptr<std::atomic<int>[]> reads_left_;  // per block, after expect_reads
  std::atomic<uint64_t> held_{0}, peak_held_{0};
  const double raw_reserve_ratio_;
  const uint64_t raw_excess_bytes_;
  const bool elided_first_;
  std::atomic<uint64_t> unstored_nodes_{0};  // nodes of blocks not yet stored complete
  std::atomic<uint64_t> raw_bytes_{0}, raw_nodes_{0};
  // Complete blocks' elided forms measured so far (the share the rest would take elided alone),
  // and those kept that way.
  std::atomic<uint64_t> elided_seen_bytes_{0}, elided_seen_nodes_{0};
  std::atomic<uint64_t> elided_bytes_{0};

  struct sample_slot_t {
    int section, draw, offset;  // offset within the block
  };
  std::vector<std::vector<sample_slot_t>> block_samples_;
  mutable std::mutex results_mutex_;
  std::vector<section_counts_t> counts_;
  std::vector<sample_t> samples_;
};

// Computes output block k of dep's line (compute_line_block, from `inputs`) into its block
// `flat` of `store` (accumulate_computed, with `scratch` of nodes(flat) values), adding the
// kernel's time to `pool`'s compute and the rest to its accumulate.
void compute_and_accumulate(block_store_t& store, int flat, const line_dependency_t& dep,
                            std::span<const superinfo_t* const> inputs, int k,
                            std::span<superinfo_t> scratch, worker_pool_t& pool);

}  // namespace pentago
