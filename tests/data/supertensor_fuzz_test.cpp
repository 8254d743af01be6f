// Randomized mutation fuzzing of the readers: thousands of bit flips, byte overwrites, field
// overwrites, truncations, insertions and deletions of the published slice, index and counts
// files, each read fully. Only pentago::error may come out, and no change inside a
// compressed blob may go unnoticed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <random>

#include "pentago/data/file.h"
#include "pentago/data/npy.h"
#include "pentago/data/supertensor.h"
#include "pentago/util/error.h"

using namespace pentago;

namespace {

std::string shared(const std::string& name) {
  return std::string(PENTAGO_SHARED_DATA) + "/" + name;
}

struct range_t {
  uint64_t start, size;
};

struct outcome_t {
  int errors = 0, passes = 0;
  int harmless = 0;  // blob bit flips that decode to the original data
};

// Applies one random mutation. Returns true if it only changed bytes inside one of the
// `strict` ranges (whose changes must be detected).
bool mutate(std::vector<uint8_t>& bytes, std::mt19937_64& rng, const std::vector<range_t>& hot,
            const std::vector<range_t>& strict) {
  auto pick = [&](uint64_t n) { return n ? uint64_t(rng() % n) : 0; };
  // Half of the positions fall in interesting ranges (headers, blobs), half anywhere.
  auto position = [&]() -> uint64_t {
    if (!hot.empty() && rng() & 1) {
      const range_t& r = hot[pick(hot.size())];
      return std::min<uint64_t>(r.start + pick(r.size), bytes.size() ? bytes.size() - 1 : 0);
    }
    return pick(bytes.size());
  };
  auto in_strict = [&](uint64_t p) {
    for (const auto& r : strict)
      if (p >= r.start && p < r.start + r.size) return true;
    return false;
  };
  switch (rng() % 7) {
    case 0:
    case 1: {  // flip one bit
      if (bytes.empty()) return false;
      const uint64_t p = position();
      bytes[p] ^= uint8_t(1 << pick(8));
      return in_strict(p);
    }
    case 2: {  // overwrite a few bytes
      for (int k = 1 + int(pick(4)); k > 0 && !bytes.empty(); k--)
        bytes[position()] = uint8_t(rng());
      return false;
    }
    case 3: {  // overwrite an aligned-or-not 1, 2, 4 or 8 byte field with an edge value
      if (bytes.empty()) return false;
      const int width = 1 << pick(4);
      const uint64_t p = position();
      const uint64_t values[] = {0,
                                 1,
                                 2,
                                 7,
                                 8,
                                 9,
                                 84,
                                 86,
                                 0xff,
                                 0xffff,
                                 0xffffffff,
                                 ~uint64_t(0),
                                 1ull << 31,
                                 1ull << 40,
                                 bytes.size(),
                                 bytes.size() - 1};
      const uint64_t v = values[pick(std::size(values))];
      for (int i = 0; i < width && p + i < bytes.size(); i++) bytes[p + i] = uint8_t(v >> 8 * i);
      return false;
    }
    case 4:  // truncate
      bytes.resize(pick(bytes.size()));
      return false;
    case 5: {  // insert random bytes
      const uint64_t p = pick(bytes.size() + 1);
      std::vector<uint8_t> extra(1 + pick(8));
      for (auto& b : extra) b = uint8_t(rng());
      bytes.insert(bytes.begin() + p, extra.begin(), extra.end());
      return false;
    }
    default: {  // delete bytes
      if (bytes.empty()) return false;
      const uint64_t p = pick(bytes.size());
      const uint64_t n = std::min<uint64_t>(1 + pick(8), bytes.size() - p);
      bytes.erase(bytes.begin() + p, bytes.begin() + p + n);
      return false;
    }
  }
}

// Reads a slice file image completely through the reader; returns all nodes in file order.
std::vector<superinfo_t> read_slice_fully(const std::vector<uint8_t>& bytes) {
  std::vector<superinfo_t> all;
  const supertensor_reader_t reader(std::make_shared<const input_file_t>("fuzz.pentago", bytes));
  reader.load_indexes();
  for (int s = 0; s < int(reader.sections().size()); s++) {
    const auto& section = reader.sections()[s];
    for (uint64_t k = 0; k < section_block_count(section); k++) {
      const auto nodes = reader.read_block(s, block_from_index(section, k));
      all.insert(all.end(), nodes.begin(), nodes.end());
    }
  }
  return all;
}

// Runs `iterations` mutations of `original` through `read`; anything but pentago::error
// escapes and fails the test. A single bit flip inside a strict range (a compressed blob)
// must either fail or decode to exactly the original data: xz may ignore a few bits (the
// literal-context property, low bits of the range coder's initial code) when the output
// comes out the same, which its CRC64 then confirms.
template <class Read>
outcome_t fuzz(const std::vector<uint8_t>& original, int iterations, uint64_t seed,
               const std::vector<range_t>& hot, const std::vector<range_t>& strict, Read&& read) {
  std::mt19937_64 rng(seed);
  const auto clean = read(original);
  outcome_t out;
  for (int i = 0; i < iterations; i++) {
    auto bytes = original;
    bool must_fail = mutate(bytes, rng, hot, strict);
    if (rng() % 4 == 0) {  // a second mutation (which might undo the first)
      mutate(bytes, rng, hot, strict);
      must_fail = false;
    }
    try {
      const auto result = read(bytes);
      out.passes++;
      if (must_fail) {
        out.harmless++;
        EXPECT_TRUE(result == clean) << "iteration " << i << ": a corrupted blob decoded silently";
      }
    } catch (const pentago::pentago_error_t&) {
      out.errors++;
    }
  }
  return out;
}

TEST(supertensor_fuzz, slice_files) {
  const auto start = std::chrono::steady_clock::now();
  for (int n = 0; n <= 2; n++) {
    const std::string path = shared("slice-" + std::to_string(n) + ".pentago");
    const auto original = read_file(path);
    const supertensor_reader_t clean(path);
    std::vector<range_t> hot = {{0, clean.data_start()}}, strict;
    for (int s = 0; s < int(clean.sections().size()); s++) {
      const auto& index = clean.headers()[s].index;
      strict.push_back({index.offset, index.compressed_size});
      for (const auto& b : clean.block_index(s)) strict.push_back({b.offset, b.compressed_size});
    }
    hot.insert(hot.end(), strict.begin(), strict.end());
    const outcome_t r = fuzz(original, 20000, 1000 + n, hot, strict, read_slice_fully);
    std::printf("slice-%d.pentago: %d errors, %d clean reads (%d harmless blob flips)\n", n,
                r.errors, r.passes, r.harmless);
    EXPECT_GT(r.errors, 8000);  // most mutations hit something that matters
    EXPECT_GT(r.passes, 0);     // and some hit only pad bytes
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%.2f s\n", seconds);
}

TEST(supertensor_fuzz, written_slice) {
  // A file from our own writer with many blocks per section and contiguous data.
  const std::string path =
      testing::TempDir() + "/pentago-fuzz-" + std::to_string(getpid()) + ".pentago";
  std::mt19937_64 values(9);
  write_slice_file(
      path, slice_sections(4),
      [&](int, const section_t&, const block_t&, std::span<superinfo_t> nodes) {
        for (auto& v : nodes) v.win.w[values() % 4] = values(), v.notlose.w[0] = values() & 3;
      },
      0);
  const auto original = read_file(path);
  std::remove(path.c_str());
  const supertensor_reader_t clean(std::make_shared<const input_file_t>("clean", original));
  std::vector<range_t> hot = {{0, clean.data_start()}}, strict;
  for (int s = 0; s < int(clean.sections().size()); s++) {
    const auto& index = clean.headers()[s].index;
    strict.push_back({index.offset, index.compressed_size});
    for (const auto& b : clean.block_index(s)) strict.push_back({b.offset, b.compressed_size});
  }
  hot.insert(hot.end(), strict.begin(), strict.end());
  const outcome_t r = fuzz(original, 3000, 4000, hot, strict, read_slice_fully);
  std::printf("written slice 4 (%zu bytes, %zu blobs): %d errors, %d clean reads\n",
              original.size(), strict.size(), r.errors, r.passes);
  EXPECT_GT(r.errors, 2000);
}

TEST(supertensor_fuzz, index_sidecars) {
  for (int n = 0; n <= 2; n++) {
    const std::string path = shared("slice-" + std::to_string(n) + ".pentago");
    const input_file_t pentago(path);
    const auto original = read_file(path + ".index");
    const std::vector<range_t> hot = {{0, original.size()}};
    const outcome_t r = fuzz(original, 5000, 2000 + n, hot, {}, [&](const auto& bytes) {
      const slice_index_reader_t index(std::make_shared<const input_file_t>("fuzz.index", bytes));
      for (int s = 0; s < int(index.sections().size()); s++)
        for (uint64_t k = 0; k < section_block_count(index.sections()[s]); k++)
          index.read_block(pentago, s, block_from_index(index.sections()[s], k));
      return 0;
    });
    std::printf("slice-%d.pentago.index: %d errors, %d clean reads\n", n, r.errors, r.passes);
    EXPECT_GT(r.errors, 2500);
  }
}

TEST(supertensor_fuzz, counts_files) {
  for (int n : {0, 5, 35}) {
    const auto original = read_file(shared("counts-" + std::to_string(n) + ".npy"));
    const std::vector<range_t> hot = {{0, 80}};
    const outcome_t r = fuzz(original, 5000, 3000 + n, hot, {},
                             [](const auto& bytes) { return parse_npy(bytes, "fuzz.npy").data; });
    std::printf("counts-%d.npy: %d errors, %d clean reads\n", n, r.errors, r.passes);
    EXPECT_GT(r.errors, 1000);
  }
}

}  // namespace
