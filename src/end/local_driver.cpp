// The in-process backward solver: plan, per-slice line compute on a thread pool, outputs.
#include "pentago/end/local_driver.h"

#include <atomic>
#include <chrono>
#include <cstring>
#include <exception>
#include <fstream>
#include <memory>
#include <mutex>
#include <thread>

#include "pentago/data/supertensor.h"
#include "pentago/end/block_store.h"
#include "pentago/end/compacting_store.h"
#include "pentago/end/line_compute.h"
#include "pentago/end/line_order.h"
#include "pentago/end/meaningless.h"
#include "pentago/end/run_options.h"
#include "pentago/end/run_plan.h"
#include "pentago/end/slice_output.h"
#include "pentago/layout/line_mapping.h"
#include "pentago/util/error.h"
#include "pentago/util/parallel_for.h"
#include "pentago/util/timer.h"

namespace pentago {
namespace {

using clock_type = std::chrono::steady_clock;
run_request local_request(const local_options& o, uint64_t memory) {
  run_request r;
  r.root = o.root;
  r.ranks = 1;
  r.workers = o.threads;
  r.memory = memory;
  r.meaningless = o.meaningless;
  r.stop_after = o.stop_after;
  r.samples = o.samples;
  r.line_limit = o.threads;
  r.save = o.save;
  return r;
}

// Every block of every section, in section order then block order.
std::vector<block_key_t> all_blocks(std::span<const section_t> sections) {
  std::vector<block_key_t> keys;
  for (int s = 0; s < int(sections.size()); s++)
    for (uint64_t i = 0; i < section_block_count(sections[s]); i++)
      keys.push_back({s, block_from_index(sections[s], i)});
  return keys;
}

}  // namespace

std::string local_usage() {
  return "usage: pentago-endgame-local [options] ROOT\n"
         "Solves every descendant section of ROOT (8 digits b0w0b1w1b2w2b3w3, e.g. 44444554)\n"
         "backwards from slice 35 in one process, writing counts-N.npy, sparse-N.npy and a log.\n"
         "  --threads N        worker threads (default 2)\n"
         "  --dir DIR          new output directory (required; never overwritten)\n"
         "  --stop-after S     lowest slice to compute (default: the root's slice)\n"
         "  --samples K        sparse samples per section (default 256)\n"
         "  --memory M         memory limit, e.g. 4G (default: half of physical memory)\n"
         "  --meaningless K    give slice K pseudorandom values and solve below it (test mode)\n"
         "  --save N           write slice-N.pentago for computed slices N <= save\n"
         "  --level P          xz preset of slice files, 0..9 (default 6, as published)\n"
         "  --quiet            write progress only to DIR/log\n"
         "  --help             this text\n";
}

local_options parse_local_options(int argc, char** argv) {
  local_options o;
  argument_cursor args(argc, argv);
  bool have_root = false;
  while (args.next()) {
    const std::string& arg = args.arg();
    auto value = [&] { return args.value(); };
    if (arg == "--threads")
      o.threads = int(parse_int_option(arg, value(), 1, 1024));
    else if (arg == "--dir")
      o.dir = value();
    else if (arg == "--stop-after")
      o.stop_after = int(parse_int_option(arg, value(), 0, 35));
    else if (arg == "--samples")
      o.samples = int(parse_int_option(arg, value(), 0, 1 << 20));
    else if (arg == "--memory")
      o.memory = parse_memory_option(arg, value());
    else if (arg == "--meaningless")
      o.meaningless = int(parse_int_option(arg, value(), 1, 35));
    else if (arg == "--save")
      o.save = int(parse_int_option(arg, value(), -1, 35));
    else if (arg == "--level")
      o.level = int(parse_int_option(arg, value(), 0, 9));
    else if (arg == "--quiet")
      o.echo = false;
    else if (args.is_option())
      args.unknown();
    else
      take_root(args, o.root, have_root);
  }
  if (!have_root) throw usage_error("missing ROOT section (e.g. 44444554)");
  if (o.dir.empty()) throw usage_error("missing --dir DIR");
  validate_run(local_request(o, o.memory ? o.memory : physical_memory() / 2));
  return o;
}

void run_local(const local_options& o) {
  const auto start = clock_type::now();
  const int root_slice = o.root.sum();
  const int top = o.meaningless ? o.meaningless : 35;
  const int bottom = o.stop_after >= 0 ? o.stop_after : root_slice;
  const auto slices = descendant_sections(o.root, top);
  const uint64_t memory = o.memory ? o.memory : physical_memory() / 2;
  const run_plan run = make_run_plan(local_request(o, memory), slices);
  const auto& plan = run.slices;

  // Refuse before creating anything if the plan does not fit.
  if (!run.fits) throw error(run.reason);

  create_run_directory(o.dir);
  run_log log;
  log.set_echo(o.echo);
  log.open(o.dir + "/log");
  log.line("pentago-endgame-local: root " + o.root.name() + ", slices " + std::to_string(top) +
           " down to " + std::to_string(bottom) + ", threads " + std::to_string(o.threads) +
           ", samples " + std::to_string(o.samples) + ", simd " + simd_name(current_simd_level()) +
           (o.meaningless ? ", meaningless " + std::to_string(o.meaningless) : ""));
  for (const auto& line : format_run_plan(run)) log.line(line);
  uint64_t total_nodes = 0;
  for (const auto& p : plan)
    if (p.computed) total_nodes += p.nodes;
  if (o.meaningless) log.line(meaningless_plan_note(top, plan.front().nodes));

  compacting_store heap(run.arena_bytes);
  partial_pool partials(run.partial_bytes);
  worker_pool pool(o.threads - 1);  // with the calling thread, o.threads for every slice
  std::unique_ptr<block_store> prev;
  uint64_t done_nodes = 0;

  auto finish_slice = [&](int n, block_store& store, double seconds, uint64_t nodes) {
    const auto counts = store.counts();
    write_counts(o.dir, n, slices[n], counts);
    write_sparse(o.dir, n, store.samples());
    if (n <= o.save) {
      const auto ts = clock_type::now();
      const std::string path = o.dir + "/" + slice_file_name(n);
      write_slice_file(
          path, slices[n],
          [&](int section, const section_t& s, const block_t& block, std::span<superinfo_t> out) {
            store.read(store.flat_id(section, block), out);
            for (auto& v : out) v = store_to_disk(v, s.turn());
          },
          o.level, o.threads);
      log.line("wrote " + path + " in " + format_seconds(seconds_since(ts)));
    }
    done_nodes += nodes;
    const double elapsed = seconds_since(start);
    const double rate = done_nodes / std::max(elapsed, 1e-9);
    const double eta = (total_nodes - done_nodes) / std::max(rate, 1e-9);
    char ratio[32] = "- (complete blocks dropped)";
    if (!store.drops_complete_blocks())
      std::snprintf(
          ratio, sizeof ratio, "%.3f",
          double(store.compressed_bytes()) / std::max<double>(store.uncompressed_bytes(), 1));
    char buf[400];
    std::snprintf(buf, sizeof buf,
                  "slice %2d: %llu sections, %d blocks, %llu nodes in %s (%.3g nodes/s), "
                  "compression %s, elapsed %s, eta %s",
                  n, (unsigned long long)slices[n].size(), store.blocks(),
                  (unsigned long long)nodes, format_seconds(seconds).c_str(),
                  nodes / std::max(seconds, 1e-9), ratio, format_seconds(elapsed).c_str(),
                  format_seconds(eta).c_str());
    log.line(buf);
  };

  if (o.meaningless) {
    std::ofstream(o.dir + "/meaningless-" + std::to_string(o.meaningless));  // the marker
    const auto t = clock_type::now();
    const int n = top;
    prev = std::make_unique<block_store>(slices[n], all_blocks(slices[n]), o.samples, heap);
    parallel_for(pool, uint64_t(prev->blocks()), [&](uint64_t f) {
      const auto& key = prev->key(int(f));
      const section_t& s = slices[n][key.section];
      auto values = meaningless_block(s, key.block);
      prev->set(int(f), values);
    });
    prev->freeze();
    finish_slice(n, *prev, seconds_since(t), 0);
  }

  for (int n = o.meaningless ? top - 1 : 35; n >= bottom; n--) {
    const auto t = clock_type::now();
    const auto& sections = slices[n];
    if (sections.empty()) break;
    const slice_lines lines(sections);
    // Memory beyond the plan holds incomplete blocks uncompressed (one compression per block).
    auto store =
        std::make_unique<block_store>(sections, all_blocks(sections), o.samples, heap, &partials);
    if (run.slice_plan(n)->dropped) store->drop_complete_blocks();
    const std::vector<section_t>* prev_sections = n < 35 ? &slices[n + 1] : nullptr;
    const std::vector<line_t> ordered = lines_in_completion_order(lines);
    // Each input block is released after its last reader.
    if (prev_sections) prev->expect_reads(input_readers(lines, slice_lines(*prev_sections)));
    parallel_for(pool, ordered.size(), [&](uint64_t i) {
      const line_t& line = ordered[i];
      const line_dependency dep = line_dependency_of(line);
      thread_local std::vector<std::vector<superinfo_t>> input_blocks;
      thread_local std::vector<superinfo_t> output;
      std::vector<const superinfo_t*> inputs;
      if (prev_sections) {
        const int cs =
            int(std::lower_bound(prev_sections->begin(), prev_sections->end(), dep.child) -
                prev_sections->begin());
        PENTAGO_CHECK(cs < int(prev_sections->size()) && (*prev_sections)[cs] == dep.child,
                      "child section missing from the previous slice");
        const int length = dep.input.length();
        input_blocks.resize(std::max<size_t>(input_blocks.size(), length));
        for (int b = 0; b < length; b++) {
          const int f = prev->flat_id(cs, dep.input.block(b));
          PENTAGO_CHECK(f >= 0, "input block missing");
          input_blocks[b].resize(prev->nodes(f));
          prev->read(f, input_blocks[b]);
          prev->read_done(f);
          inputs.push_back(input_blocks[b].data());
        }
      }
      const int si = lines.section_index(line.section);
      for (int k = 0; k < line.length(); k++) {
        const int f = store->flat_id(si, line.block(k));
        output.resize(store->nodes(f));
        compute_line_block(dep, inputs, k, output.data());
        store->accumulate(f, line.dimension, output);
      }
    });
    if (prev_sections) prev->check_reads_done();
    // Free slice n+1 before freezing n, so the collector packs n at the bottom of the heap.
    prev.reset();
    store->freeze();
    prev = std::move(store);
    uint64_t nodes = 0;
    for (const auto& s : sections) nodes += s.size();
    finish_slice(n, *prev, seconds_since(t), nodes);
  }
  log.line("done: " + format_seconds(seconds_since(start)) + " total, heap high water " +
           format_bytes(double(heap.stats().peak_live_bytes)));
}

}  // namespace pentago
