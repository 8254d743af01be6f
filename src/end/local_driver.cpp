// The in-process backward solver: the slice loop with a thread-pool slice computer.
#include "pentago/end/local_driver.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>

#include "pentago/data/supertensor.h"
#include "pentago/end/block_store.h"
#include "pentago/end/compacting_store.h"
#include "pentago/end/line_compute.h"
#include "pentago/end/line_order.h"
#include "pentago/end/meaningless.h"
#include "pentago/end/run_header.h"
#include "pentago/end/run_log.h"
#include "pentago/end/run_plan.h"
#include "pentago/end/slice_loop.h"
#include "pentago/end/slice_output.h"
#include "pentago/layout/line_mapping.h"
#include "pentago/util/error.h"
#include "pentago/util/format.h"
#include "pentago/util/parallel_for.h"
#include "pentago/util/timer.h"

namespace pentago {
namespace {

using clock_type_t = std::chrono::steady_clock;

// Every block of every section, in section order then block order.
std::vector<block_key_t> all_blocks(std::span<const section_t> sections) {
  std::vector<block_key_t> keys;
  for (int s = 0; s < int(sections.size()); s++)
    for (uint64_t i = 0; i < section_block_count(sections[s]); i++)
      keys.push_back({s, block_from_index(sections[s], i)});
  return keys;
}

// Slices computed by the threads of this process: every block is local.
class local_computer_t : public slice_computer_t {
 public:
  local_computer_t(const engine_options_t& o, const std::vector<std::vector<section_t>>& slices)
      : o_(o), slices_(slices), pool_(o.threads - 1) {}  // with the calling thread, o.threads

  bool leader() const override { return true; }
  int ranks() const override { return 1; }
  int threads_per_rank() const override { return o_.threads; }

  std::unique_ptr<block_store_t> new_store(int n, const block_store_options_t& options,
                                           compacting_store_t& heap, buffer_pool_t* partials,
                                           slice_report_t&) override {
    above_ = std::move(current_);
    current_ = std::make_unique<slice_lines_t>(slices_[n]);
    // Memory beyond the plan holds incomplete blocks uncompressed (one compression per block).
    return std::make_unique<block_store_t>(slices_[n], all_blocks(slices_[n]), options, heap,
                                           partials);
  }
  const slice_lines_t& current_lines() const override { return *current_; }
  const slice_lines_t& lines_above() const override { return *above_; }
  void release_above() override { above_.reset(); }

  void compute(int, block_store_t& store, block_store_t* above, slice_report_t&) override {
    const slice_lines_t& lines = *current_;
    const std::vector<line_t> ordered = lines_in_completion_order(lines);
    if (above && (!above->drops_complete_blocks() || above->computed_again_by_readers()))
      store.plan_input_reads(ordered, *above_, *above);
    parallel_for(pool_, ordered.size(), [&](uint64_t i) {
      const line_t& line = ordered[i];
      const line_dependency_t dep = line_dependency_of(line);
      thread_local std::vector<std::vector<superinfo_t>> input_blocks;
      thread_local std::vector<superinfo_t> output;
      std::vector<const superinfo_t*> inputs;
      std::vector<input_pin_t> pins;  // input cache copies read where they lie
      if (above) {
        const int cs = above_->section_index(dep.child);
        PENTAGO_CHECK(cs >= 0, "child section missing from the previous slice");
        const int length = dep.input.length();
        input_blocks.resize(std::max<size_t>(input_blocks.size(), length));
        pins.resize(length);
        // Slice 35 dropped its blocks (run_plan.h's recomputed): compute them again. A
        // recomputed slice 34's go through read_input, which computes them again.
        const bool again = above->drops_complete_blocks();
        const bool recompute = again && !above->computed_again_by_readers();
        activity_timer_t timer(pool_, again ? activity_t::compute : activity_t::decompress);
        for (int b = 0; b < length; b++) {
          const int f = above->flat_id(cs, dep.input.block(b));
          PENTAGO_CHECK(f >= 0, "input block missing");
          const auto input = scratch_span(input_blocks[b], size_t(above->nodes(f)));
          if (recompute) {
            compute_top_block(dep.child, dep.input.block(b), input);
            inputs.push_back(input.data());
          } else {
            inputs.push_back(store.read_input(*above, f, input, uint32_t(i), pins[b]));
          }
        }
      }
      const int si = lines.section_index(line.section);
      for (int k = 0; k < line.length(); k++) {
        const int f = store.flat_id(si, line.block(k));
        compute_and_accumulate(store, f, dep, inputs, k,
                               scratch_span(output, size_t(store.nodes(f))), pool_);
      }
    });
  }

