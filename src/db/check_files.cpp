// pentago-check's file checks: the files of a run directory by kind (unexpected ones are
// failures), and the run record DIR/run.jsonl against them: it must be whole and finished,
// every file it lists must be there with its recorded size, and every counts, sparse and slice
// file there must be one it lists.
#include <algorithm>
#include <filesystem>
#include <regex>

#include "pentago/db/check_context.h"
#include "pentago/db/run_record.h"
#include "pentago/util/error.h"

namespace pentago::check_detail {
namespace {

namespace fs = std::filesystem;

std::string counts_name(int n) { return "counts-" + std::to_string(n) + ".npy"; }
std::string sparse_name(int n) { return "sparse-" + std::to_string(n) + ".npy"; }
std::string pentago_name(int n) { return "slice-" + std::to_string(n) + ".pentago"; }

}  // namespace

bool checker_t::list_files(directory_contents_t& contents) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    report.fail("directory", !fs::exists(fs::symlink_status(dir, ec)) ? "no such directory"
                             : ec ? "cannot read: " + ec.message()
                                  : "not a directory");
    return false;
  }
  static const std::regex pentago_file(R"(.*\.pentago)"),
      allowed(
          R"(log|log-\d+|history.*|output-.*|.*\.pbs|.*\.sh|slurm-.*\.out|.*\.o\d+|.*\.e\d+|\d+\.(cobaltlog|error|output)|(restart|checkpoint).*)");
  run_directory_listing_t listing;
  try {
    listing = scan_run_directory(dir);
  } catch (const pentago_error_t& e) {
    report.fail("directory", e.what());
  }
  contents.slices = listing.slices;
  contents.markers = listing.meaningless_markers;
  for (const auto& entry : listing.others) {
    const std::string name = entry.path().filename().string(), path = entry.path().string();
    if (name == "plots" && entry.is_directory(ec)) {
      // scripts/plot-run's pictures of the run; not part of the solver's output.
    } else if (!entry.is_regular_file(ec)) {
      report.fail("strange files", "unexpected non-file " + name);
    } else if (name == "run.jsonl") {
      contents.has_record = true;
    } else if (std::regex_match(name, pentago_file)) {
      contents.other_pentago.push_back(path);
    } else if (!std::regex_match(name, allowed)) {
      report.fail("strange files", "unexpected file " + name);
    }
  }
  return true;
}

