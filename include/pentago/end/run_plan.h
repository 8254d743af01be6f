// The one run plan of the backward solver, shared by pentago-endgame (MPI), pentago-endgame-local
// and pentago-predict: which slices a run computes (validate_run), the per-slice store estimate
// from measured compression ratios, and the per-rank memory budget split into fixed overhead,
// the compacting arena (sized by the two-slice store it holds), lines in flight and
// uncompressed partial blocks. The admission figure `needed` is what the engines compare with
// --memory before starting, and what pentago-predict reports as the engine's plan.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "pentago/data/compress.h"
#include "pentago/layout/line_mapping.h"
#include "pentago/layout/section.h"

namespace pentago {

// The highest slice a run holds: the slice --meaningless K synthesizes, else 35 (slice 36 is
// never stored).
constexpr int top_slice(int meaningless) { return meaningless ? meaningless : 35; }

// What a run is asked to do. Slices are numbered by stones; a run computes first..bottom.
struct run_request_t {
  section_t root;
  int ranks = 1;
  int workers = 2;           // threads that compute (pentago-endgame: --threads - 1)
  uint64_t memory = 0;       // bytes per rank (callers resolve their default first)
  int meaningless = 0;       // slice K synthesized pseudorandomly, computing starts below it
  int stop_after = -1;       // lowest slice computed; -1: the root's slice
  int restart_slice = -1;    // slice read from a restart file; -1: none
  int samples = 256;         // sparse samples per section
  int line_limit = 8;        // lines in flight per rank
  int save = -1;             // slices <= save are written; below that the lowest slice is dropped
  int level = 6;             // xz preset of saved slice files (its encoder's memory is planned)
  bool holds_file = true;    // the writer holds a rank's whole compressed part (MPI) or a batch
  bool plan_writing = true;  // false: leave writing out (pentago-predict --stages' store model)
  block_codec_t codec = block_codec_t::snappy;  // in-core codec: slice 35 is sampled with it
  // --codec auto: the first built-in codec whose plan fits, in the codec table's auto order
  // (data/compress.h: LZ4, Snappy, zstd; least CPU first, densest last); `codec` is ignored.
  bool codec_auto = false;
  // --recompute-34: slice 34 too, where slice 33 is computed and 34 is not saved, is counted
  // and freed, and slice 33 computes each block it reads again from slice 35's lines
  // (compute_block_again), keeping copies for their next readers: no store of slice 34, no
  // codec; only its incomplete blocks are held while it runs.
  bool recompute_34 = false;
  bool shared_memory = true;  // ranks of a node map shared memory slots (rank_overhead.h)
};

// Throws usage_error (one line) if the request names no computable run: invalid root, a
// --meaningless or --stop-after or restart slice outside the run, nothing left to compute.
void validate_run(const run_request_t& request);

struct slice_plan_t {
  int slice = 0;
  uint64_t sections = 0, blocks = 0, nodes = 0, lines = 0;
  bool computed = true;  // false for the synthesized or restart slice at the top
  bool dropped = false;  // the lowest slice, not saved: complete blocks are counted, then freed
  // Slice 35 above the lowest slice, not saved: counted and freed like a dropped slice, and
  // the slice below computes each input block again (compute_top_block, one line per block),
  // which costs less than compressing, holding and decompressing it, and sends no messages.
  // Slice 34 too with run_request_t::recompute_34.
  bool recomputed = false;
  uint64_t held_nodes = 0;   // nodes whose blocks the store holds at its peak (all unless dropped)
  uint64_t pair_bytes = 0;   // per rank: this store and the one above, inputs released early
  double ratio = 0;          // compressed / uncompressed bytes assumed for the slice's store
                             // (a dropped slice's: its incomplete blocks, in partial_codec)
  uint64_t store_bytes = 0;  // the whole slice's compressed store (all ranks)
  uint64_t rank_store_bytes = 0;  // one rank's share, with load imbalance
  uint64_t max_line_bytes = 0;    // the largest line in flight (inputs, outputs, receive slack)
  uint64_t write_bytes = 0;       // per rank: writing the slice file (0 unless it is saved)
};

// Compression of the in-memory store (Snappy after the interleave filter), as compressed / 64
// bytes per node, by slice: the largest measured ratio (0.37 at slice 35, 0.33 at 34, 0.36 at
// 33 and below); see docs/tools.md. Pseudorandom (meaningless) data does not compress.
double store_ratio(int slice);
// The ratio of a codec's compressed size to Snappy's on this data (store_ratio is Snappy's):
// the codec table's planned_ratio (data/compress.h).
double codec_ratio_factor(block_codec_t codec);
// A root's slice 35 measured on `samples` of its blocks, computed and compressed here with
// `codec`: the compressed share of their bytes, and the share granule elision alone leaves
// (zeros where the slice is empty).
struct top_sample_t {
  double ratio = 0;
  double elided_share = 0;
};
top_sample_t sample_top_slice(const std::vector<section_t>& slice35, int samples,
                              block_codec_t codec = block_codec_t::snappy);
constexpr double meaningless_ratio = 1.0;

struct run_plan_t {
  int top = 35;    // highest slice held (35, the meaningless or the restart slice)
  int first = 35;  // highest slice computed
  int bottom = 0;  // lowest slice computed
  std::vector<slice_plan_t> slices;  // top first, down to bottom
  uint64_t memory = 0;               // per rank
  block_codec_t codec =
      block_codec_t::snappy;  // the in-core codec the run uses (after --codec auto)
  bool codec_auto = false;    // chosen by --codec auto
  // The codec of a dropped slice's incomplete blocks outside the partial pool: the first of the
  // auto order (LZ4, the least CPU to recompress) where its larger blocks fit, else `codec`.
  block_codec_t partial_codec = block_codec_t::snappy;
  double top_ratio = 0;         // this root's slice 35 compression, sampled (0: not measured)
  double top_elided_share = 0;  // and the share elision alone leaves of its bytes
  // Complete blocks are kept elided rather than uncompressed (block_store_options_t::
  // elided_first), where top_elided_share is small; raw_bytes is then their room.
  bool elided_first = false;
  double ratio_scale = 1;  // applied to store_ratio: the codec's factor, times top_ratio against
                           // the calibration's (clamped)
  // Per rank: code, MPI, partitions, block tables, samples, thread scratch.
  uint64_t fixed_bytes = 0;
  uint64_t store_peak = 0;      // the largest two consecutive slices' stores (arena live data)
  int peak_slice = -1;          // the lower slice of that pair
  uint64_t arena_bytes = 0;     // compacting arena: store_peak plus collection headroom
  uint64_t line_bytes = 0;      // lines in flight (inputs and outputs)
  uint64_t min_line_bytes = 0;  // the least that keeps two of the largest lines in flight
  uint64_t partial_bytes = 0;   // uncompressed incomplete blocks, from what is left
  // Arena room for complete blocks kept uncompressed (block_store_options_t::raw_reserve_ratio):
  // what is left beyond the partial pool's need at the incomplete peak of every computed slice,
  // at most the stores' growth from the plan's ratios to the elided share where elided_first.
  // It is part of arena_bytes; a dropped slice lends it to the pool as its inputs leave.
  uint64_t raw_bytes = 0;
  uint64_t pooled_bytes = 0;  // of those, what the dropped slice's store estimate leaves out
  uint64_t write_bytes = 0;   // the largest slice_plan_t::write_bytes (encoders, output)
  uint64_t needed = 0;        // admission: fixed + arena + min_line_bytes + write_bytes with no
                              // pooled partial blocks (the arena may then shrink: pooled_bytes)
  bool fits = true;
  std::string reason;        // why not, one line
  uint64_t total_nodes = 0;  // nodes computed

