// Tests of the .pentago slice format: the published slices 0-2 (headers, values, counts,
// sidecar indexes, bit-exact recompression), random round trips through the serial writer,
// and corrupted files that must fail with pentago::error.
#include "pentago/data/supertensor.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <random>
#include <thread>

#include "pentago/data/compress.h"
#include "pentago/data/npy.h"
#include "pentago/layout/quadrant_states.h"
#include "pentago/util/error.h"

using namespace pentago;

namespace {

std::string shared(const std::string& name) {
  return std::string(PENTAGO_SHARED_DATA) + "/" + name;
}
std::string slice_path(int n) { return shared("slice-" + std::to_string(n) + ".pentago"); }

std::string temp_path(const std::string& name) {
  return testing::TempDir() + "/pentago-st-" + std::to_string(getpid()) + "-" + name;
}

supertensor_reader_t memory_reader(const std::vector<uint8_t>& bytes, const std::string& name) {
  return supertensor_reader_t(std::make_shared<const input_file_t>(name, bytes));
}

// Reads every index and every block; returns the number of nodes.
uint64_t read_everything(const supertensor_reader_t& reader) {
  uint64_t nodes = 0;
  reader.load_indexes();
  for (int s = 0; s < int(reader.sections().size()); s++) {
    const auto& section = reader.sections()[s];
    for (uint64_t k = 0; k < section_block_count(section); k++)
      nodes += reader.read_block(s, block_from_index(section, k)).size();
  }
  return nodes;
}

// Expects construction or a full read of `bytes` to throw pentago::error naming the file.
void expect_corrupt(const std::vector<uint8_t>& bytes, const std::string& label) {
  const std::string name = "corrupt-" + label + ".pentago";
  try {
    read_everything(memory_reader(bytes, name));
    ADD_FAILURE() << label << ": no error";
  } catch (const pentago::pentago_error_t& e) {
    EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
  }
}

std::array<int, 4> block_node(const block_t& block, int i, const std::array<int, 4>& shape) {
  std::array<int, 4> local;
  for (int q = 3; q >= 0; q--) local[q] = i % shape[q], i /= shape[q];
  for (int q = 0; q < 4; q++) local[q] += block_size * block[q];
  return local;
}

// Deterministic pseudo-random disk values for the round trip.
superinfo_t synthetic(int section, const block_t& block, int node) {
  std::mt19937_64 r(uint64_t(section) << 40 ^ uint64_t(block[0]) << 32 ^ uint64_t(block[1]) << 24 ^
                    uint64_t(block[2]) << 16 ^ uint64_t(block[3]) << 8 ^ uint64_t(node));
  superinfo_t v;
  for (auto& w : v.win.w) w = r() & r();  // sparse-ish so that xz has something to do
  for (auto& w : v.notlose.w) w = r() & r() & ~v.win.w[&w - v.notlose.w];
  return v;
}

TEST(supertensor, conventions) {
  std::mt19937_64 rng(5);
  for (int turn = 0; turn < 2; turn++)
    for (int i = 0; i < 10; i++) {
      superinfo_t s;
      for (auto& w : s.win.w) w = rng();
      for (auto& w : s.notlose.w) w = rng();
      EXPECT_EQ(disk_to_store(store_to_disk(s, turn), turn), s);
    }
  // A mover's win is black's win on black's turn and white's on white's.
  const superinfo_t win{super_t::ones(), super_t::ones()};
  EXPECT_EQ(store_to_disk(win, 0), (superinfo_t{super_t::ones(), super_t::zero()}));
  EXPECT_EQ(store_to_disk(win, 1), (superinfo_t{super_t::zero(), super_t::ones()}));
}

TEST(supertensor, header_pack_and_validate) {
  for (const auto& s : slice_sections(5)) {
    const supertensor_header_t h(s, {24 * section_block_count(s), 77, 1234});
    std::array<uint8_t, supertensor_header_size> bytes, again;
    h.pack(bytes);
    EXPECT_EQ(std::memcmp(bytes.data(), supertensor_magic, magic_size), 0);
    const auto u = supertensor_header_t::unpack(bytes);
    u.pack(again);
    EXPECT_EQ(bytes, again);
    EXPECT_EQ(u.section, s);
    EXPECT_EQ(u.index, h.index);
    EXPECT_NO_THROW(u.validate("ok"));
  }
  const section_t s = section_t::parse("21100100");
  const supertensor_header_t good(s, {24 * section_block_count(s), 10, 200});
  std::vector<std::function<void(supertensor_header_t&)>> breaks = {
      [](auto& h) { h.version = 1; },
      [](auto& h) { h.version = 4; },
      [](auto& h) { h.valid = false; },
      [](auto& h) { h.stones++; },
      [](auto& h) { h.block_size = 6; },
      [](auto& h) { h.shape[2]++; },
      [](auto& h) { h.blocks[0]++; },
      [](auto& h) { h.filter = 2; },
      [](auto& h) { h.index.uncompressed_size += 24; },
      [](auto& h) {
        h.section.counts[1] = {9, 1}, h.stones += 9;
      },
  };
  for (size_t i = 0; i < breaks.size(); i++) {
    auto h = good;
    breaks[i](h);
    EXPECT_THROW(h.validate("broken"), pentago::pentago_error_t) << i;
  }
  auto v2 = good;
  v2.version = 2;
  EXPECT_NO_THROW(v2.validate("version 2"));
}

TEST(supertensor, published_headers) {
  for (int n = 0; n <= 2; n++) {
    SCOPED_TRACE(n);
    const supertensor_reader_t reader(slice_path(n));
    EXPECT_EQ(reader.slice(), n);
    EXPECT_EQ(reader.sections(), slice_sections(n));
    EXPECT_EQ(reader.data_start(), slice_headers_size(reader.sections().size()));
    // Re-serializing the headers gives the published bytes.
    std::vector<blob_t> index_blobs;
    for (const auto& h : reader.headers()) {
      EXPECT_EQ(h.version, 3u);
      EXPECT_EQ(h.filter, 1u);
      index_blobs.push_back(h.index);
    }
    const auto original = read_file(slice_path(n));
    const auto headers = slice_file_headers(reader.sections(), index_blobs);
    ASSERT_LE(headers.size(), original.size());
    EXPECT_TRUE(std::equal(headers.begin(), headers.end(), original.begin()));
    for (int s = 0; s < int(reader.sections().size()); s++)
      EXPECT_EQ(reader.section_index(reader.sections()[s]), s);
    EXPECT_EQ(reader.section_index(section_t::parse("22000000")), -1);
  }
}

TEST(supertensor, empty_board_is_a_black_win) {
  const supertensor_reader_t reader(slice_path(0));
  ASSERT_EQ(reader.sections().size(), 1u);
  const auto nodes = reader.read_block(0, {0, 0, 0, 0});
  ASSERT_EQ(nodes.size(), 1u);
  EXPECT_EQ(nodes[0].win, super_t::ones());      // black wins under all 256 rotations
  EXPECT_EQ(nodes[0].notlose, super_t::zero());  // white never does
  // On disk the interleaved words are all 0x5555555555555555.
  const auto raw = uncompress_block(reader.read_compressed_block(0, {0, 0, 0, 0}), 64, "raw");
  for (uint8_t byte : raw) EXPECT_EQ(byte, 0x55);
}

TEST(supertensor, published_counts) {
  for (int n = 0; n <= 2; n++) {
    SCOPED_TRACE(n);
    const supertensor_reader_t reader(slice_path(n));
    const npy_array_t counts = read_npy(shared("counts-" + std::to_string(n) + ".npy"));
    ASSERT_EQ(counts.rows, reader.sections().size());
    for (int s = 0; s < int(reader.sections().size()); s++) {
      const section_t& section = reader.sections()[s];
      uint64_t black = 0, white = 0, total = 0;
      for (uint64_t k = 0; k < section_block_count(section); k++) {
        const block_t block = block_from_index(section, k);
        const auto shape = block_shape(section, block);
        const auto nodes = reader.read_block(s, block);
        for (int i = 0; i < int(nodes.size()); i++) {
          const auto index = block_node(block, i, shape);
          int shift = 0;
          for (int q = 0; q < 4; q++)
            shift += quadrant_symmetry_exponent(
                rmin_bucket(section.counts[q][0], section.counts[q][1])[index[q]]);
          black += uint64_t(popcount(nodes[i].win) >> shift);
          white += uint64_t(popcount(nodes[i].notlose) >> shift);
          total += uint64_t(256 >> shift);
          EXPECT_FALSE(nodes[i].win & nodes[i].notlose);  // never both
        }
      }
      EXPECT_EQ(counts(s, 0), section.sig());
      EXPECT_EQ(counts(s, 1), black) << section.str();
      EXPECT_EQ(counts(s, 2), white) << section.str();
      EXPECT_EQ(counts(s, 3), total) << section.str();
    }
  }
}

TEST(supertensor, published_recompression_is_bit_exact) {
  // Our filter + liblzma preset 6 + CRC64 reproduces every published block and index.
  for (int n = 0; n <= 2; n++) {
    SCOPED_TRACE(n);
    const supertensor_reader_t reader(slice_path(n));
    for (int s = 0; s < int(reader.sections().size()); s++) {
      const auto& section = reader.sections()[s];
      const auto blobs = reader.block_index(s);
      const auto& ih = reader.headers()[s].index;
      EXPECT_EQ(compress_block_index(blobs),
                reader.file().read(ih.offset, ih.compressed_size, "index"));
      for (uint64_t k = 0; k < blobs.size(); k++) {
        const block_t block = block_from_index(section, k);
        EXPECT_EQ(compress_disk_block(reader.read_block(s, block)),
                  reader.read_compressed_block(s, block));
      }
    }
  }
}

TEST(supertensor, published_index_sidecars) {
  for (int n = 0; n <= 2; n++) {
    SCOPED_TRACE(n);
    const supertensor_reader_t reader(slice_path(n));
    const std::string index_path = slice_path(n) + ".index";
    const slice_index_reader_t index(index_path);
    EXPECT_EQ(index.slice(), n);
    EXPECT_EQ(index.sections(), reader.sections());
    uint64_t record = 0;
    for (int s = 0; s < int(reader.sections().size()); s++) {
      const auto& section = reader.sections()[s];
      EXPECT_EQ(index.section_index(section), s);
      const auto blobs = reader.block_index(s);
      for (uint64_t k = 0; k < blobs.size(); k++, record++) {
        const block_t block = block_from_index(section, k);
        const slice_index_entry_t e = index.entry(s, block);
        EXPECT_EQ(e, index.entry(record));
        EXPECT_EQ(e.offset, blobs[k].offset);
        EXPECT_EQ(e.compressed_size, blobs[k].compressed_size);
        EXPECT_EQ(index.read_block(reader.file(), s, block), reader.read_block(s, block));
      }
    }
    EXPECT_EQ(record, index.total_blocks());
    // The sidecar derived from the slice file is the published one, byte for byte.
    EXPECT_EQ(slice_index_bytes(reader), read_file(index_path));
    EXPECT_THROW(index.entry(record), pentago::pentago_error_t);
    EXPECT_THROW(index.entry(0, {9, 0, 0, 0}), pentago::pentago_error_t);
    EXPECT_THROW(index.entry(99, {0, 0, 0, 0}), pentago::pentago_error_t);
  }
}

TEST(supertensor, random_round_trip) {
  const int n = 5;
  const auto sections = slice_sections(n);
  auto fill = [](int s, const section_t& section, const block_t& block,
                 std::span<superinfo_t> nodes) {
    ASSERT_EQ(int(nodes.size()), block_nodes(section, block));
    for (int i = 0; i < int(nodes.size()); i++) nodes[i] = synthetic(s, block, i);
  };
  const std::string path = temp_path("round.pentago"), path3 = temp_path("round3.pentago");
  write_slice_file(path, sections, fill, 1, 1);
  write_slice_file(path3, sections, fill, 1, 3);
  EXPECT_EQ(read_file(path), read_file(path3));  // threading does not change the bytes

  const supertensor_reader_t reader(path);
  EXPECT_EQ(reader.slice(), n);
  EXPECT_EQ(reader.sections(), sections);
  uint64_t nodes = 0;
  for (int s = 0; s < int(sections.size()); s++) {
    nodes += sections[s].size();
    for (uint64_t k = 0; k < section_block_count(sections[s]); k++) {
      const block_t block = block_from_index(sections[s], k);
      const auto data = reader.read_block(s, block);
      ASSERT_EQ(int(data.size()), block_nodes(sections[s], block));
      for (int i = 0; i < int(data.size()); i++) ASSERT_EQ(data[i], synthetic(s, block, i));
    }
  }
  EXPECT_EQ(read_everything(reader), nodes);

  // Concurrent readers share lazily loaded indexes.
  const supertensor_reader_t shared_reader(path);
  std::atomic<int> mismatches{0};
  {
    std::vector<std::jthread> threads;
    for (int t = 0; t < 4; t++)
      threads.emplace_back([&, t] {
        for (int s = int(sections.size()) - 1 - t; s >= 0; s -= 2) {
          const block_t block = block_from_index(sections[s], 0);
          const auto data = shared_reader.read_block(s, block);
          for (int i = 0; i < int(data.size()); i++)
            if (!(data[i] == synthetic(s, block, i))) mismatches++;
        }
      });
  }
  EXPECT_EQ(mismatches, 0);

  // Sidecar round trip.
  const std::string index_path = path + ".index";
  write_slice_index(reader, index_path);
  const slice_index_reader_t index(index_path);
  EXPECT_EQ(index.slice(), n);
  for (int s = 0; s < int(sections.size()); s += 7) {
    const block_t block = block_from_index(sections[s], section_block_count(sections[s]) - 1);
    EXPECT_EQ(index.read_block(reader.file(), s, block), reader.read_block(s, block));
  }
  for (const auto& p : {path, path3, index_path}) std::remove(p.c_str());
}

TEST(supertensor, partial_and_empty_files) {
  // A file with some sections of a slice reads fine, and gets a partial sidecar: records of its
  // own sections only, read back given those sections.
  auto sections = slice_sections(4);
  sections.erase(sections.begin() + 1);
  const std::string path = temp_path("partial.pentago");
  write_slice_file(
      path, sections,
      [](int s, const section_t&, const block_t& b, std::span<superinfo_t> nodes) {
        for (int i = 0; i < int(nodes.size()); i++) nodes[i] = synthetic(s, b, i);
      },
      0);
  const supertensor_reader_t reader(path);
  EXPECT_EQ(reader.sections(), sections);
  EXPECT_GT(read_everything(reader), 0u);
  const auto bytes = slice_index_bytes(reader);
  uint64_t blocks = 0;
  for (const auto& s : sections) blocks += section_block_count(s);
  EXPECT_EQ(bytes.size(), slice_index_header_size + slice_index_entry_size * blocks);
  const auto sidecar = std::make_shared<const input_file_t>("partial.pentago.index", bytes);
  const slice_index_reader_t index(sidecar, &sections);
  EXPECT_TRUE(index.partial());
  EXPECT_EQ(index.sections(), sections);
  EXPECT_EQ(index.total_blocks(), blocks);
  for (int s = 0; s < int(sections.size()); s++) {
    EXPECT_EQ(index.section_index(sections[s]), s);
    const block_t block = block_from_index(sections[s], section_block_count(sections[s]) - 1);
    EXPECT_EQ(index.read_block(reader.file(), s, block), reader.read_block(s, block));
  }
  // Without the file's sections only the 2013 layout is accepted: a clear one-line error.
  try {
    const slice_index_reader_t complete_only(sidecar);
    ADD_FAILURE() << "a partial sidecar read as a complete one";
  } catch (const pentago::pentago_error_t& e) {
    EXPECT_NE(std::string(e.what()).find("matches neither slice 4"), std::string::npos) << e.what();
  }
  // A size matching neither layout: the error names both sizes, on one line.
  auto wrong = bytes;
  wrong.resize(wrong.size() + slice_index_entry_size);
  try {
    const slice_index_reader_t bad(
        std::make_shared<const input_file_t>("wrong.pentago.index", wrong), &sections);
    ADD_FAILURE() << "a wrong-size sidecar was accepted";
  } catch (const pentago::pentago_error_t& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("wrong.pentago.index: size " + std::to_string(wrong.size()) +
                        " matches neither slice 4"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find(std::to_string(bytes.size()) + " bytes"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
  std::remove(path.c_str());

  // No sections at all (the MPI directory check writes such a file, with pad bytes).
  auto empty = slice_file_headers({}, {});
  empty.push_back(0), empty.push_back(0);
  const auto e = memory_reader(empty, "empty.pentago");
  EXPECT_EQ(e.slice(), -1);
  EXPECT_TRUE(e.sections().empty());
  EXPECT_THROW(slice_index_bytes(e), pentago::pentago_error_t);

  // Sections must be ascending and of one slice.
  const auto five = slice_sections(5);
  auto nothing = [](int, const section_t&, const block_t&, std::span<superinfo_t>) {};
  const std::vector<section_t> backwards = {five[1], five[0]};
  EXPECT_THROW(write_slice_file(temp_path("bad.pentago"), backwards, nothing),
               pentago::pentago_error_t);
  const std::vector<section_t> mixed = {sections[0], five[0]};
  EXPECT_THROW(write_slice_file(temp_path("bad.pentago"), mixed, nothing),
               pentago::pentago_error_t);
  std::remove(temp_path("bad.pentago").c_str());
}

TEST(supertensor, single_section_file) {
  // The out-of-core format: one header at offset 0, then data.
  const section_t section = slice_sections(3)[2];
  std::vector<uint8_t> bytes(supertensor_header_size);
  std::vector<blob_t> blobs;
  for (uint64_t k = 0; k < section_block_count(section); k++) {
    const block_t block = block_from_index(section, k);
    std::vector<superinfo_t> nodes(size_t(block_nodes(section, block)));
    for (int i = 0; i < int(nodes.size()); i++) nodes[i] = synthetic(0, block, i);
    const auto c = compress_disk_block(nodes, 0);
    blobs.push_back({64 * nodes.size(), c.size(), bytes.size()});
    bytes.insert(bytes.end(), c.begin(), c.end());
  }
  const auto index = compress_block_index(blobs);
  const supertensor_header_t header(section, {24 * blobs.size(), index.size(), bytes.size()});
  bytes.insert(bytes.end(), index.begin(), index.end());
  header.pack(std::span<uint8_t, supertensor_header_size>(bytes.data(), supertensor_header_size));
  const auto reader = memory_reader(bytes, "single.pentago");
  EXPECT_EQ(reader.sections(), std::vector<section_t>{section});
  EXPECT_EQ(reader.slice(), 3);
  const block_t last = block_from_index(section, blobs.size() - 1);
  const auto nodes = reader.read_block(0, last);
  for (int i = 0; i < int(nodes.size()); i++) EXPECT_EQ(nodes[i], synthetic(0, last, i));
}

TEST(supertensor, corrupt_files) {
  const auto original = read_file(slice_path(2));
  const supertensor_reader_t clean(slice_path(2));
  const uint64_t size = original.size();
  const uint64_t start = clean.data_start();
  const blob_t block = clean.block_blob(1, {0, 0, 0, 0});
  const blob_t index = clean.headers()[0].index;
  auto mutated = [&](auto f) {
    auto bytes = original;
    f(bytes);
    return bytes;
  };
  // Offsets inside a section header (section 0 at 32).
  const uint64_t h0 = sections_header_size;

  expect_corrupt(mutated([&](auto& b) { b[block.offset + block.compressed_size / 2] ^= 1; }),
                 "flipped-block-byte");
  expect_corrupt(mutated([&](auto& b) { b[index.offset + index.compressed_size / 2] ^= 4; }),
                 "flipped-index-byte");
  for (uint64_t cut : {uint64_t(0), uint64_t(10), uint64_t(31), start - 1, block.offset + 3,
                       index.offset + index.compressed_size - 1})
    expect_corrupt(mutated([&](auto& b) { b.resize(cut); }), "truncated-" + std::to_string(cut));
  expect_corrupt(mutated([&](auto& b) { b[0] = 'P'; }), "bad-magic");
  expect_corrupt(mutated([&](auto& b) { b[h0 + 3] = 'X'; }), "bad-section-magic");
  expect_corrupt(mutated([&](auto& b) { b[20] = 2; }), "bad-file-version");
  expect_corrupt(mutated([&](auto& b) { b[h0 + 20] = 1; }), "bad-section-version");
  expect_corrupt(mutated([&](auto& b) { b[h0 + 24] = 0; }), "not-valid");
  expect_corrupt(mutated([&](auto& b) { b[h0 + 25] = 5; }), "bad-stones");
  expect_corrupt(mutated([&](auto& b) { b[h0 + 45] = 16; }), "bad-block-size");
  expect_corrupt(mutated([&](auto& b) { b[h0 + 37] ^= 1; }), "bad-shape");
  expect_corrupt(mutated([&](auto& b) { b[h0 + 57] = 7; }), "bad-filter");
  expect_corrupt(mutated([&](auto& b) { b[28] = 84; }), "bad-header-size");
  expect_corrupt(mutated([&](auto& b) { store_le<uint32_t>(b.data() + 24, ~0u); }),
                 "huge-section-count");
  expect_corrupt(mutated([&](auto& b) {
                   store_le<uint64_t>(b.data() + h0 + 77, size - index.compressed_size / 2);
                 }),
                 "index-past-eof");
  expect_corrupt(
      mutated([&](auto& b) { store_le<uint64_t>(b.data() + h0 + 77, ~uint64_t(0) - 4); }),
      "index-offset-overflow");
  expect_corrupt(mutated([&](auto& b) { store_le<uint64_t>(b.data() + h0 + 77, 16); }),
                 "index-in-headers");
  expect_corrupt(mutated([&](auto& b) { store_le<uint64_t>(b.data() + h0 + 69, 1ull << 40); }),
                 "index-huge-size");
  // Swap the first two section headers: no longer ascending.
  expect_corrupt(mutated([&](auto& b) {
                   std::swap_ranges(b.begin() + h0, b.begin() + h0 + 85, b.begin() + h0 + 85);
                 }),
                 "unordered-sections");

  // Block blobs: rewrite section 0's index with one bad blob, appended to the file.
  auto with_blob = [&](auto f) {
    auto bytes = original;
    std::vector<blob_t> blobs(clean.block_index(0).begin(), clean.block_index(0).end());
    f(blobs[0]);
    const auto compressed = compress_block_index(blobs);
    store_le<uint64_t>(bytes.data() + h0 + 69, compressed.size());
    store_le<uint64_t>(bytes.data() + h0 + 77, bytes.size());
    bytes.insert(bytes.end(), compressed.begin(), compressed.end());
    return bytes;
  };
  EXPECT_NO_THROW(read_everything(memory_reader(with_blob([](blob_t&) {}), "unchanged")));
  expect_corrupt(with_blob([&](blob_t& b) { b.offset = size - 2; }), "block-past-eof");
  expect_corrupt(with_blob([&](blob_t& b) { b.offset = ~uint64_t(0) - 1; }), "block-overflow");
  expect_corrupt(with_blob([&](blob_t& b) { b.offset = 40; }), "block-in-headers");
  expect_corrupt(with_blob([&](blob_t& b) { b.uncompressed_size += 64; }), "block-size");
  expect_corrupt(with_blob([&](blob_t& b) { b.compressed_size = 0; }), "block-empty");
  expect_corrupt(with_blob([&](blob_t& b) { b.compressed_size += 1; }), "block-trailing");
  expect_corrupt(with_blob([&](blob_t& b) { b.offset += 1; }), "block-shifted");

  // Bad arguments are errors too.
  EXPECT_THROW(clean.read_block(3, {0, 0, 0, 0}), pentago::pentago_error_t);
  EXPECT_THROW(clean.read_block(-1, {0, 0, 0, 0}), pentago::pentago_error_t);
  EXPECT_THROW(clean.read_block(0, {60, 0, 0, 0}), pentago::pentago_error_t);
  std::vector<superinfo_t> wrong(2);
  EXPECT_THROW(clean.read_block(0, {0, 0, 0, 0}, wrong), pentago::pentago_error_t);
  EXPECT_THROW(supertensor_reader_t(temp_path("missing.pentago")), pentago::pentago_error_t);
}

TEST(supertensor, corrupt_index_sidecars) {
  const auto original = read_file(slice_path(2) + ".index");
  const input_file_t pentago(slice_path(2));
  auto expect_bad = [&](std::vector<uint8_t> bytes, const std::string& label) {
    try {
      const slice_index_reader_t index(std::make_shared<const input_file_t>(label, bytes));
      for (int s = 0; s < int(index.sections().size()); s++)
        for (uint64_t k = 0; k < section_block_count(index.sections()[s]); k++)
          index.read_block(pentago, s, block_from_index(index.sections()[s], k));
      ADD_FAILURE() << label << ": no error";
    } catch (const pentago::pentago_error_t& e) {
      EXPECT_NE(std::string(e.what()).find(label), std::string::npos) << e.what();
    }
  };
  auto mutated = [&](auto f) {
    auto bytes = original;
    f(bytes);
    return bytes;
  };
  expect_bad(mutated([](auto& b) { b[3] = 'x'; }), "magic");
  expect_bad(mutated([](auto& b) { b[20] = 3; }), "wrong-slice");
  expect_bad(mutated([](auto& b) { b[20] = 200; }), "bad-slice");
  expect_bad(mutated([](auto& b) { b.pop_back(); }), "truncated");
  expect_bad(mutated([](auto& b) { b.resize(10); }), "tiny");
  expect_bad(mutated([](auto& b) { b.push_back(0); }), "long");
  expect_bad(mutated([](auto& b) { b[24 + 4] = 1; }), "offset-past-eof");
  expect_bad(mutated([](auto& b) { b[24 + 8] += 1; }), "size-changed");
  expect_bad(mutated([](auto& b) { b[24] += 1; }), "offset-changed");
  expect_bad(mutated([](auto& b) { store_le<uint32_t>(b.data() + 32, 0); }), "size-zero");
}

}  // namespace
