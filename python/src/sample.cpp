// Python binding of labelled samples: random unfinished positions (random_positions.h) valued
// through the query path, as numpy arrays. Distances are included when the query layer's
// answers carry them (a "distance" field in the JSON of an answer).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <nlohmann/json.hpp>

#include "bindings.h"
#include "random_positions.h"

namespace py = pybind11;

namespace pentago::python {

namespace {

struct labelled_sample_t {
  std::vector<board_t> boards;
  std::vector<int8_t> values;
  std::vector<int32_t> distances;  // -1 where unknown
  bool any_distance = false;
};

labelled_sample_t label(query_engine_t& engine, std::vector<board_t> boards) {
  labelled_sample_t out;
  out.boards = std::move(boards);
  for (const board_t board : out.boards) {
    const position_answer_t answer = engine.answer(position_t{board, false});
    out.values.push_back(int8_t(answer.value));
    const auto json = nlohmann::json::parse(answer_json(answer));
    const auto distance = json.find("distance");
    if (distance != json.end() && distance->is_number_integer()) {
      out.distances.push_back(distance->get<int32_t>());
      out.any_distance = true;
    } else {
      out.distances.push_back(-1);
    }
  }
  return out;
}

template <class T>
py::array_t<T> to_numpy(const std::vector<T>& values) {
  py::array_t<T> out(py::ssize_t(values.size()));
  std::copy(values.begin(), values.end(), out.mutable_data());
  return out;
}

}  // namespace

void bind_sample(py::module_& m) {
  m.def(
      "random_positions",
      [](int stones, uint64_t count, uint64_t seed) {
        std::vector<board_t> boards;
        {
          py::gil_scoped_release release;
          boards = random_positions(stones, count, seed);
        }
        return to_numpy(boards);
      },
      py::arg("stones"), py::arg("count"), py::arg("seed") = 0,
      "Board codes of uniformly random unfinished positions to place (see pentago.sample).");
  m.def(
      "sample_with",
      [](query_engine_t& engine, int stones, uint64_t count, uint64_t seed) {
        labelled_sample_t sample;
        {
          py::gil_scoped_release release;
          sample = label(engine, random_positions(stones, count, seed));
        }
        py::dict out;
        out["boards"] = to_numpy(sample.boards);
        out["values"] = to_numpy(sample.values);
        if (sample.any_distance) out["distances"] = to_numpy(sample.distances);
        return out;
      },
      py::arg("engine"), py::arg("stones"), py::arg("count"), py::arg("seed") = 0,
      "Random positions valued by an Engine: a dict of arrays boards (uint64), values (int8: "
      "-1 loss, 0 tie, 1 win for the player to move) and, when the answers carry them, "
      "distances (int32, -1 where unknown).");
}

}  // namespace pentago::python
