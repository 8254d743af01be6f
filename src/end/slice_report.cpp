// The log format of a slice report, the same for both drivers.
#include "pentago/end/slice_report.h"

#include <algorithm>
#include <cstdio>

#include "pentago/util/format.h"

namespace pentago {

std::vector<std::string> format_slice_report(const slice_report_t& r) {
  std::vector<std::string> lines;
  char buf[700];
  if (r.load_balance) {
    static constexpr std::array<const char*, 5> names = {"lines", "line blocks", "line nodes",
                                                         "blocks", "block nodes"};
    std::string line = "slice " + std::to_string(r.slice) + " load balance (min max ratio):";
    for (size_t i = 0; i < names.size(); i++) {
      const auto [lo, hi] = r.load_balance->ranges[i];
      if (lo)
        std::snprintf(buf, sizeof buf, "  %s = %lld %lld (%.4g);", names[i], (long long)lo,
                      (long long)hi, double(hi) / double(lo));
      else
        std::snprintf(buf, sizeof buf, "  %s = %lld %lld (inf);", names[i], (long long)lo,
                      (long long)hi);
      line += buf;
    }
    lines.push_back(line);
  }
  char ratio[32] = "-";
  if (r.compression) std::snprintf(ratio, sizeof ratio, "%.3f", *r.compression);
  if (r.synthesized) {
    lines.push_back("meaningless slice " + std::to_string(r.slice) + " synthesized in " +
                    format_seconds(r.seconds));
  } else {
    // A dropped or recomputed slice keeps no complete blocks: no compression ratio to report.
    const std::string compression =
        r.compression  ? ratio
        : r.recomputed ? "- (not stored: recomputed by slice " + std::to_string(r.slice - 1) + ")"
                       : "- (complete blocks dropped)";
    std::snprintf(buf, sizeof buf,
                  "slice %d: %llu sections, %llu nodes in %s (compute %s, io %s), %.4g "
                  "nodes/s/core, compression %s, memory high water %s/rank, elapsed %s, eta %s",
                  r.slice, (unsigned long long)r.sections, (unsigned long long)r.nodes,
                  format_seconds(r.seconds).c_str(), format_seconds(r.compute_seconds).c_str(),
                  format_seconds(r.io_seconds).c_str(), r.nodes_per_second_per_core,
                  compression.c_str(), format_bytes(double(r.counters.resident_high_water)).c_str(),
                  format_seconds(r.elapsed).c_str(), format_seconds(r.eta).c_str());
    lines.push_back(buf);
  }
  std::string acts = "  worker time:";
  for (size_t a = 0; a < r.worker_seconds.size(); a++) {
    std::snprintf(buf, sizeof buf, " %s %.2fs", activity_name(activity_t(a)), r.worker_seconds[a]);
    acts += buf;
  }
  std::snprintf(buf, sizeof buf, ", idle %.1f%%", 100 * r.idle_fraction);
  acts += buf;
  const auto& c = r.counters;
  if (c.input_reads) {
    std::snprintf(buf, sizeof buf, ", input cache %llu of %llu reads",
                  (unsigned long long)c.input_cache_hits, (unsigned long long)c.input_reads);
    acts += buf;
  }
  if (r.given(slice_counter_field(&slice_counters_t::traffic_bytes_in))) {
    std::snprintf(buf, sizeof buf,
                  ", traffic %s in, %llu output blocks sent, %llu blocks through shared memory",
                  format_bytes(double(c.traffic_bytes_in)).c_str(),
                  (unsigned long long)c.output_blocks_sent,
                  (unsigned long long)c.shared_memory_blocks);
    acts += buf;
  }
  lines.push_back(acts);
  const auto& m = r.memory;
  std::snprintf(
      buf, sizeof buf,
      "  plan vs measured (max over ranks): store %s vs %s, ratio %.2f vs %s; arena live "
      "%s, touched %s of %s; partial blocks %s of %s (%llu compressed while incomplete, %llu "
      "evicted); resident %s of --memory %s",
      format_bytes(double(m.plan_store_bytes)).c_str(), format_bytes(double(c.store_bytes)).c_str(),
      m.plan_ratio, ratio, format_bytes(double(c.arena_live)).c_str(),
      format_bytes(double(c.arena_touched)).c_str(), format_bytes(double(c.arena_bytes)).c_str(),
      format_bytes(double(c.partial_bytes)).c_str(),
      format_bytes(double(c.partial_plan_bytes)).c_str(),
      (unsigned long long)c.partial_recompressions, (unsigned long long)c.partial_evictions,
      format_bytes(double(c.resident_high_water)).c_str(), format_bytes(double(m.limit)).c_str());
  std::string plan_line = buf;
  if (c.arena_lent_in_slice)
    plan_line += "; " + format_bytes(double(c.arena_lent_in_slice)) +
                 " of the pool lent by the arena during the slice";
  // Then every counter with words of its own in the table, in its order, when not zero.
  for (const auto& f : slice_counter_fields) {
    const uint64_t value = c.*f.value;
    if (!f.log || !value || !r.given(f)) continue;
    std::string words = f.log;
    const size_t at = words.find("{}");
    if (at != std::string::npos) words.replace(at, 2, format_counter(f, value));
    plan_line += "; " + words;
  }
  if (r.given(slice_counter_field(&slice_counters_t::line_bytes)))
    plan_line += "; lines " + format_bytes(double(c.line_bytes)) + " of " +
                 format_bytes(double(m.line_plan_bytes));
  lines.push_back(plan_line);
  if (r.over_memory())
    lines.push_back("  warning: slice " + std::to_string(r.slice) + ": resident " +
                    format_bytes(double(c.resident_high_water)) + " exceeds --memory " +
                    format_bytes(double(m.limit)));
  for (const auto& f : r.files) {
    if (f.seconds)
      lines.push_back("  wrote " + f.name + ": " + format_bytes(double(f.bytes.value_or(0))) +
                      " in " + format_seconds(*f.seconds));
  }
  for (size_t rank = 0; rank < r.per_rank_worker_seconds.size(); rank++) {
    std::string line = "  rank " + std::to_string(rank) + ":";
    for (size_t a = 0; a < r.per_rank_worker_seconds[rank].size(); a++) {
      std::snprintf(buf, sizeof buf, " %s %.2fs", activity_name(activity_t(a)),
                    r.per_rank_worker_seconds[rank][a]);
      line += buf;
    }
    lines.push_back(line);
  }
  return lines;
}

}  // namespace pentago
