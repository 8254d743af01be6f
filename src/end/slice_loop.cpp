// The slice loop shared by pentago-endgame and pentago-endgame-local.
#include "pentago/end/slice_loop.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>

#include "pentago/data/supertensor.h"
#include "pentago/end/arena_lending.h"
#include "pentago/layout/line_mapping.h"
#include "pentago/util/error.h"
#include "pentago/util/format.h"
#include "pentago/util/timer.h"

namespace pentago {
namespace {

using clock_type_t = std::chrono::steady_clock;

// The fields of a report that the plan and the store give.
void describe(slice_report_t& r, int n, const std::vector<section_t>& sections,
              const block_store_t& store, const run_plan_t& plan) {
  r.slice = n;
  r.sections = sections.size();
  r.nodes = 0;
  r.blocks = 0;
  for (const auto& s : sections) {
    r.nodes += s.size();
    r.blocks += section_block_count(s);
  }
  r.memory.limit = plan.memory;
  r.memory.line_plan_bytes = plan.line_bytes;
  const slice_plan_t* p = plan.slice_plan(n);
  r.recomputed = p && p->recomputed;
  r.dropped = store.drops_complete_blocks() && !r.recomputed;
  if (p) {
    r.memory.plan_store_bytes = p->rank_store_bytes;
    r.memory.plan_ratio = p->ratio;
  }
}

// Before slice n: what was lent for slice n+1 comes back; then the plan's ratios re-anchored
// on how slice n+1 (frozen, not yet read) compressed on this rank give the arena slice n
// needs, and the arena lends the rest of its top to the partial pool for this slice
// (25263480 @ 0.5G: its pool from 66 MiB to 174, 111, 128 and 254 MiB in slices 33-30).
void lend_arena_to_pool(const run_plan_t& plan, int n, const block_store_t& above,
                        arena_lending_t& lending) {
  lending.reclaim(plan.partial_bytes, plan.arena_bytes);
  const slice_plan_t* p = plan.slice_plan(n + 1);
  if (!p || p->ratio <= 0 || !above.uncompressed_bytes() || above.drops_complete_blocks()) return;
  // The codec's share alone: blocks kept uncompressed say nothing of how slice n compresses.
  const double measured = above.codec_ratio();
  lending.lend_top(plan.arena_bytes_for(n, measured > 0 ? measured / p->ratio : 1.0));
}

// The options of slice n's store: the run's codec, for a dropped slice the plan's codec of
// incomplete blocks, and for a stored one complete blocks kept uncompressed (or, where the plan
// says so, elided) where the arena has room beyond the rest of the store at its planned ratio.
block_store_options_t store_options(const run_plan_t& plan, int n, int samples, bool dropped) {
  const slice_plan_t* p = plan.slice_plan(n);
  const double raw_reserve = plan.raw_bytes && p && !dropped ? p->ratio : 0;
  // A slice below that reads this one shares the arena with it.
  const slice_plan_t* below = plan.slice_plan(n - 1);
  const uint64_t raw_excess = below && below->computed ? plan.raw_bytes : UINT64_MAX;
  return {samples,     plan.codec, dropped ? plan.partial_codec : plan.codec,
          raw_reserve, raw_excess, plan.elided_first};
}

}  // namespace

uint64_t resident_high_water() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmHWM:", 0) == 0) return uint64_t(std::stoull(line.substr(6))) * 1024;
  return 0;
}

