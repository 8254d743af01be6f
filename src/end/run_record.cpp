// Writing the run record DIR/run.jsonl (one JSON object per line, flushed at once).
#include "pentago/end/run_record.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <nlohmann/json.hpp>

#include "pentago/util/error.h"

namespace pentago {
namespace {

using json_t = nlohmann::ordered_json;

json_t record(const char* kind) {
  return json_t{{"record", kind}, {"version", run_record_version}};
}

template <class T>
json_t maybe(const std::optional<T>& value) {
  return value ? json_t(*value) : json_t(nullptr);
}

std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

json_t activities(const activity_times_t& times) {
  json_t j = json_t::object();
  for (size_t a = 0; a < times.size(); a++) j[activity_name(activity_t(a))] = times[a];
  return j;
}

// The plan's figures in the slice's memory object, each after the counter it follows there.
void add_plan_figures(json_t& memory, const slice_report_t& r, const std::string& counter) {
  if (counter == "resident_high_water") {
    memory["limit"] = r.memory.limit;
    memory["over_limit"] = r.over_memory();
    memory["plan_store_bytes"] = r.memory.plan_store_bytes;
  } else if (counter == "store_bytes") {
    memory["plan_ratio"] = r.memory.plan_ratio;
  } else if (counter == "line_bytes") {
    memory["line_plan_bytes"] = r.memory.line_plan_bytes;
  }
}

// The counters the table places at `place`, in its order (null where the run does not measure
// them), with the plan's figures among those of the memory object.
void add_counters(json_t& j, const slice_report_t& r, counter_place_t place) {
  for (const auto& f : slice_counter_fields) {
    if (f.place != place) continue;
    j[f.name] = r.given(f) ? json_t(r.counters.*f.value) : json_t(nullptr);
    if (place == counter_place_t::memory) add_plan_figures(j, r, f.name);
  }
}

json_t options_json(const engine_options_t& o) {
  json_t j = {{"threads", o.threads},
              {"dir", o.dir},
              {"save", o.save},
              {"level", o.level},
              {"memory", o.memory ? json_t(o.memory) : json_t(nullptr)},
              {"samples", o.samples},
              {"codec", o.codec_auto ? "auto" : block_codec_name(o.codec)},
              {"huge_pages", !o.pages                        ? "auto"
                             : *o.pages == page_size_t::huge ? "on"
                                                             : "off"},
              {"stop_after", o.stop_after >= 0 ? json_t(o.stop_after) : json_t(nullptr)},
              {"meaningless", o.meaningless},
              {"command_line", o.arguments}};
  if (o.program == engine_program_t::local) {
    j["quiet"] = !o.echo;
  } else {
    j["gather_limit"] = o.gather_limit;
    j["line_limit"] = o.line_limit;
    j["randomize"] = o.randomize;
    j["restart"] = o.restart.empty() ? json_t(nullptr) : json_t(o.restart);
    j["checkpoint_every"] = o.checkpoint_every;
    j["trace"] = o.trace.empty() ? json_t(nullptr) : json_t(o.trace);
    j["thread_mode"] = o.mode == thread_mode_t::funneled ? "funneled" : "multiple";
    j["shared_memory"] = o.shared_memory;
    j["log_all"] = o.log_all;
    j["per_rank_times"] = o.per_rank_times;
  }
  return j;
}

json_t plan_json(const run_plan_t& p, int save) {
  json_t slices = json_t::array();
  for (const auto& s : p.slices)
    slices.push_back({{"slice", s.slice},
                      {"sections", s.sections},
                      {"blocks", s.blocks},
                      {"nodes", s.nodes},
                      {"lines", s.lines},
                      {"computed", s.computed},
                      {"dropped", s.dropped},
                      {"recomputed", s.recomputed},
                      {"saved", s.computed && s.slice <= save},
                      {"held_nodes", s.held_nodes},
                      {"ratio", s.ratio},
                      {"store_bytes", s.store_bytes},
                      {"rank_store_bytes", s.rank_store_bytes},
                      {"pair_bytes", s.pair_bytes},
                      {"max_line_bytes", s.max_line_bytes}});
  return {{"fits", p.fits},
          {"reason", p.reason},
          {"memory", p.memory},
          {"needed", p.needed},
          {"top", p.top},
          {"first", p.first},
          {"bottom", p.bottom},
          {"top_ratio", p.top_ratio > 0 ? json_t(p.top_ratio) : json_t(nullptr)},
          {"top_elided_share", p.top_ratio > 0 ? json_t(p.top_elided_share) : json_t(nullptr)},
          {"elided_first", p.elided_first},
          {"ratio_scale", p.ratio_scale},
          {"fixed_bytes", p.fixed_bytes},
          {"store_peak", p.store_peak},
          {"peak_slice", p.peak_slice},
          {"arena_bytes", p.arena_bytes},
          {"line_bytes", p.line_bytes},
          {"min_line_bytes", p.min_line_bytes},
          {"partial_bytes", p.partial_bytes},
          {"raw_bytes", p.raw_bytes},
          {"pooled_bytes", p.pooled_bytes},
          {"total_nodes", p.total_nodes},
          {"slices", slices}};
}

}  // namespace

run_record_t::~run_record_t() {
  if (file_) std::fclose(file_);
}

void run_record_t::open(const std::string& path) {
  file_ = std::fopen(path.c_str(), "wx");
  if (!file_)
    throw pentago_error_t("cannot create run record " + path + ": " + std::strerror(errno));
  path_ = path;
}

void run_record_t::write(const std::string& line) {
  if (!file_) return;
  errno = 0;
  const bool ok = std::fputs(line.c_str(), file_) >= 0 && std::fputc('\n', file_) != EOF &&
                  std::fflush(file_) == 0;
  if (!ok) {
    const std::string reason = errno ? std::strerror(errno) : "write failed";
    std::fclose(file_);
    file_ = nullptr;
    throw pentago_error_t("cannot write run record " + path_ + ": " + reason);
  }
}

void run_record_t::header(const engine_options_t& o, const run_header_t& h,
                          const run_plan_t& plan) {
  json_t j = record("header");
  j["program"] = engine_program_name(o.program);
  j["root"] = o.root.str();
  j["root_slice"] = o.root.sum();
  j["top"] = h.top;
  j["bottom"] = h.bottom;
  j["save"] = o.save;
  j["samples"] = o.samples;
  j["ranks"] = h.ranks;
  j["threads"] = o.threads;
  j["workers"] = engine_workers(o);
  j["memory"] = h.memory;
  j["key"] = o.program == engine_program_t::local ? json_t(nullptr) : json_t(o.randomize);
  j["level"] = o.level;
  j["meaningless"] = o.meaningless;
  j["restart"] = h.restart_slice < 0 ? json_t(nullptr)
                                     : json_t{{"slice", h.restart_slice}, {"path", o.restart}};
  j["simd"] = h.simd;
  j["codec"] = block_codec_name(plan.codec);
  j["codec_auto"] = plan.codec_auto;
  j["partial_codec"] = block_codec_name(plan.partial_codec);
  j["pages"] = page_size_name(h.pages);
  j["page_probe"] = h.page_probe
                        ? json_t{{"base_seconds_per_gib", h.page_probe->base_seconds_per_gib},
                                 {"huge_seconds_per_gib", h.page_probe->huge_seconds_per_gib}}
                        : json_t(nullptr);
  j["started"] = utc_now();
  j["options"] = options_json(o);
  j["plan"] = plan_json(plan, o.save);
  write(j.dump());
}

void run_record_t::slice(const slice_report_t& r) {
  json_t j = record("slice");
  j["slice"] = r.slice;
  j["sections"] = r.sections;
  j["blocks"] = r.blocks;
  j["nodes"] = r.nodes;
  j["synthesized"] = r.synthesized;
  j["seconds"] = r.seconds;
  j["compute_seconds"] = r.compute_seconds;
  j["io_seconds"] = r.io_seconds;
  j["elapsed"] = r.elapsed;
  j["eta"] = r.eta;
  j["nodes_per_second_per_core"] = r.nodes_per_second_per_core;
  j["compression"] = maybe(r.compression);
  j["dropped"] = r.dropped;
  j["recomputed"] = r.recomputed;
  j["worker_seconds"] = activities(r.worker_seconds);
  j["idle_fraction"] = r.idle_fraction;
  add_counters(j, r, counter_place_t::slice);
  j["memory"] = json_t::object();
  add_counters(j["memory"], r, counter_place_t::memory);
  if (r.load_balance) {
    json_t lb = json_t::object();
    for (size_t i = 0; i < r.load_balance->ranges.size(); i++)
      lb[slice_report_t::load_names[i]] = {r.load_balance->ranges[i].first,
                                           r.load_balance->ranges[i].second};
    j["load_balance"] = lb;
  } else {
    j["load_balance"] = nullptr;
  }
  json_t files = json_t::array();
  for (const auto& f : r.files) {
    json_t file = {{"name", f.name}};
    if (f.samples) file["samples"] = *f.samples;
    if (f.bytes) file["bytes"] = *f.bytes;
    if (f.seconds) file["seconds"] = *f.seconds;
    files.push_back(file);
  }
  j["files"] = files;
  if (r.per_rank_worker_seconds.empty()) {
    j["per_rank_worker_seconds"] = nullptr;
  } else {
    json_t ranks = json_t::array();
    for (const auto& times : r.per_rank_worker_seconds)
      ranks.push_back(std::vector<double>(times.begin(), times.end()));
    j["per_rank_worker_seconds"] = ranks;
  }
  write(j.dump());
}

void run_record_t::checkpoint(int slice, const std::string& restart_command) {
  json_t j = record("checkpoint");
  j["slice"] = slice;
  j["restart_command"] = restart_command;
  write(j.dump());
}

void run_record_t::done(bool checkpoint, double seconds, uint64_t memory_high_water,
                        const std::vector<int>& slices,
                        const std::optional<first_touch_stats_t>& first_touch) {
  json_t j = record("done");
  j["status"] = checkpoint ? "checkpoint" : "complete";
  j["seconds"] = seconds;
  j["memory_high_water"] = memory_high_water;
  j["slices"] = slices;
  j["first_touch"] = nullptr;
  if (first_touch) {
    json_t& f = j["first_touch"];
    for (const page_size_t pages : {page_size_t::huge, page_size_t::base}) {
      const int i = int(pages);
      const std::string name = page_size_name(pages);
      f[name + "_bytes"] = first_touch->bytes[i];
      f[name + "_fresh_bytes"] = first_touch->fresh_bytes[i];
      f[name + "_seconds"] = first_touch->seconds[i];
    }
  }
  write(j.dump());
}

}  // namespace pentago
