// Python bindings of the query path: pentago.Engine holds a query_engine (databases opened
// once, answers cached) and returns each answer as the JSON text pentago-lookup --json prints,
// which the package turns into dicts. The GIL is released while databases open and positions
// are solved.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>

#include "bindings.h"
#include "pentago/mid/midgame.h"
#include "pentago/util/error.h"

namespace py = pybind11;

namespace pentago::python {

namespace {

// The options of pentago-lookup's --db, --threads, --cache, --distance-from (37: none, as
// --no-distance) and --midgame-memory, checked as it checks them.
query_options_t engine_options(const std::vector<std::string>& db, int threads,
                               uint64_t cache_bytes, int distance_from, uint64_t midgame_memory) {
  // pentago-lookup's bounds of --threads and --cache.
  if (threads < 0 || threads > 1024)
    throw usage_error_t("threads must be 0 (every core) to 1024, not " + std::to_string(threads));
  if (cache_bytes == 0) throw usage_error_t("cache_bytes must be positive");
  if (distance_from < midgame_min_stones || distance_from > 37)
    throw usage_error_t("distance_from must lie in [" + std::to_string(midgame_min_stones) +
                        ", 37] (37: no distances)");
  query_options_t options;
  options.databases = db;
  options.threads = threads;
  options.block_cache_bytes = cache_bytes;
  options.distance_min_stones = distance_from;
  options.midgame_memory = midgame_memory;
  return options;
}

// The answer, with the GIL released; between the layers of a midgame solve Python's signal
// handlers run, so Ctrl-C (KeyboardInterrupt) stops the solve within a layer.
position_answer_t interruptible_answer(query_engine_t& engine, position_t position) {
  bool interrupted = false;
  const auto cancelled = [&] {
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() == 0) return false;
    interrupted = true;  // the exception stays set on this thread
    return true;
  };
  std::optional<position_answer_t> answer;
  {
    py::gil_scoped_release release;
    try {
      answer = engine.answer(position, cancelled);
    } catch (const midgame_cancelled_t&) {
      if (!interrupted) throw;
    }
  }
  if (interrupted) throw py::error_already_set();
  return std::move(*answer);
}

}  // namespace

void bind_query(py::module_& m) {
  py::class_<query_engine_t>(m, "Engine",
                             "The query path of pentago-lookup and pentago-serve: databases "
                             "(directories or http(s) URLs), the midgame solver and the rules.")
      .def(py::init([](const std::vector<std::string>& db, int threads, uint64_t cache_bytes,
                       int distance_from, uint64_t midgame_memory) {
             const query_options_t options =
                 engine_options(db, threads, cache_bytes, distance_from, midgame_memory);
             py::gil_scoped_release release;
             return std::make_unique<query_engine_t>(options);
           }),
           py::arg("db") = std::vector<std::string>{}, py::arg("threads") = 0,
           py::arg("cache_bytes") = uint64_t(128) << 20,
           py::arg("distance_from") = query_options_t{}.distance_min_stones,
           py::arg("midgame_memory") = uint64_t(0),
           "distance_from: midgame answers from this many stones on carry distances (15-36; 37:\n"
           "none); midgame_memory: the midgame workspace bound in bytes (0: from the machine).")
      .def(
          "answer_json",
          [](query_engine_t& engine, const py::object& board) {
            return answer_json(interruptible_answer(engine, position_argument(board)));
          },
          py::arg("board"), "The answer as one line of JSON (pentago-lookup --json).")
      .def(
          "value",
          [](query_engine_t& engine, const py::object& board) {
            return interruptible_answer(engine, position_argument(board)).value;
          },
          py::arg("board"), "-1, 0 or 1: the value for the player to move.")
      .def_property_readonly("slices", &query_engine_t::slices, "the slices the databases hold");
}

}  // namespace pentago::python
