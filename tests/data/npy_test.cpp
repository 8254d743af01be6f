// Tests of the .npy reader and writer: round trips, the published counts files, byte-exact
// rewriting of the 2013 header style, the accepted shape spellings and rejected headers.
#include "pentago/data/npy.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <random>

#include "pentago/data/file.h"
#include "pentago/layout/section.h"
#include "pentago/util/error.h"

using namespace pentago;

namespace {

std::string shared(const std::string& name) {
  return std::string(PENTAGO_SHARED_DATA) + "/" + name;
}

std::string temp_path(const std::string& name) {
  return testing::TempDir() + "/pentago-npy-" + std::to_string(getpid()) + "-" + name;
}

std::vector<uint8_t> with_dict(const std::string& dict, std::span<const uint64_t> body) {
  std::vector<uint8_t> bytes = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
  bytes.push_back(uint8_t(dict.size() & 0xff));
  bytes.push_back(uint8_t(dict.size() >> 8));
  bytes.insert(bytes.end(), dict.begin(), dict.end());
  const auto* p = reinterpret_cast<const uint8_t*>(body.data());
  bytes.insert(bytes.end(), p, p + 8 * body.size());
  return bytes;
}

uint64_t choose(int n, int k) {
  uint64_t r = 1;
  for (int i = 0; i < k; i++) r = r * uint64_t(n - i) / uint64_t(i + 1);
  return r;
}

TEST(npy, header_format) {
  for (uint64_t rows : {0ull, 1ull, 5ull, 330ull, 8239ull, 123456789012ull}) {
    for (uint64_t cols : {4ull, 9ull}) {
      const std::string h = npy_header(rows, cols);
      EXPECT_EQ(h.size() % 16, 0u);
      EXPECT_EQ(h.back(), '\n');
      EXPECT_EQ(h.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
      EXPECT_EQ(size_t(uint8_t(h[8]) | uint8_t(h[9]) << 8), h.size() - 10);
      const std::string shape = "(" + std::to_string(rows) + "," + std::to_string(cols) + "), }";
      EXPECT_NE(h.find("{'descr': '<u8', 'fortran_order': False, 'shape': " + shape),
                std::string::npos)
          << h;
      const auto info =
          parse_npy_header(std::span(reinterpret_cast<const uint8_t*>(h.data()), h.size()), "h");
      EXPECT_EQ(info.rows, rows);
      EXPECT_EQ(info.cols, cols);
      EXPECT_EQ(info.header_size, h.size());
    }
  }
  EXPECT_EQ(npy_header(330, 4).size(), 80u);
}

TEST(npy, round_trip) {
  std::mt19937_64 rng(7);
  for (uint64_t rows : {0, 1, 3, 1000}) {
    for (uint64_t cols : {1, 4, 9}) {
      std::vector<uint64_t> data(rows * cols);
      for (auto& x : data) x = rng();
      const std::string path = temp_path("round.npy");
      write_npy(path, rows, cols, data);
      const npy_array_t a = read_npy(path);
      EXPECT_EQ(a.rows, rows);
      EXPECT_EQ(a.cols, cols);
      EXPECT_EQ(a.data, data);
      EXPECT_EQ(read_file(path), npy_bytes(rows, cols, data));
      std::remove(path.c_str());
    }
  }
}

TEST(npy, published_counts) {
  for (int n = 0; n <= 35; n++) {
    SCOPED_TRACE(n);
    const npy_array_t a = read_npy(shared("counts-" + std::to_string(n) + ".npy"));
    ASSERT_EQ(a.cols, 4u);
    const auto sections = slice_sections(n);
    ASSERT_EQ(a.rows, sections.size());
    for (uint64_t r = 0; r < a.rows; r++) {
      const section_t s = sections[r];
      ASSERT_EQ(a(r, 0), s.sig());
      // Total = boards with these per-quadrant counts; wins never exceed it.
      uint64_t total = 1;
      for (auto& q : s.counts) total *= choose(9, q[0]) * choose(9 - q[0], q[1]);
      EXPECT_EQ(a(r, 3), total);
      EXPECT_LE(a(r, 1) + a(r, 2), a(r, 3));
    }
  }
  // The empty board is a black win.
  const npy_array_t zero = read_npy(shared("counts-0.npy"));
  EXPECT_EQ(zero.row(0)[1], 1u);
  EXPECT_EQ(zero.row(0)[2], 0u);
}

TEST(npy, rewrite_is_byte_exact) {
  for (int n : {35, 0, 5, 24}) {
    const std::string path = shared("counts-" + std::to_string(n) + ".npy");
    const auto original = read_file(path);
    const npy_array_t a = read_npy(path);
    EXPECT_EQ(npy_bytes(a.rows, a.cols, a.data), original) << path;
    const std::string out = temp_path("rewrite.npy");
    write_npy(out, a.rows, a.cols, a.data);
    EXPECT_EQ(read_file(out), original) << path;
    std::remove(out.c_str());
  }
}

TEST(npy, accepted_shape_spellings) {
  const std::vector<uint64_t> body = {1, 2, 3, 4, 5, 6};
  for (const char* shape : {"(3,2)", "(3, 2)", "(3,2,)", "(3, 2, )"}) {
    const std::string dict =
        std::string("{'descr': '<u8', 'fortran_order': False, 'shape': ") + shape + ", }   \n";
    const npy_array_t a = parse_npy(with_dict(dict, body), shape);
    EXPECT_EQ(a.rows, 3u);
    EXPECT_EQ(a.cols, 2u);
    EXPECT_EQ(a.data, body);
  }
  // Key order and the trailing comma of the dict do not matter.
  const npy_array_t b = parse_npy(
      with_dict("{\"shape\": (2, 3), \"fortran_order\": False, \"descr\": \"<u8\"}\n", body), "b");
  EXPECT_EQ(b.rows, 2u);
}

TEST(npy, rejects_bad_files) {
  const std::vector<uint64_t> body = {1, 2, 3, 4, 5, 6};
  const std::string good = "{'descr': '<u8', 'fortran_order': False, 'shape': (3,2), }\n";
  EXPECT_NO_THROW(parse_npy(with_dict(good, body), "good"));
  const std::vector<std::string> bad_dicts = {
      "{'descr': '<u4', 'fortran_order': False, 'shape': (3,2), }\n",
      "{'descr': '>u8', 'fortran_order': False, 'shape': (3,2), }\n",
      "{'descr': '<u8', 'fortran_order': True, 'shape': (3,2), }\n",
      "{'descr': '<u8', 'fortran_order': False, 'shape': (6,), }\n",
      "{'descr': '<u8', 'fortran_order': False, 'shape': (1,3,2), }\n",
      "{'descr': '<u8', 'fortran_order': False, 'shape': (3,2) }",  // no newline
      "{'descr': '<u8', 'fortran_order': False, 'shape': (3,2), 'x': 1, }\n",
      "{'descr': '<u8', 'fortran_order': False, }\n",
      "{'descr': '<u8', 'descr': '<u8', 'fortran_order': False, 'shape': (3,2), }\n",
      "{'descr': '<u8', 'fortran_order': False, 'shape': (3,2x), }\n",
      "{'descr': '<u8', 'fortran_order': False, 'shape': (99999999999999999999,2), }\n",
      "{'descr': '<u8', 'fortran_order': False, 'shape': (3,2), } x\n",
      "{'descr: '<u8', 'fortran_order': False, 'shape': (3,2), }\n",
      "",
  };
  for (const auto& dict : bad_dicts)
    EXPECT_THROW(parse_npy(with_dict(dict, body), "bad"), pentago::pentago_error_t) << dict;

  auto bytes = with_dict(good, body);
  auto mutate = [&](auto f) {
    auto copy = bytes;
    f(copy);
    return copy;
  };
  EXPECT_THROW(parse_npy(mutate([](auto& b) { b[0] = 0x92; }), "magic"), pentago::pentago_error_t);
  EXPECT_THROW(parse_npy(mutate([](auto& b) { b[6] = 3; }), "version"), pentago::pentago_error_t);
  EXPECT_THROW(parse_npy(mutate([](auto& b) { b[8] = 0xff; }), "length"), pentago::pentago_error_t);
  EXPECT_THROW(parse_npy(mutate([](auto& b) { b.pop_back(); }), "short"), pentago::pentago_error_t);
  EXPECT_THROW(parse_npy(mutate([](auto& b) { b.push_back(0); }), "long"),
               pentago::pentago_error_t);
  EXPECT_THROW(parse_npy(mutate([](auto& b) { b.resize(9); }), "truncated"),
               pentago::pentago_error_t);
  EXPECT_THROW(parse_npy({}, "empty"), pentago::pentago_error_t);

  // The file reader reports the file name.
  const std::string path = temp_path("bad.npy");
  write_file(path, mutate([](auto& b) { b.pop_back(); }));
  try {
    read_npy(path);
    ADD_FAILURE() << "no error";
  } catch (const pentago::pentago_error_t& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
  EXPECT_THROW(read_npy(temp_path("missing.npy")), pentago::pentago_error_t);
}

}  // namespace
