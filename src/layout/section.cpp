// Sections: ids, string forms, standardization, children, slices and root descendants.
#include "pentago/layout/section.h"

#include <algorithm>
#include <set>

#include "pentago/base/symmetry.h"
#include "pentago/layout/quadrant_states.h"
#include "pentago/util/error.h"

namespace pentago {

int section_t::sum() const {
  int n = 0;
  for (auto& c : counts) n += c[0] + c[1];
  return n;
}

bool section_t::valid() const {
  int b = 0, w = 0;
  for (auto& c : counts) {
    if (c[0] + c[1] > 9) return false;
    b += c[0], w += c[1];
  }
  return b == w || b == w + 1;
}

uint64_t section_t::sig() const {
  uint64_t s = 0;
  for (int q = 0; q < 4; q++)
    s |= uint64_t(counts[q][0]) << 16 * q | uint64_t(counts[q][1]) << (16 * q + 8);
  return s;
}

section_t section_t::from_sig(uint64_t sig) {
  section_t s;
  for (int q = 0; q < 4; q++) s.counts[q] = {uint8_t(sig >> 16 * q), uint8_t(sig >> (16 * q + 8))};
  return s;
}

uint32_t section_t::microsig() const {
  uint32_t m = 0;
  for (int k = 0; k < 8; k++) m |= uint32_t(counts[k / 2][k % 2] & 15) << 4 * k;
  return m;
}

std::array<int, 4> section_t::shape() const {
  std::array<int, 4> s;
  for (int q = 0; q < 4; q++) s[q] = int(rmin_bucket(counts[q][0], counts[q][1]).size());
  return s;
}

uint64_t section_t::size() const {
  uint64_t n = 1;
  for (int x : shape()) n *= uint64_t(x);
  return n;
}

section_t section_t::transform(int global) const {
  section_t t;
  for (int j = 0; j < 4; j++) t.counts[j] = counts[source_quadrant[global & 3][j]];
  if (global & 4) std::swap(t.counts[0], t.counts[3]);
  return t;
}

section_t section_t::standardize(int* global) const {
  section_t best = *this;
  int best_g = 0;
  for (int g = 1; g < 8; g++) {
    const section_t t = transform(g);
    if (t.sig() < best.sig()) best = t, best_g = g;
  }
  if (global) *global = best_g;
  return best;
}

section_t section_t::child(int q) const {
  PENTAGO_CHECK(!quadrant_full(q), "child of a full quadrant");
  section_t c = *this;
  c.counts[q][turn()]++;
  return c;
}

std::string section_t::str() const {
  std::string s;
  for (auto& c : counts) s += char('0' + c[0]), s += char('0' + c[1]);
  return s;
}

std::string section_t::name() const { return std::to_string(sum()) + "-" + str(); }

section_t section_t::parse(const std::string& text) {
  std::string digits = text;
  int declared = -1;
  if (const auto dash = text.find('-'); dash != std::string::npos) {
    const std::string n = text.substr(0, dash);
    if (n.empty() || n.size() > 2 || !std::all_of(n.begin(), n.end(), ::isdigit))
      throw usage_error_t("invalid section '" + text + "': expected <n>-<8 digits>");
    declared = std::stoi(n);
    digits = text.substr(dash + 1);
  }
  if (digits.size() != 8)
    throw usage_error_t("invalid section '" + text + "': expected 8 digits b0w0b1w1b2w2b3w3, got " +
                        std::to_string(digits.size()) + " characters");
  section_t s;
  for (int k = 0; k < 8; k++) {
    if (digits[k] < '0' || digits[k] > '9')
      throw usage_error_t("invalid section '" + text + "': '" + std::string(1, digits[k]) +
                          "' is not a digit");
    s.counts[k / 2][k % 2] = uint8_t(digits[k] - '0');
  }
  for (int q = 0; q < 4; q++)
    if (s.quadrant_sum(q) > 9)
      throw usage_error_t("invalid section '" + text + "': quadrant " + std::to_string(q) +
                          " has " + std::to_string(s.quadrant_sum(q)) + " stones (at most 9)");
  if (!s.valid())
    throw usage_error_t("invalid section '" + text +
                        "': black must have as many stones as white or one more");
  if (declared >= 0 && declared != s.sum())
    throw usage_error_t("invalid section '" + text + "': prefix says " + std::to_string(declared) +
                        " stones but the counts sum to " + std::to_string(s.sum()));
  return s;
}

uint64_t section_t::hash() const {
  uint64_t h = 0;
  for (auto& c : counts)
    for (uint8_t byte : c) h ^= uint64_t(byte) + 0x9e3779b9 + (h << 6) + (h >> 2);
  return h;
}

std::vector<section_t> slice_sections(int n) {
  std::vector<section_t> result;
  if (n < 0 || n > 36) return result;
  const int black = (n + 1) / 2, white = n / 2;
  section_t s;
  // Enumerate black counts then white counts per quadrant.
  std::array<int, 4> b{}, w{};
  for (b[0] = 0; b[0] <= 9; b[0]++)
    for (b[1] = 0; b[1] <= 9; b[1]++)
      for (b[2] = 0; b[2] <= 9; b[2]++) {
        b[3] = black - b[0] - b[1] - b[2];
        if (b[3] < 0 || b[3] > 9) continue;
        for (w[0] = 0; w[0] <= 9 - b[0]; w[0]++)
          for (w[1] = 0; w[1] <= 9 - b[1]; w[1]++)
            for (w[2] = 0; w[2] <= 9 - b[2]; w[2]++) {
              w[3] = white - w[0] - w[1] - w[2];
              if (w[3] < 0 || w[3] > 9 - b[3]) continue;
              for (int q = 0; q < 4; q++) s.counts[q] = {uint8_t(b[q]), uint8_t(w[q])};
              if (s.standardize() == s) result.push_back(s);
            }
      }
  std::sort(result.begin(), result.end());
  return result;
}

std::vector<std::vector<section_t>> descendant_sections(section_t root, int max_slice) {
  std::vector<std::vector<section_t>> slices(37);
  std::set<uint64_t> seen;
  std::vector<section_t> stack{root};
  while (!stack.empty()) {
    const section_t s = stack.back().standardize();
    stack.pop_back();
    if (!seen.insert(s.sig()).second) continue;
    slices[s.sum()].push_back(s);
    if (s.sum() < std::min(max_slice, 35))
      for (int q = 0; q < 4; q++)
        if (!s.quadrant_full(q)) stack.push_back(s.child(q));
  }
  for (auto& slice : slices) std::sort(slice.begin(), slice.end());
  return slices;
}

}  // namespace pentago
