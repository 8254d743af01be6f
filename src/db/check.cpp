// pentago-check's verification of one run directory, in order: files and run record
// (check_files.cpp), then slice by slice from the top counts, samples and slice file
// (check_counts.cpp, check_samples.cpp, check_slice_file.cpp), the parent/child structure,
// other .pentago files, and --integrity (check_integrity.cpp).
#include "pentago/db/check.h"

#include <algorithm>
#include <exception>
#include <thread>

#include "pentago/data/supertensor.h"
#include "pentago/db/check_context.h"
#include "pentago/util/error.h"

namespace pentago {

check_result_t check_run_directory(const std::string& dir, const check_options_t& options,
                                   const std::function<void(const std::string&)>& print) {
  using namespace check_detail;
  if (options.fraction <= 0 || options.fraction > 1)
    throw usage_error_t("--fraction must be in (0, 1]");
  check_result_t result;
  reporter_t report(dir, options.max_reports, result);
  const int threads = options.threads > 0 ? options.threads
                                          : int(std::max(1u, std::thread::hardware_concurrency()));
  checker_t c{dir, options, report, result, print, threads};

  directory_contents_t contents;
  if (!c.list_files(contents)) {
    report.finish();
    return result;
  }
  if (contents.markers.size() > 1) report.fail("meaningless", "more than one meaningless-N marker");
  if (contents.markers.size() == 1) c.meaningless = contents.markers[0];
  if (options.samples >= 0) {
    c.expected_samples = options.samples;
    c.samples_from_run = true;
  }
  const record_expectations_t recorded = c.check_record(contents);
  if (c.meaningless)
    c.say("  meaningless mode: slice " + std::to_string(*c.meaningless) +
          " holds meaningless values");
  if (!options.data.empty() && !c.meaningless)
    c.say("  counts compared with the published ones in " + options.data);
  if (contents.slices.empty() && !report.count("missing files"))
    report.fail("empty", "no counts, sparse or slice files");

  // Slice by slice, from the top (the order the solver writes them).
  std::map<int, std::vector<section_t>> section_lists;
  for (auto it = contents.slices.rbegin(); it != contents.slices.rend(); ++it) {
    const int n = it->first;
    const slice_files_t& paths = it->second;
    const bool recorded_slice = recorded.computed.count(n) > 0;  // missing files reported
    std::string summary = "  " + slice_name(n) + ":";
    if (n == 36 || (c.meaningless && n > *c.meaningless)) {
      report.fail("slices", slice_name(n) + ": no such slice in this run");
      continue;
    }
    npy_array_t counts;
    bool counts_ok = false;
    std::vector<section_t> sections;
    if (!paths.counts.empty()) {
      sections = c.check_counts(n, paths.counts, counts, counts_ok);
      if (counts_ok) {
        section_lists[n] = sections;
        summary += " " + plural(sections.size(), "section");
        const auto r = recorded.sections.find(n);
        if (r != recorded.sections.end() && r->second != sections.size())
          report.fail("run record", slice_name(n) + ": counts-" + std::to_string(n) + ".npy has " +
                                        plural(sections.size(), "section") +
                                        ", but run.jsonl says " + std::to_string(r->second));
        const auto by_root = recorded.root_sections.find(n);
        if (by_root != recorded.root_sections.end() && by_root->second != sections)
          report.fail("run record", slice_name(n) + ": counts-" + std::to_string(n) +
                                        ".npy's sections are not those of the root in run.jsonl");
        c.compare_with_published(n, counts);
      }
    } else if (!recorded_slice) {
      report.note(slice_name(n) + ": no counts file");
    }
    bool sections_known = counts_ok;
    if (!counts_ok && !paths.slice.empty()) {
      try {
        sections = supertensor_reader_t(paths.slice).sections();
        sections_known = true;
      } catch (const std::exception&) {
      }
    }
    std::vector<sample_row_t> samples;
    if (!paths.sparse.empty()) {
      samples = c.check_sparse(n, paths.sparse, sections_known ? &sections : nullptr);
      summary += ", " + std::to_string(samples.size()) + " samples";
    } else if (!paths.counts.empty() && !recorded_slice) {
      report.note(slice_name(n) + ": no sparse file");
    }
    if (!paths.slice.empty()) {
      c.check_slice_file(n, paths, sections, counts_ok ? &counts : nullptr, samples, summary);
    } else if (!paths.index.empty() && !recorded.files.count(slice_file_name(n))) {
      // (a recorded slice file that is gone is already reported missing)
      report.fail("slices", slice_name(n) + ": index sidecar without its slice file");
    }
    c.search_samples(n, samples, summary);
    c.say(summary);
  }
  c.check_structure(section_lists);

  // Other .pentago files (empty.pentago, restart copies): headers and every block.
  for (const auto& path : contents.other_pentago) c.check_other_pentago_file(path);
  for (const int n : options.integrity) c.check_integrity(n);
  report.finish();
  return result;
}

}  // namespace pentago
