// The extension module pentago._pentago (wrapped by the package pentago): registers the error
// types, so that C++ failures reach Python with their one-line messages, and every binding.
#include <pybind11/pybind11.h>

#include "bindings.h"
#include "pentago/util/error.h"

namespace py = pybind11;

PYBIND11_MODULE(_pentago, m) {
  m.doc() = "pentago: boards, the query path, the data files and labelled samples";
  // pybind11 tries translators newest first, so the more specific UsageError comes second.
  auto error = py::register_exception<pentago::pentago_error_t>(m, "Error", PyExc_RuntimeError);
  py::register_exception<pentago::usage_error_t>(m, "UsageError", error);
  pentago::python::bind_board(m);
  pentago::python::bind_query(m);
  pentago::python::bind_files(m);
  pentago::python::bind_sample(m);
}
