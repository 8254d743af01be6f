// Python bindings of the query path: pentago.Engine holds a query_engine (databases opened
// once, answers cached) and returns each answer as the JSON text pentago-lookup --json prints,
// which the package turns into dicts. The GIL is released while databases open and positions
// are solved.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bindings.h"
#include "pentago/util/error.h"

namespace py = pybind11;

namespace pentago::python {

namespace {

query_options engine_options(const std::vector<std::string>& db, int threads,
                             uint64_t cache_bytes) {
  query_options options;
  options.databases = db;
  options.threads = threads;
  options.block_cache_bytes = cache_bytes;
  return options;
}

}  // namespace

void bind_query(py::module_& m) {
  py::class_<query_engine>(m, "Engine",
                           "The query path of pentago-lookup and pentago-serve: databases "
                           "(directories or http(s) URLs), the midgame solver and the rules.")
      .def(py::init([](const std::vector<std::string>& db, int threads, uint64_t cache_bytes) {
             if (threads < 0) throw usage_error("threads must be 0 (every core) or more");
             const query_options options = engine_options(db, threads, cache_bytes);
             py::gil_scoped_release release;
             return std::make_unique<query_engine>(options);
           }),
           py::arg("db") = std::vector<std::string>{}, py::arg("threads") = 0,
           py::arg("cache_bytes") = uint64_t(128) << 20)
      .def(
          "answer_json",
          [](query_engine& engine, const py::object& board) {
            const position_t position = position_argument(board);
            py::gil_scoped_release release;
            return answer_json(engine.answer(position));
          },
          py::arg("board"), "The answer as one line of JSON (pentago-lookup --json).")
      .def(
          "value",
          [](query_engine& engine, const py::object& board) {
            const position_t position = position_argument(board);
            py::gil_scoped_release release;
            return engine.answer(position).value;
          },
          py::arg("board"), "-1, 0 or 1: the value for the player to move.")
      .def_property_readonly("slices", &query_engine::slices, "the slices the databases hold");
}

}  // namespace pentago::python
