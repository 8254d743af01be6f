// Python bindings of the data files: counts-N.npy and sparse-N.npy as numpy arrays with named
// fields (read and validated by the data layer), and slice-N.pentago files as pentago.SliceFile
// with its sections and each block decoded into an array of (black wins, white wins) nodes.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <set>

#include "bindings.h"
#include "pentago/data/npy.h"
#include "pentago/data/supertensor.h"
#include "pentago/layout/line_mapping.h"
#include "pentago/util/error.h"

namespace py = pybind11;

namespace pentago::python {

namespace {

// A structured numpy dtype from (name, format) pairs, e.g. ("black", "(4,)<u8").
py::dtype record_dtype(std::initializer_list<std::pair<const char*, const char*>> fields) {
  py::list list;
  for (const auto& [name, format] : fields) list.append(py::make_tuple(name, format));
  return py::dtype::from_args(list);
}

// A 1-D array of `rows` records of dtype `dtype`, copied from row-major uint64 words.
py::array records(const py::dtype& dtype, uint64_t rows, const uint64_t* words) {
  py::array out(dtype, std::vector<py::ssize_t>{py::ssize_t(rows)});
  if (rows) std::memcpy(out.mutable_data(), words, rows * size_t(dtype.itemsize()));
  return out;
}

// A .npy file with exactly `cols` columns, or a one-line error naming the file.
npy_array_t read_table(const std::string& path, uint64_t cols, const char* what) {
  npy_array_t table;
  {
    py::gil_scoped_release release;
    table = read_npy(path);
  }
  if (table.cols != cols)
    throw pentago_error_t(path + ": a " + what + " file has " + std::to_string(cols) +
                          " columns, not " + std::to_string(table.cols));
  return table;
}

// The dtype of one node of a slice file: the disk convention of the data contract.
py::dtype node_dtype() { return record_dtype({{"black", "(4,)<u8"}, {"white", "(4,)<u8"}}); }

std::array<int, 4> block_coordinates(const section_t& section, const std::array<int, 4>& block) {
  const std::array<int, 4> blocks = section_blocks(section);
  for (int i = 0; i < 4; i++)
    if (block[i] < 0 || block[i] >= blocks[i])
      throw usage_error_t("block coordinate " + std::to_string(i) + " is " +
                          std::to_string(block[i]) + ", outside 0.." +
                          std::to_string(blocks[i] - 1) + " of section " + section.str());
  return block;
}

const section_t& checked_section(const supertensor_reader_t& file, int index) {
  const int count = int(file.sections().size());
  if (index < 0 || index >= count)
    throw usage_error_t(file.name() + ": no section " + std::to_string(index) + " (it has " +
                        std::to_string(count) + ")");
  return file.sections()[index];
}

}  // namespace

void bind_files(py::module_& m) {
  static_assert(sizeof(superinfo_t) == 64, "a node is 8 little-endian words");
  m.def(
      "read_counts",
      [](const std::string& path) {
        const npy_array_t table = read_table(path, 4, "counts");
        return records(record_dtype({{"section", "<u8"},
                                     {"black_wins", "<u8"},
                                     {"white_wins", "<u8"},
                                     {"total", "<u8"}}),
                       table.rows, table.data.data());
      },
      py::arg("path"),
      "counts-N.npy as an array with fields section, black_wins, white_wins, total.");
  m.def(
      "section_weight",
      [](uint64_t id) {
        const section_t section = section_t::from_sig(id);
        if (section.sig() != id || !section.valid())
          throw usage_error_t("invalid section id " + std::to_string(id));
        std::set<uint64_t> transforms;
        for (int g = 0; g < 8; g++) transforms.insert(section.transform(g).sig());
        return transforms.size();
      },
      py::arg("section"),
      "The number of distinct sections among the 8 global transforms of a section (by the id "
      "of a counts row): the weight of that row in whole-slice totals.");
  m.def(
      "read_sparse",
      [](const std::string& path) {
        const npy_array_t table = read_table(path, 9, "sparse");
        return records(record_dtype({{"board", "<u8"}, {"black", "(4,)<u8"}, {"white", "(4,)<u8"}}),
                       table.rows, table.data.data());
      },
      py::arg("path"),
      "sparse-N.npy as an array with fields board, black (4 words), white (4 words).");

  py::class_<supertensor_reader_t, std::shared_ptr<supertensor_reader_t>>(
      m, "SliceFile", "A slice-N.pentago file (or one-section supertensor), validated on open.")
      .def(py::init([](const std::string& path) {
             py::gil_scoped_release release;
             return std::make_shared<supertensor_reader_t>(path);
           }),
           py::arg("path"))
      .def_property_readonly("name", &supertensor_reader_t::name)
      .def_property_readonly("slice", &supertensor_reader_t::slice)
      .def_property_readonly(
          "sections",
          [](const supertensor_reader_t& file) {
            py::list out;
            for (const section_t& s : file.sections()) out.append(s.str());
            return out;
          },
          "section names, b0 w0 b1 w1 b2 w2 b3 w3 (stones per quadrant), in file order")
      .def(
          "shape",
          [](const supertensor_reader_t& file, int index) {
            return checked_section(file, index).shape();
          },
          py::arg("section"), "nodes per axis of a section (one axis per quadrant)")
      .def(
          "blocks",
          [](const supertensor_reader_t& file, int index) {
            return section_blocks(checked_section(file, index));
          },
          py::arg("section"), "blocks per axis of a section")
      .def(
          "block",
          [](const supertensor_reader_t& file, int index, const std::array<int, 4>& block) {
            const section_t& section = checked_section(file, index);
            const std::array<int, 4> b = block_coordinates(section, block);
            const block_t coordinates = {uint8_t(b[0]), uint8_t(b[1]), uint8_t(b[2]),
                                         uint8_t(b[3])};
            const std::array<int, 4> shape = block_shape(section, coordinates);
            std::vector<superinfo_t> nodes;
            {
              py::gil_scoped_release release;
              nodes = file.read_block(index, coordinates);
            }
            py::array out(node_dtype(), std::vector<py::ssize_t>(shape.begin(), shape.end()));
            std::memcpy(out.mutable_data(), nodes.data(), nodes.size() * sizeof(superinfo_t));
            return out;
          },
          py::arg("section"), py::arg("block"),
          "A block's nodes in C order as an array of the block's shape with fields black and "
          "white (4 words each: bit r = the board rotated by r is won by that colour).")
      .def(
          "board",
          [](const supertensor_reader_t& file, int index, const std::array<int, 4>& node) {
            const section_t& section = checked_section(file, index);
            const std::array<int, 4> shape = section.shape();
            for (int i = 0; i < 4; i++)
              if (node[i] < 0 || node[i] >= shape[i])
                throw usage_error_t("node index " + std::to_string(i) + " is " +
                                    std::to_string(node[i]) + ", outside 0.." +
                                    std::to_string(shape[i] - 1) + " of section " + section.str());
            return section_board(section, node);
          },
          py::arg("section"), py::arg("node"),
          "The board code at a node of a section (indices within the section, not the block).");
}

}  // namespace pentago::python