  double rank_share = 1;  // a rank's share of a slice's store, with load imbalance

  const slice_plan_t* slice_plan(int n) const;  // the plan of slice n, or null
  // The arena slice n needs while it runs, once slice n+1 is known to compress at `scale`
  // times its planned ratio: the plan's headroom over the pair of stores (n+1, n), rescaled by
  // it (the calibrated shape anchored on the measured slice, as slice 35's sample anchors it
  // at the start), at most arena_bytes (all of it at the plan's largest pair and scale 1).
  // The slice loop lends the difference to the partial pool for slice n and takes it back
  // before slice n-1 (arena_lending_t::lend_top, reclaim): a slice whose pair is smaller
  // than the largest holds more of its incomplete blocks uncompressed.
  uint64_t arena_bytes_for(int n, double scale) const;
};

// The plan of a validated request. `slices[n]` are the root's descendant sections at slice n.
run_plan_t make_run_plan(const run_request_t& request,
                         const std::vector<std::vector<section_t>>& slices);

// The nodes of each line buffer of pentago-endgame's flow while it computes `sections` from
// `above` (the slice before; empty for slice 35): one size holds any input block, any received
// compressed block (fast_compress stores raw bytes where it cannot shrink them, and a block
// kept uncompressed is sent with its flag and padding: at most one node more) and any output block
// behind its one-node message header.
size_t line_buffer_nodes(std::span<const section_t> sections, std::span<const section_t> above);
// Buffers a line holds in flight: one per output block, and with inputs two per input block
// (the decompressed block and its receive buffer).
int line_buffers(const line_dependency_t& dep, bool has_inputs);
// The largest block line of a slice in flight on one rank: its buffers at line_buffer_nodes.
uint64_t max_line_bytes(std::span<const section_t> sections, std::span<const section_t> above);

// Per rank, writing a slice file whose rank share is `rank_store_bytes` in the store: one xz
// encoder (liblzma's own figure for the preset) and block buffers per worker, plus, where the
// writer holds the rank's compressed part until the collective write, that part (xz compresses
// the slice at least as well as the store's Snappy) and one bounded write piece.
uint64_t slice_write_bytes(int workers, int level, bool holds_file, uint64_t rank_store_bytes);
// The piece of a rank's compressed part written per collective call (pentago-endgame).
constexpr uint64_t slice_write_piece_bytes = uint64_t(16) << 20;

// Per-slice plan lines for a log ("slice 34: 1 sections ... store ~312 MiB per rank").
std::vector<std::string> format_run_plan(const run_plan_t& plan);

}  // namespace pentago
