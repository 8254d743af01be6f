// Reader of DIR/run.jsonl (see run_record.h): each line parsed on its own with nlohmann-json;
// a line that is not a version-1 record of a known kind, or lacks a field the check needs,
// becomes one problem line and is skipped.
#include "pentago/db/run_record.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "pentago/util/error.h"

namespace pentago {
namespace {

using json_t = nlohmann::json;

// A field's value of the expected kind; throws a one-line reason otherwise.
int64_t integer(const json_t& object, const char* key, int64_t lo, int64_t hi) {
  const auto it = object.find(key);
  if (it == object.end()) throw pentago_error_t(std::string("no '") + key + "'");
  if (!it->is_number_integer() || it->get<int64_t>() < lo || it->get<int64_t>() > hi)
    throw pentago_error_t(std::string("'") + key + "' is " + it->dump() + ", not an integer in [" +
                          std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return it->get<int64_t>();
}

std::string text(const json_t& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_string())
    throw pentago_error_t(std::string("no text '") + key + "'");
  return it->get<std::string>();
}

recorded_header_t read_header(const json_t& r) {
  recorded_header_t h;
  h.program = text(r, "program");
  h.root = text(r, "root");
  h.top = int(integer(r, "top", 0, 36));
  h.bottom = int(integer(r, "bottom", 0, 36));
  h.save = int(integer(r, "save", -1, 36));
  h.samples = integer(r, "samples", 0, INT64_MAX);
  h.meaningless = int(integer(r, "meaningless", 0, 36));
  const auto restart = r.find("restart");
  if (restart != r.end() && !restart->is_null()) {
    if (!restart->is_object()) throw pentago_error_t("'restart' is neither null nor an object");
    h.restart_path = text(*restart, "path");
  }
  return h;
}

recorded_slice_t read_slice(const json_t& r) {
  recorded_slice_t s;
  s.slice = int(integer(r, "slice", 0, 36));
  s.sections = uint64_t(integer(r, "sections", 0, INT64_MAX));
  s.nodes = uint64_t(integer(r, "nodes", 0, INT64_MAX));
  const auto dropped = r.find("dropped");
  s.dropped = dropped != r.end() && dropped->is_boolean() && dropped->get<bool>();
  const auto files = r.find("files");
  if (files == r.end() || !files->is_array()) throw pentago_error_t("no 'files' list");
  for (const auto& f : *files) {
    if (!f.is_object()) throw pentago_error_t("a 'files' entry is not an object");
    recorded_file_t file;
    file.name = text(f, "name");
    if (file.name.empty() || file.name.find('/') != std::string::npos || file.name[0] == '.')
      throw pentago_error_t("file name '" + file.name + "' is not a plain file name");
    if (f.contains("bytes")) file.bytes = uint64_t(integer(f, "bytes", 0, INT64_MAX));
    if (f.contains("samples")) file.samples = integer(f, "samples", 0, INT64_MAX);
    s.files.push_back(std::move(file));
  }
  return s;
}

recorded_done_t read_done(const json_t& r) {
  recorded_done_t d;
  d.status = text(r, "status");
  if (d.status != "complete" && d.status != "checkpoint")
    throw pentago_error_t("status '" + d.status + "' is neither complete nor checkpoint");
  const auto slices = r.find("slices");
  if (slices == r.end() || !slices->is_array()) throw pentago_error_t("no 'slices' list");
  for (const auto& n : *slices) {
    if (!n.is_number_integer() || n.get<int64_t>() < 0 || n.get<int64_t>() > 36)
      throw pentago_error_t("'slices' holds " + n.dump() + ", not a slice number");
    d.slices.push_back(n.get<int>());
  }
  return d;
}

}  // namespace

recorded_run_t read_run_record(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) throw pentago_error_t(path + ": not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw pentago_error_t(path + ": cannot open");
  recorded_run_t run;
  std::string line;
  bool last_was_done = false;
  for (int number = 1; std::getline(in, line); number++) {
    const std::string where = "run.jsonl line " + std::to_string(number) + ": ";
    last_was_done = false;
    try {
      const json_t r = json_t::parse(line);
      if (!r.is_object()) throw pentago_error_t("not a JSON object");
      const std::string kind = text(r, "record");
      if (integer(r, "version", 0, INT64_MAX) != 1)
        throw pentago_error_t("version " + r["version"].dump() + " (this tool reads version 1)");
      if (kind == "header") {
        run.headers.push_back(read_header(r));
        run.headers.back().line = number;
        run.done.reset();
        run.checkpoint.reset();
      } else if (run.headers.empty()) {
        throw pentago_error_t("a " + kind + " record before any header");
      } else if (kind == "slice") {
        run.slices.push_back(read_slice(r));
        run.slices.back().line = number;
      } else if (kind == "checkpoint") {
        run.checkpoint = int(integer(r, "slice", 0, 36));
      } else if (kind == "done") {
        run.done = read_done(r);
        run.done->line = number;
        last_was_done = true;
      } else {
        throw pentago_error_t("unknown record '" + kind + "'");
      }
    } catch (const std::exception& e) {
      // json_t::parse_error messages are one line; keep them short.
      std::string reason = e.what();
      if (reason.size() > 200) reason = reason.substr(0, 200) + "...";
      run.problems.push_back(where + reason);
    }
  }
  if (in.bad()) throw pentago_error_t(path + ": read error");
  if (!last_was_done) run.done.reset();
  return run;
}

}  // namespace pentago
