// Tests of the explorer's serverless query path (the web layer) against the native one: its xz
// decoder against liblzma (random data at several presets, every block of the published
// slices, corrupted and truncated streams), its answers against the query path's JSON (the
// published slices fetched block by block as the page fetches them, and midgame solves).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "pentago/data/compress.h"
#include "pentago/data/supertensor.h"
#include "pentago/mid/midgame.h"
#include "pentago/query/query.h"
#include "pentago/util/error.h"
#include "pentago/web/explore.h"
#include "pentago/web/xz.h"

using namespace pentago;

namespace {

const std::string published = PENTAGO_SHARED_DATA;

std::vector<uint8_t> file_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

// Data that compresses in many ways: runs, repeats at several distances, text, noise.
std::vector<uint8_t> mixed_data(size_t size, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> d;
  while (d.size() < size) {
    const int kind = rng() % 4;
    const size_t n = 1 + rng() % 3000;
    if (kind == 0) {
      d.insert(d.end(), n, uint8_t(rng()));
    } else if (kind == 1 && d.size() > 10) {
      const size_t back = 1 + rng() % std::min<size_t>(d.size(), 100000);
      for (size_t i = 0; i < n; i++) d.push_back(d[d.size() - back]);
    } else if (kind == 2) {
      for (size_t i = 0; i < n; i++) d.push_back(uint8_t("pentago rotates "[rng() % 16]));
    } else {
      for (size_t i = 0; i < n; i++) d.push_back(uint8_t(rng()));
    }
  }
  d.resize(size);
  return d;
}

TEST(xz, random_data_at_every_preset) {
  for (int preset : {0, 1, 3, 6, 9}) {
    for (const size_t size : {size_t(0), size_t(1), size_t(100), size_t(70000)}) {
      const auto data = mixed_data(size, uint32_t(preset * 1000 + size));
      const auto packed = compress_block_lzma(data, preset);
      EXPECT_EQ(xz_decode(packed, data.size(), "test"), data) << preset << " " << size;
    }
  }
  // Several LZMA2 chunks (over 2 MiB), incompressible stretches stored as plain chunks.
  const auto big = mixed_data(3 << 20, 7);
  EXPECT_EQ(xz_decode(compress_block_lzma(big, 0), big.size(), "big"), big);
}

TEST(xz, crcs_match_zlib_and_xz_values) {
  const std::string s = "123456789";
  const std::span<const uint8_t> b(reinterpret_cast<const uint8_t*>(s.data()), s.size());
  EXPECT_EQ(xz_crc32(b), 0xcbf43926u);
  EXPECT_EQ(xz_crc64(b), 0x995dc9bbdf1939faull);
}

TEST(xz, every_published_block_equals_liblzma) {
  int blocks = 0;
  for (int slice = 0; slice <= 2; slice++) {
    supertensor_reader_t reader(published + "/slice-" + std::to_string(slice) + ".pentago");
    for (size_t s = 0; s < reader.sections().size(); s++) {
      const section_t& section = reader.sections()[s];
      for (uint64_t k = 0; k < section_block_count(section); k++) {
        const block_t block = block_from_index(section, k);
        const auto compressed = reader.read_compressed_block(int(s), block);
        const uint64_t size = 64 * uint64_t(block_nodes(section, block));
        EXPECT_EQ(xz_decode(compressed, size, "block"),
                  uncompress_block(compressed, size, "block"));
        blocks++;
      }
    }
  }
  EXPECT_GE(blocks, 7);
}

TEST(xz, corrupt_and_truncated_streams_fail_cleanly) {
  const auto data = mixed_data(20000, 3);
  const auto packed = compress_block_lzma(data, 6);
  std::mt19937 rng(11);
  int rejected = 0;
  for (int trial = 0; trial < 300; trial++) {
    auto bad = packed;
    bad[rng() % bad.size()] ^= uint8_t(1 + rng() % 255);
    bool liblzma_ok = true;
    try {
      uncompress_block(bad, data.size(), "bad");
    } catch (const pentago_error_t&) {
      liblzma_ok = false;
    }
    try {
      const auto out = xz_decode(bad, data.size(), "bad");
      EXPECT_TRUE(liblzma_ok) << "accepted what liblzma refuses (trial " << trial << ")";
      EXPECT_EQ(out, data);
    } catch (const pentago_error_t& e) {
      EXPECT_NE(std::string(e.what()).find("bad: "), std::string::npos) << e.what();
      rejected++;
    }
  }
  EXPECT_GT(rejected, 250);
  for (size_t n = 0; n < packed.size(); n += 1 + n / 7)
    EXPECT_THROW(xz_decode(std::span(packed).first(n), data.size(), "cut"), pentago_error_t) << n;
  EXPECT_THROW(xz_decode(packed, data.size() + 1, "size"), pentago_error_t);
  auto longer = packed;
  longer.push_back(0);
  EXPECT_THROW(xz_decode(longer, data.size(), "trailing"), pentago_error_t);
}

// Answers a position as the page does: fetches what the explorer asks for from the files.
nlohmann::json web_answer(web_explorer_t& web, const std::string& dir, position_t p,
                          int* rounds = nullptr) {
  for (int round = 1; round <= 5; round++) {
    const auto r = web.answer(p);
    if (r.needs.empty()) {
      if (rounds) *rounds = round;
      auto j = nlohmann::json::parse(r.json);
      j.erase("elapsed_ms");
      return j;
    }
    for (const auto& need : r.needs) {
      const std::string base = dir + "/slice-" + std::to_string(need.slice) + ".pentago";
      if (need.kind == web_request_t::sidecar_header) {
        const auto bytes = file_bytes(base + ".index");
        if (bytes.empty())
          web.set_slice_absent(need.slice);
        else
          web.set_sidecar_header(need.slice, std::span(bytes).first(24), bytes.size());
      } else if (need.kind == web_request_t::sidecar_record) {
        const auto bytes = file_bytes(base + ".index");
        web.set_sidecar_records(need.slice, need.record,
                                std::span(bytes).subspan(24 + 12 * need.record, 12));
      } else {
        const auto bytes = file_bytes(base);
        web.set_block(need.slice, need.record, std::span(bytes).subspan(need.offset, need.size));
      }
    }
  }
  ADD_FAILURE() << "no answer after 5 rounds of fetches";
  return {};
}

nlohmann::json native_answer(query_engine_t& engine, const std::string& code) {
  auto j = nlohmann::json::parse(answer_json(engine.answer(parse_position(code))));
  j.erase("elapsed_ms");
  return j;
}

TEST(web_explorer, slice_answers_equal_the_query_path) {
  query_options_t o;
  o.databases = {published};
  query_engine_t engine(o);
  web_explorer_t web(18, 1 << 20);  // a small cache: blocks are evicted and fetched again
  int rounds = 0;
  EXPECT_EQ(web_answer(web, published, {0, false}, &rounds), native_answer(engine, "0"));
  EXPECT_EQ(rounds, 4);  // sidecar header, records, blocks, the answer
  // One stone to place and to rotate, two to rotate: all their moves from slices 1 and 2.
  const auto empty = native_answer(engine, "0");
  int checked = 0;
  for (const auto& m : empty["moves"]) {
    const std::string placed = m["child"];
    EXPECT_EQ(web_answer(web, published, parse_position(placed)), native_answer(engine, placed));
    for (const auto& r : m["rotations"]) {
      const std::string one = r["child"];
      const auto native = native_answer(engine, one);
      EXPECT_EQ(web_answer(web, published, parse_position(one)), native);
      if (checked++ % 7) continue;
      const std::string two = native["moves"][checked % native["moves"].size()]["child"];
      EXPECT_EQ(web_answer(web, published, parse_position(two)), native_answer(engine, two));
      // Two stones to place: a partial answer (slice 3 is missing), the value from slice 2.
      const auto two_native = native_answer(engine, two);
      const std::string partial = two_native["moves"][0]["child"];
      auto mine = web_answer(web, published, parse_position(partial));
      auto theirs = native_answer(engine, partial);
      EXPECT_TRUE(mine["moves"].is_null());
      EXPECT_NE(std::string(mine["moves_unknown"]).find("slice-3.pentago"), std::string::npos);
      mine.erase("moves_unknown");
      theirs.erase("moves_unknown");
      EXPECT_EQ(mine, theirs);
    }
  }
  EXPECT_GT(checked, 30);
  // Three stones: neither in the slices nor the midgame solver's.
  const auto three = parse_position("______________________________010___");
  EXPECT_THROW(web_answer(web, published, three), pentago_error_t);
}

TEST(web_explorer, midgame_answers_equal_the_query_path) {
  query_engine_t engine(query_options_t{});
  web_explorer_t web;
  std::mt19937_64 rng(2026);
  int solved = 0;
  for (const int stones : {18, 21, 24, 27, 30}) {
    // A random position without five in a row, to place and (when legal) to rotate.
    board_t board = 0;
    for (;;) {
      side_t sides[2] = {0, 0};
      std::vector<int> cells(36);
      for (int i = 0; i < 36; i++) cells[i] = i;
      std::shuffle(cells.begin(), cells.end(), rng);
      for (int k = 0; k < stones; k++) sides[k & 1] |= cell_bit(cells[k] % 6, cells[k] / 6);
      if (won(sides[0]) || won(sides[1])) continue;
      board = pack(sides[0], sides[1]);
      break;
    }
    for (const bool to_rotate : {false, true}) {
      const position_t p{board, to_rotate};
      if (to_rotate && stones < 21) continue;
      EXPECT_EQ(web_answer(web, published, p), native_answer(engine, position_code(p)))
          << position_code(p);
      solved++;
    }
  }
  EXPECT_GE(solved, 5);
}

TEST(web_explorer, cancelled_solve_throws) {
  web_explorer_t web;
  const auto p = parse_position("274440791932540184");
  web.set_slice_absent(19);
  int layers = 0;
  EXPECT_THROW(web.answer(p, [&] { return ++layers > 3; }), midgame_cancelled_t);
  EXPECT_EQ(layers, 4);
}

TEST(web_explorer, refuses_bad_sidecars_and_blocks) {
  web_explorer_t web;
  const auto sidecar = file_bytes(published + "/slice-1.pentago.index");
  EXPECT_THROW(web.set_sidecar_header(2, std::span(sidecar).first(24), sidecar.size()),
               pentago_error_t);
  EXPECT_THROW(web.set_sidecar_header(1, std::span(sidecar).first(24), sidecar.size() + 12),
               pentago_error_t);
  auto bad = sidecar;
  bad[0] = 'x';
  EXPECT_THROW(web.set_sidecar_header(1, std::span(bad).first(24), bad.size()), pentago_error_t);
  web.set_sidecar_header(1, std::span(sidecar).first(24), sidecar.size());
  EXPECT_THROW(web.set_sidecar_records(1, slice_block_count(1), std::span(sidecar).first(12)),
               pentago_error_t);
  const std::vector<uint8_t> junk(40, 7);
  EXPECT_THROW(web.set_block(1, 0, junk), pentago_error_t);
}

}  // namespace