record_expectations_t checker_t::check_record(const directory_contents_t& contents) {
  record_expectations_t expect;
  const std::string kind = "run record";
  if (!contents.has_record) {
    if (options.require_record)
      report.fail(kind,
                  "no run.jsonl (the record every pentago-endgame run writes): a directory "
                  "without one can be checked by its files alone with --no-record");
    else
      say("  no run.jsonl: files checked by their contents alone (--no-record)");
    return expect;
  }
  recorded_run_t run;
  try {
    run = read_run_record(dir + "/run.jsonl");
  } catch (const std::exception& e) {
    report.fail(kind, e.what());
    return expect;
  }
  for (const auto& problem : run.problems) report.fail(kind, problem);
  if (run.headers.empty()) {
    report.fail(kind, "run.jsonl has no header record");
    return expect;
  }
  const recorded_header_t& header = run.headers.back();
  if (!run.done) {
    report.fail(kind, "run.jsonl has no done record after its last header (line " +
                          std::to_string(header.line) +
                          "): the run did not finish (killed, or still running)");
  } else if (run.done->status == "checkpoint") {
    report.note("the run stopped at a checkpoint" +
                (run.checkpoint ? " after slice " + std::to_string(*run.checkpoint) : "") +
                "; its restart command is in run.jsonl");
  }

  // The header: samples per section and the meaningless slice.
  if (options.samples < 0 && header.samples >= 0) {
    expected_samples = int(std::min<int64_t>(header.samples, 1 << 30));
    samples_from_run = true;
  }
  if (header.meaningless > 0) {
    if (!meaningless)
      meaningless = header.meaningless;
    else if (*meaningless != header.meaningless)
      report.fail(kind, "run.jsonl says meaningless " + std::to_string(header.meaningless) +
                            " but the marker is meaningless-" + std::to_string(*meaningless));
  }

  // The sections the header's root gives each recorded slice.
  if (!run.slices.empty()) {
    int highest = 0;
    for (const auto& s : run.slices) highest = std::max(highest, s.slice);
    try {
      const section_t root = section_t::parse(header.root);
      const auto descendants = descendant_sections(root, std::min(highest, 35));
      for (const auto& s : run.slices)
        if (s.slice < int(descendants.size())) expect.root_sections[s.slice] = descendants[s.slice];
    } catch (const std::exception& e) {
      report.fail(kind, "run.jsonl line " + std::to_string(header.line) + ": root '" + header.root +
                            "': " + e.what());
    }
  }

  // Every recorded file is there, with its recorded size; slices <= save have slice files.
  for (const auto& s : run.slices) {
    if (s.slice > header.save) continue;
    const std::string name = pentago_name(s.slice);
    if (std::none_of(s.files.begin(), s.files.end(),
                     [&](const recorded_file_t& f) { return f.name == name; }))
      report.fail(kind, "run.jsonl line " + std::to_string(s.line) + ": " + slice_name(s.slice) +
                            " is at or below --save " + std::to_string(header.save) +
                            " but its record lists no " + name);
  }
  std::set<std::string> recorded;
  std::vector<int> order;  // the slices of the last run (after the last header)
  for (const auto& s : run.slices) {
    if (s.line > header.line) order.push_back(s.slice);
    expect.computed.insert(s.slice);
    expect.sections[s.slice] = s.sections;
    for (const auto& file : s.files) {
      recorded.insert(file.name);
      expect.files.insert(file.name);
      const fs::path path = fs::path(dir) / file.name;
      std::error_code ec;
      const std::string what = slice_name(s.slice) + ": " + file.name + " (run.jsonl line " +
                               std::to_string(s.line) + ")";
      if (!fs::is_regular_file(path, ec)) {
        report.fail("missing files", slice_name(s.slice) + ": " + file.name +
                                         " is missing, but run.jsonl line " +
                                         std::to_string(s.line) + " says the run wrote it");
        continue;
      }
      const uint64_t size = fs::file_size(path, ec);
      if (file.bytes && !ec && size != *file.bytes) {
        report.fail("file sizes", what + " is " + std::to_string(size) +
                                      " bytes, but the run wrote " + std::to_string(*file.bytes));
        continue;
      }
      result.record_files++;
    }
  }
  if (run.done && run.done->slices != order) {
    std::string listed, seen;
    for (const int n : run.done->slices) listed += " " + std::to_string(n);
    for (const int n : order) seen += " " + std::to_string(n);
    report.fail(kind, "run.jsonl's done record lists slices" + listed +
                          " but the run's slice records are" + (seen.empty() ? " none" : seen));
  }

  // Every counts, sparse and slice file here is one the record lists (a restart's input too).
  std::error_code ec;
  const fs::path here = fs::weakly_canonical(fs::path(dir), ec);
  for (const auto& h : run.headers)
    if (!h.restart_path.empty() &&
        fs::weakly_canonical(fs::path(h.restart_path).parent_path(), ec) == here && !ec)
      recorded.insert(fs::path(h.restart_path).filename().string());
  for (const auto& [n, paths] : contents.slices)
    for (const auto& [path, name] :
         {std::pair{paths.counts, counts_name(n)}, std::pair{paths.sparse, sparse_name(n)},
          std::pair{paths.slice, pentago_name(n)}})
      if (!path.empty() && !recorded.count(name))
        report.fail("unrecorded files", slice_name(n) + ": " + name +
                                            " is not in run.jsonl (no slice record lists it)");
  return expect;
}

}  // namespace pentago::check_detail
