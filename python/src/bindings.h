// Declarations shared by the files of the Python extension pentago._pentago: one function per
// group of bindings, called by the module definition, and the conversion of board arguments.
#pragma once
#include <pybind11/pybind11.h>

#include "pentago/query/query.h"

namespace pentago::python {

// A position from a Python argument: a Position, a str (any form parse_position reads) or an
// int (a board code to place).
position_t position_argument(const pybind11::handle& value);

void bind_board(pybind11::module_& m);   // Position and the text forms of boards
void bind_query(pybind11::module_& m);   // Engine: the query path
void bind_files(pybind11::module_& m);   // counts, sparse samples and slice files
void bind_sample(pybind11::module_& m);  // random positions with their values

}  // namespace pentago::python
