// The run plan: validation, per-slice store estimates and the per-rank memory budget.
#include "pentago/end/run_plan.h"

#include <lzma.h>

#include <algorithm>
#include <cstdio>

#include "pentago/data/compress.h"
#include "pentago/end/block_store.h"
#include "pentago/end/line_compute.h"
#include "pentago/end/line_order.h"
#include "pentago/end/rank_overhead.h"
#include "pentago/layout/blocks.h"
#include "pentago/layout/line_mapping.h"
#include "pentago/util/error.h"
#include "pentago/util/format.h"

namespace pentago {
namespace {

constexpr uint64_t MiB = uint64_t(1) << 20;
// Per rank: code, libraries, MPI (shared-memory channels, posted receives), thread stacks and
// the allocator's heaps. Measured: a rank that only initializes MPI holds 15.4 MiB; with the
// flow's buffers in pools, a rank's heaps hold under 10 MiB at the peak of 44444454 @ 3G, and
// all of a rank's memory outside the arena, pools and lines was 15 MiB at 25263480 @ 0.5G.
constexpr uint64_t base_bytes = 32 * MiB;
// Per worker thread: decompress and compress scratch, one output block.
constexpr uint64_t worker_bytes = 2 * MiB;
// Per block held, per store: key, hash map entry, lock, dimension mask, partial slot, the
// times of its lines (partial-pool eviction), sample list and the arena's table entry; plus
// its 64-byte alignment in the arena.
constexpr uint64_t block_table_bytes = 176;
constexpr uint64_t block_arena_slack = 64;
// A recorded sample (board, value, indices) on the rank that owns its block.
constexpr uint64_t sample_bytes = 160;
// Ranks hold up to a few percent more than their share (the load balance reports: 1.03).
constexpr double rank_imbalance = 1.03;
// Arena headroom over its live data: garbage of recompressed blocks between collections.
constexpr double arena_headroom = 1.05;
constexpr uint64_t arena_extra = 32 * MiB;
// A dropped slice holds its incomplete blocks: the simulated peak of completion order, times
// this for lines in flight and for ranks that are not exactly in step. Measured on 2 ranks:
// 0.83-0.93 of the simulation alone (partly merged blocks compress better than complete ones).
constexpr double dropped_drift = 1.05;
// With memory to spare, the arena gets up to this much more headroom (relative to its data).
constexpr double arena_spare_share = 0.15;
// More lines in flight and more arena headroom each take at most this part of the spare memory.
constexpr uint64_t spare_share_divisor = 16;
// Blocks of slice 35 compressed to measure a root's ratio, and the range of the scale applied.
constexpr int ratio_samples = 32;
constexpr double min_ratio_scale = 0.5, max_ratio_scale = 1.25;
// Where granule elision leaves at most this share of slice 35's bytes, complete blocks are kept
// elided rather than uncompressed: restoring them costs about what copying the raw nodes does,
// and they take half the pages or less (every page first touched costs a fault).
constexpr double elided_first_share = 0.5;
// Share of --memory kept back from the spare memory (lines, arena headroom, partial blocks):
// allocator slack and MPI buffers the fixed part does not itemize. With the flow's buffers
// pooled, every measured rank stays within --memory at 2% (docs/performance.md).
constexpr double unplanned_share = 0.02;
// A dropped slice's incomplete blocks in the partial pool: each takes a whole buffer, and they
// are counted at this share of the slice's mean block size (edge blocks are smaller). Passes
// of the plan that hand the pool more room (make_run_plan).
constexpr double pooled_fill = 0.9;
constexpr int pool_passes = 6;
// The partial pool keeps this much more than the simulated incomplete peak of every computed
// slice before the rest of it becomes arena room for uncompressed complete blocks.
constexpr double pool_need_margin = 1.1;

// The partial pool's need per rank: the largest incomplete peak of a computed slice (a
// dropped slice's held nodes, the simulated peak of the others, in completion order), as
// uncompressed bytes with the drift of ranks and the margin.
uint64_t partial_pool_need(const run_plan_t& p, const std::vector<std::vector<section_t>>& slices) {
  double most = 0;
  for (const slice_plan_t& s : p.slices) {
    if (!s.computed || s.recomputed) continue;
    const double nodes =
        s.dropped ? double(s.held_nodes)
                  : double(incomplete_peak_nodes(slice_lines_t(slices[s.slice]))) * dropped_drift;
    most = std::max(most, nodes);
  }
  return uint64_t(pool_need_margin * p.rank_share * 64 * most);
}

}  // namespace

void validate_run(const run_request_t& r) {
  if (!r.root.valid()) throw usage_error_t("invalid root section " + r.root.str());
  const int root_slice = r.root.sum();
  if (root_slice >= 36) throw usage_error_t("root " + r.root.str() + " has no empty cell");
  if (r.ranks < 1) throw usage_error_t("at least 1 rank is needed");
  if (r.workers < 1) throw usage_error_t("at least 1 worker thread is needed");
  const int top = top_slice(r.meaningless);
  if (r.meaningless && (r.meaningless <= root_slice || r.meaningless > 35))
    throw usage_error_t("--meaningless " + std::to_string(r.meaningless) +
                        " must lie above the root's slice " + std::to_string(root_slice) +
                        " and at most 35");
  if (r.stop_after >= 0 && r.stop_after < root_slice)
    throw usage_error_t("--stop-after " + std::to_string(r.stop_after) +
                        " is below the root's slice " + std::to_string(root_slice));
  const int bottom = r.stop_after >= 0 ? r.stop_after : root_slice;
  if (bottom > top - (r.meaningless ? 1 : 0))
    throw usage_error_t("--stop-after " + std::to_string(r.stop_after) +
                        " leaves nothing to compute");
  if (r.restart_slice >= 0 && (r.restart_slice <= bottom || r.restart_slice > top))
    throw usage_error_t("restart slice " + std::to_string(r.restart_slice) +
                        " is outside the slices " + std::to_string(bottom + 1) + ".." +
                        std::to_string(top) + " of this run");
}

top_sample_t sample_top_slice(const std::vector<section_t>& slice35, int samples,
                              block_codec_t codec) {
  uint64_t total_blocks = 0;
  for (const auto& s : slice35) total_blocks += section_block_count(s);
  if (!total_blocks || samples < 1) return {};
  // Every (total / samples)-th block of the slice, in section then block order.
  std::vector<std::pair<int, uint64_t>> picks;
  for (int i = 0; i < samples && uint64_t(i) < total_blocks; i++) {
    uint64_t flat =
        uint64_t(i) * total_blocks / uint64_t(std::min<uint64_t>(samples, total_blocks));
    int s = 0;
    while (flat >= section_block_count(slice35[s])) flat -= section_block_count(slice35[s++]);
    picks.push_back({s, flat});
  }
  uint64_t compressed = 0, elided = 0, raw = 0;
  std::vector<superinfo_t> value;
  for (const auto& [si, index] : picks) {
    const section_t& s = slice35[si];
    const block_t b = block_from_index(s, index);
    compute_top_block(s, b, value);
    size_t elided_size = 0;
    compressed += fast_compress_view(std::span<superinfo_t>(value), codec, 0, &elided_size).size();
    elided += elided_size ? elided_size : 1 + 64 * value.size();
    raw += 64 * value.size();
  }
  return {double(compressed) / double(raw), double(elided) / double(raw)};
}

double codec_ratio_factor(block_codec_t codec) { return block_codec_info(codec).planned_ratio; }

double store_ratio(int slice) {
  // The largest compressed share measured on 2 ranks (docs/tools.md, "calibration"): 0.367 at
  // slice 35, 0.325-0.326 at 34, 0.351 at 33 (root 44444454); root 25263480 compresses to
  // 0.19-0.25 on slices 35-30, so for such roots the plan is an upper bound.
  if (slice >= 35) return 0.37;
  if (slice == 34) return 0.33;
  return 0.36;
}

size_t line_buffer_nodes(std::span<const section_t> sections, std::span<const section_t> above) {
  return 1 + size_t(std::max(largest_block_nodes(sections), largest_block_nodes(above)));
}

int line_buffers(const line_dependency_t& dep, bool has_inputs) {
  return dep.output.length() + (has_inputs ? 2 * dep.input.length() : 0);
}

uint64_t max_line_bytes(std::span<const section_t> sections, std::span<const section_t> above) {
  int most = 0;
  for (const auto& s : sections)
    for (int d = 0; d < 4; d++) {
      if (s.quadrant_full(d)) continue;
      line_t line;
      line.section = s;
      line.dimension = d;
      most = std::max(most, line_buffers(line_dependency_of(line), !above.empty()));
    }
  return sizeof(superinfo_t) * line_buffer_nodes(sections, above) * uint64_t(most);
}

uint64_t slice_write_bytes(int workers, int level, bool holds_file, uint64_t rank_store_bytes) {
  const uint64_t encoder = lzma_easy_encoder_memusage(uint32_t(level));
  PENTAGO_CHECK(encoder != UINT64_MAX, "xz preset out of range");
  // Per worker: the block's disk values, its filtered copy, the xz output bound and a batch of
  // the local writer's blocks (raw and compressed) waiting to be written in order.
  const uint64_t block_raw = 64 * uint64_t(block_size * block_size * block_size * block_size);
  const uint64_t per_worker = encoder + 3 * block_raw + 4 * 2 * block_raw;
  return uint64_t(workers) * per_worker +
         (holds_file ? rank_store_bytes + slice_write_piece_bytes : 0);
}

const slice_plan_t* run_plan_t::slice_plan(int n) const {
  for (const auto& s : slices)
    if (s.slice == n) return &s;
  return nullptr;
}

uint64_t run_plan_t::arena_bytes_for(int n, double scale) const {
  scale = std::max(scale, 0.0);
  for (size_t k = 0; k < slices.size(); k++) {
    const slice_plan_t& s = slices[k];
    if (!s.computed || s.slice != n) continue;
    // Each block's arena slack does not shrink with the ratio.
    const uint64_t above_blocks = k ? slices[k - 1].blocks : 0;
    const double slack = rank_share * double(block_arena_slack * (s.blocks + above_blocks));
    const double pair = double(s.pair_bytes);
    const double need = scale * std::max(0.0, pair - slack) + std::min(pair, slack);
    const double unused = arena_headroom * std::max(0.0, double(store_peak) - need);
    return arena_bytes - std::min(arena_bytes, uint64_t(unused));
  }
  return arena_bytes;
}

namespace {

// The plan of a validated request whose slice 35 samples at `top_ratio` (0: not sampled),
// where `pooled` bytes per rank of uncompressed partial blocks (at most what the plan hands out)
// hold the first incomplete blocks of a dropped slice, so that only the rest are in its store.
run_plan_t plan_with_pool(const run_request_t& r, const std::vector<std::vector<section_t>>& slices,
                          double top_ratio, uint64_t pooled, block_codec_t partial_codec) {
  run_plan_t p;
  p.memory = r.memory;
  p.codec = r.codec;
  p.partial_codec = partial_codec;
  p.pooled_bytes = pooled;
  const int top = top_slice(r.meaningless);
  p.top = r.restart_slice >= 0 ? r.restart_slice : top;
  p.first = r.restart_slice >= 0 || r.meaningless ? p.top - 1 : 35;
  p.bottom = r.stop_after >= 0 ? r.stop_after : r.root.sum();
  const double share = (r.ranks > 1 ? rank_imbalance : 1.0) / double(r.ranks);
  p.rank_share = share;
  // Roots compress differently: scale the calibrated ratios by how this root's slice 35
  // compresses (measured on a sample of its blocks) against the calibration's.
  // The calibration is Snappy's; another codec scales it by its own factor first.
  const double codec_factor = codec_ratio_factor(r.codec);
  p.ratio_scale = codec_factor;
  p.top_ratio = top_ratio;
  if (top_ratio > 0)
    p.ratio_scale = codec_factor * std::clamp(top_ratio / (codec_factor * store_ratio(35)),
                                              min_ratio_scale, max_ratio_scale);
  uint64_t max_line = 0, max_blocks = 0, max_sample_bytes = 0;
  for (int n = p.top; n >= p.bottom; n--) {
    if (n >= int(slices.size()) || slices[n].empty()) break;
    slice_plan_t s;
    s.slice = n;
    s.sections = slices[n].size();
    for (const auto& sec : slices[n]) {
      s.blocks += section_block_count(sec);
      s.nodes += sec.size();
    }
    s.lines = slice_lines_t(slices[n]).total_lines();
    s.computed = n <= p.first;
    s.ratio = r.meaningless && r.restart_slice < 0 && n == top ? meaningless_ratio
                                                               : p.ratio_scale * store_ratio(n);
    s.dropped = s.computed && n == p.bottom && n > r.save;
    s.recomputed =
        s.computed && (n == 35 || (n == 34 && r.recompute_34)) && n > p.bottom && n > r.save;
    // Slice 34 recomputed holds its incomplete blocks as a dropped slice does.
    const bool incomplete_only = s.dropped || (s.recomputed && n < 35);
    if (s.recomputed && n == 35) {
      s.held_nodes = 0;
    } else if (incomplete_only) {
      // Only incomplete blocks are held; ranks drift apart a little while they go through
      // the sections in the same completion order.
      const double held = incomplete_peak_nodes(slice_lines_t(slices[n])) * dropped_drift;
      s.held_nodes = std::min(s.nodes, uint64_t(held));
    } else {
      s.held_nodes = s.nodes;
    }
    // Nodes of the dropped slice's incomplete blocks in the partial pools (all ranks): one
    // block per buffer of the slice's largest block, counted at the slice's mean block size
    // (less the fill margin).
    double pooled_nodes = 0;
    if (s.dropped && s.blocks) {
      const int largest_block = std::max(1, largest_block_nodes(slices[n]));
      pooled_nodes = pooled_fill *
                     double(pooled / (sizeof(superinfo_t) * uint64_t(largest_block))) *
                     double(s.nodes) / double(s.blocks) / share;
    }
    const double stored_nodes = std::max(0.0, double(s.held_nodes) - pooled_nodes);
    // A dropped slice's store holds only incomplete blocks, in the partial codec.
    if (incomplete_only) s.ratio *= codec_ratio_factor(partial_codec) / codec_ratio_factor(r.codec);
    s.store_bytes = uint64_t(s.ratio * 64 * stored_nodes) + block_arena_slack * s.blocks;
    s.rank_store_bytes = uint64_t(share * double(s.store_bytes));
    // A saved slice (the synthesized top slice too, when it lies at or below --save).
    if (r.plan_writing && n <= r.save && !(r.restart_slice >= 0 && n == p.top))
      s.write_bytes = slice_write_bytes(r.workers, r.level, r.holds_file, s.rank_store_bytes);
    p.write_bytes = std::max(p.write_bytes, s.write_bytes);
    if (s.computed) {
      s.max_line_bytes = max_line_bytes(slices[n], n < 35 && n + 1 < int(slices.size())
                                                       ? std::span<const section_t>(slices[n + 1])
                                                       : std::span<const section_t>());
      max_line = std::max(max_line, s.max_line_bytes);
      p.total_nodes += s.nodes;
    }
    const uint64_t pair_blocks = s.blocks + (p.slices.empty() ? 0 : p.slices.back().blocks);
    max_blocks = std::max(max_blocks, pair_blocks);
    max_sample_bytes = std::max(max_sample_bytes, uint64_t(r.samples) * s.sections * sample_bytes);
    // Both stores at once, but input blocks are released after their last reader: the
    // section-by-section estimate of paired_store_peak (line_order.h).
    uint64_t pair = s.rank_store_bytes;
    if (!p.slices.empty()) {
      const slice_plan_t& above = p.slices.back();
      // (The simulation leaves out the drift that held_nodes includes: the pool is scaled by it.)
      const double held =
          s.dropped ? s.ratio * 64 * stored_nodes : -1;  // a dropped slice's stored outputs
      const double both = paired_store_peak(slice_lines_t(slices[n]), slice_lines_t(slices[n + 1]),
                                            above.recomputed ? 0.0 : above.ratio * 64, s.ratio * 64,
                                            held, pooled_nodes / dropped_drift) +
                          double(block_arena_slack * (s.blocks + above.blocks));
      pair = std::min(pair + above.rank_store_bytes, uint64_t(share * both));
    }
    s.pair_bytes = pair;
    if (s.computed && pair > p.store_peak) p.store_peak = pair, p.peak_slice = n;
    p.slices.push_back(s);
  }
  // MPI's per-peer state grows with the rank count (end/rank_overhead.h).
  p.fixed_bytes = base_bytes + rank_count_bytes(r.ranks) +
                  node_staging_plan_bytes(r.ranks, r.shared_memory) +
                  uint64_t(r.workers) * worker_bytes +
                  uint64_t(share * double(max_blocks * block_table_bytes)) +
                  uint64_t(share * double(max_sample_bytes));
  p.arena_bytes = uint64_t(arena_headroom * double(p.store_peak)) + arena_extra;
  // Two of the largest lines in flight, and as many again of other ranks' outputs waiting to
  // be merged here.
  p.min_line_bytes = 2 * 2 * max_line;
  // Writing a saved slice: its encoders and (MPI) the rank's compressed part, while the store,
  // its arena and possibly line buffers not yet returned are still resident.
  p.needed = p.fixed_bytes + p.arena_bytes + p.min_line_bytes + p.write_bytes;
  if (p.needed > p.memory) {
    p.fits = false;
    p.reason = "memory plan needs about " + format_bytes(double(p.needed)) +
               " per rank (stores of slices " + std::to_string(p.peak_slice + 1) + " and " +
               std::to_string(p.peak_slice) + " " + format_bytes(double(p.store_peak)) +
               ") but --memory is " + format_bytes(double(p.memory)) +
               (r.ranks > 1 ? ": use more ranks or more memory"
                            : ": use more memory, more ranks (pentago-endgame) or a smaller root");
    p.line_bytes = p.min_line_bytes;
    return p;
  }
  // What is left goes first to more lines in flight (up to the line limit), then to arena
  // headroom (fewer collections, each of which slides every live unfrozen array), each at
  // most a sixteenth of it, then to uncompressed partial blocks (each compressed once instead
  // of once per contribution). Where memory is tight the pool is worth more: at 25263480 @
  // 0.5G, quarters for lines and headroom left the pool 30 MiB, sixteenths 46 MiB and 10% less
  // CPU. A little of what is left is never handed out: allocator slack
  // and MPI buffers that the fixed part does not itemize keep the resident set under --memory.
  uint64_t spare = p.memory - p.needed;
  spare -= std::min(spare, uint64_t(unplanned_share * double(p.memory)));
  const uint64_t more_lines =
      std::min(spare / spare_share_divisor, uint64_t(std::max(r.line_limit - 2, 0)) * 2 * max_line);
  p.line_bytes = p.min_line_bytes + more_lines;
  spare -= more_lines;
  const uint64_t more_arena =
      std::min(spare / spare_share_divisor, uint64_t(arena_spare_share * double(p.store_peak)));
  p.arena_bytes += more_arena;
  p.partial_bytes = spare - more_arena;
  return p;
}

}  // namespace

run_plan_t make_run_plan(const run_request_t& r,
                         const std::vector<std::vector<section_t>>& slices) {
  if (r.codec_auto) {
    // The least CPU whose plan fits, in the codec table's auto order (LZ4, fastest to decode,
    // Snappy, then the denser zstd); if none fits, the last one's refusal (the densest's, which
    // names the smallest need).
    run_request_t fixed = r;
    fixed.codec_auto = false;
    run_plan_t p;
    const std::vector<block_codec_t> order = block_codec_auto_order();
    for (const block_codec_t c : order) {
      fixed.codec = c;
      p = make_run_plan(fixed, slices);
      if (p.fits) break;
    }
    p.codec_auto = true;
    // On one rank, where only the densest codec fits, with no room to keep blocks out of it, a
    // slice 34 that slice 33 reads and nothing saves is not stored (recompute_34): compressing
    // it into the densest codec and decoding it costs more than computing each block again
    // (the whole game's slice 33 in 14G: 3 min 48 s, against 2 min 50 s). One rank reads only
    // its own blocks, all through its input cache; more ranks compute other ranks' blocks at
    // every read. The codecs are tried again without the store.
    const slice_plan_t* stored_34 = p.slice_plan(34);
    if (!r.recompute_34 && r.ranks == 1 && p.fits && order.size() > 1 && p.codec == order.back() &&
        !p.raw_bytes && stored_34 && stored_34->computed && !stored_34->dropped && 34 > r.save) {
      run_request_t again = r;
      again.recompute_34 = true;
      const run_plan_t q = make_run_plan(again, slices);
      const slice_plan_t* s34 = q.slice_plan(34);
      if (q.fits && s34 && s34->recomputed) return q;
    }
    return p;
  }
  validate_run(r);
  const top_sample_t top = !r.meaningless && slices.size() > 35 && !slices[35].empty()
                               ? sample_top_slice(slices[35], ratio_samples, r.codec)
                               : top_sample_t{};
  // A dropped slice keeps its first incomplete blocks in the partial pool, uncompressed and
  // outside the arena: planning for the pool the last pass handed out shrinks the arena, which
  // leaves a larger pool. Each pass hands out at least what the one before assumed.
  auto pooled_plan = [&](block_codec_t partial_codec) {
    run_plan_t p = plan_with_pool(r, slices, top.ratio, 0, partial_codec);
    const uint64_t needed = p.needed;
    const bool dropped = !p.slices.empty() && p.slices.back().dropped;
    for (int pass = 0; dropped && p.fits && pass < pool_passes; pass++) {
      run_plan_t q = plan_with_pool(r, slices, top.ratio, p.partial_bytes, partial_codec);
      if (!q.fits || q.partial_bytes < q.pooled_bytes) break;
      const bool settled = q.partial_bytes < p.partial_bytes + MiB;
      p = q;
      if (settled) break;
    }
    p.needed = needed;
    return p;
  };
  run_plan_t p = pooled_plan(r.codec);
  // The pool beyond its need becomes arena room for complete blocks kept uncompressed.
  // The rest of a dropped slice's incomplete blocks in the least-CPU codec (the first of the
  // auto order, LZ4) where they fit: each is compressed and decompressed once per
  // contribution. The admission figure stays the least memory at which the run fits (with the
  // run's codec and no pool), whatever --memory is given.
  const bool dropped = !p.slices.empty() && p.slices.back().dropped;
  const block_codec_row_t& cheapest = least_cpu_block_codec();
  if (dropped && p.fits && r.codec != cheapest.id && cheapest.built_in) {
    run_plan_t q = pooled_plan(cheapest.id);
    if (q.fits) {
      q.needed = std::min(q.needed, p.needed);
      p = q;
    }
  }
  // Recorded beside top_ratio, whether the plan fits or not.
  p.top_elided_share = top.elided_share;
  if (p.fits) {
    const uint64_t need = partial_pool_need(p, slices);
    p.raw_bytes = p.partial_bytes > need ? p.partial_bytes - need : 0;
    // Where elision leaves little of slice 35's bytes, complete blocks are kept elided rather
    // than uncompressed, and the room is what the stores need in that form: the rest of the
    // pool's share stays with the pool, which touches only the buffers it uses.
    if (top.elided_share > 0 && top.elided_share <= elided_first_share) {
      p.elided_first = true;
      const double planned_top = p.ratio_scale * store_ratio(35);
      const double elided_room =
          double(p.store_peak) * std::max(0.0, top.elided_share / planned_top - 1);
      p.raw_bytes = std::min(p.raw_bytes, uint64_t(elided_room));
    }
    p.partial_bytes -= p.raw_bytes;
    p.arena_bytes += p.raw_bytes;
    // The pool still holds all of a dropped slice's incomplete peak (its need), where the
    // passes above planned for more.
    p.pooled_bytes = std::min(p.pooled_bytes, p.partial_bytes);
  }
  return p;
}

std::vector<std::string> format_run_plan(const run_plan_t& p) {
  std::vector<std::string> lines;
  char buf[400];
  std::snprintf(
      buf, sizeof buf,
      "memory plan per rank: %s of %s (fixed %s, arena %s for stores up to %s at slices "
      "%d+%d and %s %s, lines %s, partial blocks %s, writing %s)",
      format_bytes(double(p.needed)).c_str(), format_bytes(double(p.memory)).c_str(),
      format_bytes(double(p.fixed_bytes)).c_str(), format_bytes(double(p.arena_bytes)).c_str(),
      format_bytes(double(p.store_peak)).c_str(), p.peak_slice + 1, p.peak_slice,
      format_bytes(double(p.raw_bytes)).c_str(), p.elided_first ? "elided" : "uncompressed",
      format_bytes(double(p.line_bytes)).c_str(), format_bytes(double(p.partial_bytes)).c_str(),
      format_bytes(double(p.write_bytes)).c_str());
  lines.push_back(buf);
  if (p.top_ratio > 0) {
    std::snprintf(
        buf, sizeof buf,
        "  compression (%s%s): slice 35 sampled at %.3f (elided alone %.3f%s), calibrated "
        "ratios scaled by %.2f",
        block_codec_name(p.codec), p.codec_auto ? ", chosen by --codec auto" : "", p.top_ratio,
        p.top_elided_share, p.elided_first ? ": complete blocks kept elided" : "", p.ratio_scale);
    lines.push_back(buf);
  }
  for (const auto& s : p.slices) {
    char held[160];
    const std::string rest = p.partial_codec != p.codec
                                 ? std::string(", the rest in ") + block_codec_name(p.partial_codec)
                                 : "";
    std::snprintf(
        held, sizeof held,
        ", incomplete blocks only: %.0f%% of its nodes at once (dropped when complete%s%s)",
        100.0 * double(s.held_nodes) / double(std::max<uint64_t>(s.nodes, 1)),
        p.pooled_bytes ? ", partial blocks first" : "", rest.c_str());
    std::snprintf(buf, sizeof buf,
                  "  slice %2d: %6llu sections %11llu blocks %15llu nodes %10llu lines, store "
                  "~%s per rank (ratio %.2f)%s",
                  s.slice, (unsigned long long)s.sections, (unsigned long long)s.blocks,
                  (unsigned long long)s.nodes, (unsigned long long)s.lines,
                  format_bytes(double(s.rank_store_bytes)).c_str(), s.ratio,
                  s.dropped ? held
                  : s.recomputed
                      ? s.slice == 35
                            ? " (not stored: counted, then computed again as slice 34 reads it)"
                            : " (not stored: counted, then computed again as slice 33 reads it)"
                  : s.computed ? ""
                               : ", input only");
    lines.push_back(buf);
  }
  return lines;
}

}  // namespace pentago
