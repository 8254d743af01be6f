// Python bindings of positions: pentago.Position and the text forms of boards (the decimal code
// with an optional 'm', the 36-character form and the 6x6 picture), all from the query layer.
#include "pentago/base/board.h"

#include <pybind11/pybind11.h>

#include "bindings.h"
#include "pentago/util/error.h"

namespace py = pybind11;

namespace pentago::python {

position_t position_argument(const py::handle& value) {
  if (py::isinstance<position_t>(value)) return value.cast<position_t>();
  if (py::isinstance<py::str>(value)) {
    // A str that UTF-8 cannot encode (a lone surrogate) is no board either.
    Py_ssize_t size = 0;
    const char* text = PyUnicode_AsUTF8AndSize(value.ptr(), &size);
    if (!text) {
      PyErr_Clear();
      throw usage_error_t(
          "a board is text of digits, '_', '.', '0', '1' and 'm'; this str is not "
          "even valid Unicode (a lone surrogate)");
    }
    return parse_position(std::string(text, size_t(size)));
  }
  if (py::isinstance<py::int_>(value) && !py::isinstance<py::bool_>(value)) {
    // Through the text form, so that a bad code gets the same message as on the command line.
    return parse_position(py::str(value).cast<std::string>());
  }
  throw usage_error_t("a board is a pentago.Position, a str or an int, not " +
                      std::string(py::str(py::type::of(value).attr("__name__"))));
}

void bind_board(py::module_& m) {
  py::class_<position_t>(m, "Position",
                         "A position in play: a board and whether its mover has placed and must "
                         "still rotate.")
      .def(py::init([](const py::object& text) { return position_argument(text); }),
           py::arg("board"),
           "From the decimal code (trailing 'm': to rotate), the 36-character form, the 6x6 "
           "picture, or an int board code. Raises pentago.UsageError for an impossible one.")
      .def(py::init([](board_t board, bool to_rotate) {
             return parse_position(std::to_string(board) + (to_rotate ? "m" : ""));
           }),
           py::arg("board"), py::arg("to_rotate"))
      .def_readonly("board", &position_t::board, "the packed board code (int)")
      .def_readonly("to_rotate", &position_t::to_rotate)
      .def_property_readonly("stones", [](const position_t& p) { return count_stones(p.board); })
      .def_property_readonly("code", &position_code, "decimal code, with 'm' when to rotate")
      .def_property_readonly(
          "compact",
          [](const position_t& p) { return compact_board(p.board) + (p.to_rotate ? "m" : ""); },
          "the 36-character form (rows top to bottom), with 'm' when to rotate")
      .def_property_readonly(
          "picture", [](const position_t& p) { return str_board(p.board); }, "the 6x6 picture")
      .def("__str__", &position_code)
      .def("__repr__",
           [](const position_t& p) { return "pentago.Position('" + position_code(p) + "')"; })
      .def("__eq__",
           [](const position_t& a, const py::object& b) {
             return py::isinstance<position_t>(b) && a == b.cast<position_t>();
           })
      .def("__hash__",
           [](const position_t& p) { return py::hash(py::make_tuple(p.board, p.to_rotate)); });
  m.def(
      "parse", [](const py::object& text) { return position_argument(text); }, py::arg("board"),
      "A Position from any text form (or an int code); raises pentago.UsageError.");
}

}  // namespace pentago::python
