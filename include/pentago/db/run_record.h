// Reader of a run directory's machine-readable record DIR/run.jsonl (one JSON object per line:
// a header, one object per computed slice, a checkpoint, a done record; schema in
// docs/tools.md), for pentago-check. Only the fields the check needs are kept.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pentago {

struct recorded_file_t {
  std::string name;                // a file name in the run directory
  std::optional<uint64_t> bytes;   // its size, where the record gives one
  std::optional<int64_t> samples;  // samples per section of a sparse file
};

struct recorded_slice_t {
  int line = 0;  // line number in run.jsonl
  int slice = -1;
  uint64_t sections = 0, nodes = 0;
  bool dropped = false;
  std::vector<recorded_file_t> files;
};

// One run appended to the record (a restart into the same directory appends another).
struct recorded_header_t {
  int line = 0;
  std::string program, root;
  int top = -1, bottom = -1, save = -1, meaningless = 0;
  int64_t samples = -1;
  std::string restart_path;  // empty unless the run restarted from a slice file
};

struct recorded_done_t {
  int line = 0;
  std::string status;  // "complete" or "checkpoint"
  std::vector<int> slices;
};

struct recorded_run_t {
  std::vector<recorded_header_t> headers;
  std::vector<recorded_slice_t> slices;  // of every run, in order
  // The done record of the last run, if its last line is one (else the run did not finish).
  std::optional<recorded_done_t> done;
  std::optional<int> checkpoint;      // slice of the last checkpoint record
  std::vector<std::string> problems;  // "run.jsonl line K: reason", one per bad line
};

// Reads DIR/run.jsonl. Throws pentago::error (one line) if it is not a readable regular file;
// lines that are not records of the schema become problems, the rest is still read.
recorded_run_t read_run_record(const std::string& path);

}  // namespace pentago