slice_loop_result_t run_slice_loop(const slice_loop_setup_t& setup, slice_computer_t& computer) {
  const engine_options_t& o = *setup.options;
  const run_plan_t& plan = *setup.plan;
  const auto& slices = *setup.slices;
  const bool leader = computer.leader();
  const auto start = clock_type_t::now();
  const int top = top_slice(o.meaningless);
  std::optional<first_touch_chooser_t> first_touch;
  if (setup.page_probe) first_touch.emplace(*setup.page_probe);
  compacting_store_t heap(plan.arena_bytes, compacting_store_t::default_min_free_fraction,
                          setup.pages);
  buffer_pool_t partials(plan.partial_bytes, buffer_pool_t::block_nodes, setup.pages);
  if (first_touch) {
    heap.set_first_touch(&*first_touch);
    partials.set_first_touch(&*first_touch);
  }
  arena_lending_t lending(heap, partials);
  slice_loop_result_t result;
  std::vector<int>& done = result.slices;
  auto say = [&](const std::string& line) {
    if (setup.log) setup.log->line(line);
  };

  uint64_t total_nodes = 0, done_nodes = 0;
  for (const auto& p : plan.slices)
    if (p.computed) total_nodes += p.nodes;

  // The report's numbers over the whole run (elapsed, eta, rate), its log lines and record.
  auto finish_report = [&](slice_report_t& r, const block_store_t& store, bool computed) {
    computer.measure(store, heap, partials, r);
    if (computed) done_nodes += r.nodes;
    r.seconds = r.compute_seconds + r.io_seconds;
    r.elapsed = seconds_since(start);
    const double rate = double(done_nodes) / std::max(r.elapsed, 1e-9);
    r.eta = double(total_nodes - done_nodes) / std::max(rate, 1e-9);
    const double cores = double(computer.ranks()) * computer.threads_per_rank();
    r.nodes_per_second_per_core =
        computed ? double(r.nodes) / std::max(r.compute_seconds, 1e-9) / cores : 0;
    if (!leader) return;
    for (const auto& line : format_slice_report(r)) say(line);
    if (setup.record) setup.record->slice(r);
  };

  // Counts and samples of a frozen store, and its slice file with its sidecar.
  auto write_counts = [&](slice_report_t& r, int n, const block_store_t& store) {
    computer.write_counts_and_samples(o.dir, n, store);
    r.files.push_back({"counts-" + std::to_string(n) + ".npy", {}, {}, {}});
    r.files.push_back({"sparse-" + std::to_string(n) + ".npy",
                       uint64_t(o.samples) * uint64_t(slices[n].size()),
                       {},
                       {}});
  };
  auto save_slice = [&](slice_report_t& r, int n, const block_store_t& store) {
    const std::string name = slice_file_name(n);
    const std::string path = o.dir + "/" + name;
    const auto t = clock_type_t::now();
    const uint64_t bytes = computer.write_slice(path, n, store);
    r.files.push_back({name, {}, bytes, seconds_since(t)});
    // The sidecar a remote database reads (pentago-lookup --db URL): the 2013 layout for a
    // complete slice (root 00000000), the partial layout (the file's sections) otherwise.
    if (leader) {
      write_slice_index(supertensor_reader_t(path), path + ".index");
      r.files.push_back(
          {name + ".index", {}, uint64_t(std::filesystem::file_size(path + ".index")), {}});
    }
  };

  std::unique_ptr<block_store_t> above;
  int first = 35;
  if (setup.restart_slice >= 0) {
    const int n = setup.restart_slice;
    const auto t = clock_type_t::now();
    slice_report_t unused;
    above = computer.new_store(n, store_options(plan, n, 0, false), heap, nullptr, unused);
    computer.read_restart(o.restart, *above);
    above->freeze();
    say("restart: read slice " + std::to_string(n) + " from " + o.restart + " in " +
        format_seconds(seconds_since(t)));
    first = n - 1;
  } else if (o.meaningless) {
    const int n = top;
    const auto t = clock_type_t::now();
    slice_report_t r;
    r.synthesized = true;
    above = computer.new_store(n, store_options(plan, n, o.samples, false), heap, nullptr, r);
    r.load_balance.reset();
    computer.fill_meaningless(*above);
    above->freeze();
    r.compute_seconds = seconds_since(t);
    describe(r, n, slices[n], *above, plan);
    const auto io_start = clock_type_t::now();
    write_counts(r, n, *above);
    // Saved like a computed slice, so that a check of the slice below has its inputs.
    if (n <= o.save) save_slice(r, n, *above);
    r.io_seconds = seconds_since(io_start);
    finish_report(r, *above, false);
    done.push_back(n);
    first = n - 1;
  }

  int computed = 0;
  for (int n = first; n >= plan.bottom; n--) {
    if (slices[n].empty()) break;
    const auto t = clock_type_t::now();
    slice_report_t r;
    if (above) lend_arena_to_pool(plan, n, *above, lending);
    const slice_plan_t& sp = *plan.slice_plan(n);
    auto store = computer.new_store(
        n, store_options(plan, n, o.samples, sp.dropped || sp.recomputed), heap, &partials, r);
    if (sp.dropped || (plan.raw_bytes && !sp.recomputed)) {
      // As the inputs leave, the arena lends what it no longer needs to the partial pool; it
      // keeps the plan's room for this slice's store (a dropped slice's compressed incomplete
      // blocks) and its headroom. A stored slice's pool that runs dry so takes the room that
      // would have kept complete blocks uncompressed: its incomplete blocks need it more.
      lending.lend_freed(sp.rank_store_bytes +
                         (plan.arena_bytes - plan.raw_bytes - plan.store_peak));
      store->lend_freed_arena(lending);
    }
    // A recomputed slice 35 is counted and dropped like the bottom slice; the slice below
    // computes its blocks again instead of reading them.
    if (sp.dropped || sp.recomputed) store->drop_complete_blocks();
    // Each input block is released after its last reader.
    const bool reads_above = above && !above->drops_complete_blocks();
    if (reads_above)
      above->expect_reads(input_readers(computer.current_lines(), computer.lines_above()));
    computer.compute(n, *store, above.get(), r);
    if (reads_above) above->check_reads_done();
    // Free slice n+1 before freezing n, so the collector packs n at the bottom of the heap.
    above.reset();
    computer.release_above();
    store->freeze();
    above = std::move(store);
    r.compute_seconds = seconds_since(t);
    describe(r, n, slices[n], *above, plan);
    computed++;
    done.push_back(n);

    const auto io_start = clock_type_t::now();
    write_counts(r, n, *above);
    // A recomputed slice 35 holds no blocks to save: a checkpoint waits for slice 34.
    const bool periodic = o.checkpoint_every && computed % o.checkpoint_every == 0;
    const bool saved = n <= o.save || (periodic && n > plan.bottom && !sp.recomputed);
    if (saved) save_slice(r, n, *above);
    // Agree on a checkpoint after any regular save, so a signal that arrived while it was
    // being written takes effect now rather than a slice later.
    const bool checkpoint =
        computer.any(setup.checkpoint_requested && setup.checkpoint_requested()) &&
        n > plan.bottom && !sp.recomputed;
    if (checkpoint && !saved) save_slice(r, n, *above);
    r.io_seconds = seconds_since(io_start);
    finish_report(r, *above, true);
    if (checkpoint) {
      const std::string path = o.dir + "/" + slice_file_name(n);
      const std::string command = setup.resume_command ? setup.resume_command(path) : "";
      say("checkpoint: slice " + std::to_string(n) + " saved as " + path);
      say("resume with: " + command);
      if (setup.record) setup.record->checkpoint(n, command);
      result.checkpoint = true;
      break;
    }
  }
  result.heap_high_water = heap.stats().peak_live_bytes;
  if (first_touch) {
    result.first_touch = first_touch->stats();
    say(format_first_touch(*result.first_touch));
  }
  return result;
}

}  // namespace pentago
