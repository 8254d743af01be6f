// The counters of a slice: the numbers each rank measures about the slice it just finished, as
// one struct and one table of its fields (name, unit, how the ranks' values combine, where the
// run record puts it, which runs measure it, the log's words for it). The MPI reduction, the log
// line, the run record (run.jsonl) and scripts/plot-run's checks all go through the table, so a
// new counter is a field and a row here, the line that measures it (measure_slice_counters, or
// mpi_computer_t::measure for the flow's) and its description in docs/tools.md.
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace pentago {

class block_store_t;
class compacting_store_t;
class buffer_pool_t;

// Every field is a uint64_t with a row in slice_counter_fields (checked below).
struct slice_counters_t {
  // The store's complete blocks, compressed and not: the compression ratio (not recorded alone).
  uint64_t compressed_bytes = 0, uncompressed_bytes = 0;
  // MPI: compressed input bytes received, output blocks sent to other ranks, and of the input
  // blocks read from and output blocks sent to other ranks, those passed through shared memory
  // slots.
  uint64_t traffic_bytes_in = 0, output_blocks_sent = 0, shared_memory_blocks = 0;
  // Input blocks of the slice above read on their own rank, and those read from the input cache
  // instead of decoded (block_store_t::read_input).
  uint64_t input_reads = 0, input_cache_hits = 0;
  uint64_t resident_high_water = 0;  // VmHWM
  uint64_t store_bytes = 0;          // the store's high water
  // The arena's live and touched high water, its limit at the slice's end (less than the plan's
  // where it lent to the pool) and writes that raised a lent arena's limit back.
  uint64_t arena_live = 0, arena_touched = 0, arena_bytes = 0, arena_limit_raises = 0;
  // Partial blocks held uncompressed, and the pool's budget (the plan's plus what was lent).
  uint64_t partial_bytes = 0, partial_plan_bytes = 0;
  // Of the budget, what the arena lent during the slice (block_store_t::lend_freed_arena).
  uint64_t arena_lent_in_slice = 0;
  // Contributions compressed into incomplete blocks, and partial blocks compressed to free
  // their buffer (block_store_t::partial_recompressions, _evictions); of the former, those
  // kept as granule elision's form alone (block_store_t::partial_elided).
  uint64_t partial_recompressions = 0, partial_evictions = 0, partial_elided = 0;
  // Complete blocks kept uncompressed in the arena, and as granule elision's form alone, bytes
  // (block_store_t::raw_bytes, elided_bytes).
  uint64_t raw_block_bytes = 0, elided_block_bytes = 0;
  // MPI: lines in flight and other ranks' outputs waiting, at most.
  uint64_t line_bytes = 0;
};

enum class counter_unit_t { bytes, count };
// How rank 0 combines the ranks' values: their sum, or the largest (the log's "max over ranks").
enum class counter_combine_t { sum, max };
// Where the run record's slice object holds it: at its top level, in its "memory" object, or
// nowhere (an input of a figure the report derives, such as the compression ratio).
enum class counter_place_t { slice, memory, none };
// The runs that measure it; elsewhere the record gives null and the log leaves it out.
enum class counter_scope_t {
  every_run,
  mpi,           // pentago-endgame's slices
  mpi_computed,  // pentago-endgame's computed slices (not the synthesized one)
};

struct counter_field_t {
  const char* name;  // the run record's key
  counter_unit_t unit;
  counter_combine_t combine;
  counter_place_t place;
  counter_scope_t scope;
  uint64_t slice_counters_t::*value;
  // The words the log's plan line appends ("; " and these, {} standing for the value) when the
  // counter is not zero; nullptr where the log says nothing of it or words of its own.
  const char* log = nullptr;
};

// In the run record's order within each place.
inline constexpr std::array slice_counter_fields = {
    counter_field_t{"compressed_bytes", counter_unit_t::bytes, counter_combine_t::sum,
                    counter_place_t::none, counter_scope_t::every_run,
                    &slice_counters_t::compressed_bytes},
    counter_field_t{"uncompressed_bytes", counter_unit_t::bytes, counter_combine_t::sum,
                    counter_place_t::none, counter_scope_t::every_run,
                    &slice_counters_t::uncompressed_bytes},
    counter_field_t{"traffic_bytes_in", counter_unit_t::bytes, counter_combine_t::sum,
                    counter_place_t::slice, counter_scope_t::mpi_computed,
                    &slice_counters_t::traffic_bytes_in},
    counter_field_t{"output_blocks_sent", counter_unit_t::count, counter_combine_t::sum,
                    counter_place_t::slice, counter_scope_t::mpi_computed,
                    &slice_counters_t::output_blocks_sent},
    counter_field_t{"shared_memory_blocks", counter_unit_t::count, counter_combine_t::sum,
                    counter_place_t::slice, counter_scope_t::mpi_computed,
                    &slice_counters_t::shared_memory_blocks},
    counter_field_t{"input_reads", counter_unit_t::count, counter_combine_t::sum,
                    counter_place_t::slice, counter_scope_t::every_run,
                    &slice_counters_t::input_reads},
    counter_field_t{"input_cache_hits", counter_unit_t::count, counter_combine_t::sum,
                    counter_place_t::slice, counter_scope_t::every_run,
                    &slice_counters_t::input_cache_hits},
    counter_field_t{"resident_high_water", counter_unit_t::bytes, counter_combine_t::max,
                    counter_place_t::memory, counter_scope_t::every_run,
                    &slice_counters_t::resident_high_water},
    counter_field_t{"store_bytes", counter_unit_t::bytes, counter_combine_t::max,
                    counter_place_t::memory, counter_scope_t::every_run,
                    &slice_counters_t::store_bytes},
    counter_field_t{"arena_live", counter_unit_t::bytes, counter_combine_t::max,
                    counter_place_t::memory, counter_scope_t::every_run,
                    &slice_counters_t::arena_live},
    counter_field_t{"arena_touched", counter_unit_t::bytes, counter_combine_t::max,
                    counter_place_t::memory, counter_scope_t::every_run,
                    &slice_counters_t::arena_touched},
    counter_field_t{"arena_bytes", counter_unit_t::bytes, counter_combine_t::max,
                    counter_place_t::memory, counter_scope_t::every_run,
                    &slice_counters_t::arena_bytes},
    counter_field_t{"arena_limit_raises", counter_unit_t::count, counter_combine_t::sum,
                    counter_place_t::memory, counter_scope_t::every_run,
                    &slice_counters_t::arena_limit_raises,
                    "the lent arena's limit raised back {} times"},
    counter_field_t{"partial_bytes", counter_unit_t::bytes, counter_combine_t::max,
                    counter_place_t::memory, counter_scope_t::every_run,
                    &slice_counters_t::partial_bytes},
    counter_field_t{"partial_plan_bytes", counter_unit_t::bytes, counter_combine_t::max,
                    counter_place_t::memory, counter_scope_t::every_run,
                    &slice_counters_t::partial_plan_bytes},
    counter_field_t{"arena_lent_in_slice", counter_unit_t::bytes, counter_combine_t::max,
                    counter_place_t::memory, counter_scope_t::every_run,
                    &slice_counters_t::arena_lent_in_slice},
    counter_field_t{"partial_recompressions", counter_unit_t::count, counter_combine_t::sum,
                    counter_place_t::memory, counter_scope_t::every_run,
                    &slice_counters_t::partial_recompressions},
    counter_field_t{"partial_evictions", counter_unit_t::count, counter_combine_t::sum,
                    counter_place_t::memory, counter_scope_t::every_run,
                    &slice_counters_t::partial_evictions},
    counter_field_t{"partial_elided", counter_unit_t::count, counter_combine_t::sum,
                    counter_place_t::memory, counter_scope_t::every_run,
                    &slice_counters_t::partial_elided, "{} incomplete blocks elided, no codec"},
    counter_field_t{"raw_block_bytes", counter_unit_t::bytes, counter_combine_t::sum,
                    counter_place_t::memory, counter_scope_t::every_run,
                    &slice_counters_t::raw_block_bytes, "complete blocks {} uncompressed"},
    counter_field_t{"elided_block_bytes", counter_unit_t::bytes, counter_combine_t::sum,
                    counter_place_t::memory, counter_scope_t::every_run,
                    &slice_counters_t::elided_block_bytes, "complete blocks {} elided, no codec"},
    counter_field_t{"line_bytes", counter_unit_t::bytes, counter_combine_t::max,
                    counter_place_t::memory, counter_scope_t::mpi, &slice_counters_t::line_bytes},
};
static_assert(sizeof(slice_counters_t) == slice_counter_fields.size() * sizeof(uint64_t),
              "every field of slice_counters needs its row in slice_counter_fields");

// The row of a field of slice_counters.
constexpr const counter_field_t& slice_counter_field(uint64_t slice_counters_t::*value) {
  for (const auto& f : slice_counter_fields)
    if (f.value == value) return f;
  return slice_counter_fields.front();  // unreachable: every field has its row
}

// Whether a run measures the counter: `mpi` for pentago-endgame, `synthesized` for the
// meaningless slice.
bool counter_given(const counter_field_t& field, bool mpi, bool synthesized);

// The counter's value as the log writes it: bytes as format_bytes does, counts in digits.
std::string format_counter(const counter_field_t& field, uint64_t value);

// The values of the rows that combine by `combine`, in table order, and the inverse: what one
// reduction over ranks (MPI_SUM or MPI_MAX) sends and receives.
std::vector<uint64_t> counter_values(const slice_counters_t& counters, counter_combine_t combine);
void set_counter_values(slice_counters_t& counters, counter_combine_t combine,
                        std::span<const uint64_t> values);

// Compressed over uncompressed bytes of the store's complete blocks (0 of 0 gives 0).
double compression_ratio(const slice_counters_t& counters);

// This rank's counters from its store, arena and partial pool (VmHWM for the resident set);
// the flow's (traffic, outputs sent, line bytes) are left at zero.
slice_counters_t measure_slice_counters(const block_store_t& store, const compacting_store_t& heap,
                                        const buffer_pool_t& partials);

}  // namespace pentago