  void fill_meaningless(block_store_t& store) override {
    parallel_for(pool_, uint64_t(store.blocks()), [&](uint64_t f) {
      const auto& key = store.key(int(f));
      auto values = meaningless_block(store.section(int(f)), key.block);
      store.set(int(f), values);
    });
  }

  void read_restart(const std::string&, block_store_t&) override {
    throw usage_error_t("pentago-endgame-local cannot restart (use pentago-endgame)");
  }

  void write_counts_and_samples(const std::string& dir, int n,
                                const block_store_t& store) override {
    write_counts(dir, n, slices_[n], store.counts());
    write_sparse(dir, n, store.samples());
  }

  uint64_t write_slice(const std::string& path, int n, const block_store_t& store) override {
    write_slice_file(
        path, slices_[n],
        [&](int section, const section_t& s, const block_t& block, std::span<superinfo_t> out) {
          store.read(store.flat_id(section, block), out);
          for (auto& v : out) v = store_to_disk(v, s.turn());
        },
        o_.level, o_.threads);
    return std::filesystem::file_size(path);
  }

  bool any(bool mine) override { return mine; }

  void measure(const block_store_t& store, const compacting_store_t& heap,
               const buffer_pool_t& partials, slice_report_t& r) override {
    r.worker_seconds = pool_.take_times();
    double all = 0;
    for (const double t : r.worker_seconds) all += t;
    r.idle_fraction = r.worker_seconds[size_t(activity_t::idle)] / std::max(all, 1e-9);
    r.counters = measure_slice_counters(store, heap, partials);
    if (!store.drops_complete_blocks()) r.compression = compression_ratio(r.counters);
  }

  uint64_t resident_high_water() override { return pentago::resident_high_water(); }

 private:
  const engine_options_t& o_;
  const std::vector<std::vector<section_t>>& slices_;
  worker_pool_t pool_;
  std::unique_ptr<slice_lines_t> current_, above_;
};

}  // namespace

std::string local_usage() {
  return "usage: pentago-endgame-local [options] --dir DIR ROOT\n"
         "Solves every descendant section of ROOT (8 digits b0w0b1w1b2w2b3w3, e.g. 44444554)\n"
         "backwards from slice 35 in one process, writing counts-N.npy, sparse-N.npy, the log\n"
         "and the run record DIR/run.jsonl.\n" +
         engine_usage(engine_program_t::local) + "  --help               this text\n";
}

local_options_t parse_local_options(int argc, char** argv) {
  return parse_engine_options(engine_program_t::local, argc, argv);
}

void run_local(const local_options_t& o) {
  const auto start = clock_type_t::now();
  const int top = top_slice(o.meaningless);
  const auto slices = descendant_sections(o.root, top);
  const uint64_t memory = o.memory ? o.memory : physical_memory() / 2;
  const run_plan_t plan = make_run_plan(make_run_request(o, 1, memory, -1), slices);
  // Refuse before creating anything if the plan does not fit (a usage error, as in
  // pentago-endgame: the same request with more memory would run).
  if (!plan.fits) throw usage_error_t(plan.reason);

  create_run_directory(o.dir);
  run_log_t log;
  log.set_echo(o.echo);
  log.open(o.dir + "/log");
  run_record_t record;
  record.open(o.dir + "/" + run_record_name);
  run_header_t header;
  header.ranks = 1;
  header.top = top;
  header.bottom = plan.bottom;
  header.memory = memory;
  header.simd = simd_name(current_simd_level());
  choose_pages(o, header);
  for (const auto& line : format_run_header(o, header, plan, "")) log.line(line);
  record.header(o, header, plan);
  if (o.meaningless) std::ofstream(o.dir + "/meaningless-" + std::to_string(o.meaningless));

  local_computer_t computer(o, slices);
  slice_loop_setup_t setup;
  setup.options = &o;
  setup.plan = &plan;
  setup.slices = &slices;
  setup.pages = header.pages;
  setup.page_probe = header.page_probe;
  setup.log = &log;
  setup.record = &record;
  const slice_loop_result_t result = run_slice_loop(setup, computer);
  const uint64_t high = resident_high_water();
  log.line("done: " + format_seconds(seconds_since(start)) + " total, memory high water " +
           format_bytes(double(high)) + ", heap high water " +
           format_bytes(double(result.heap_high_water)));
  record.done(result.checkpoint, seconds_since(start), high, result.slices, result.first_touch);
}

}  // namespace pentago
