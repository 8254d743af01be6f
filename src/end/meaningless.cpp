// Deterministic pseudorandom slice values for meaningless mode.
#include "pentago/end/meaningless.h"

#include "pentago/layout/line_mapping.h"

namespace pentago {
namespace {

uint64_t mix(uint64_t k) {
  k = ~k + (k << 18);
  k ^= k >> 31;
  k *= 21;
  k ^= k >> 11;
  k += k << 6;
  k ^= k >> 22;
  return k;
}

}  // namespace

int meaningless(board_t board, uint64_t salt) {
  int bit = 0;
  for (int g = 0; g < 8; g++) bit ^= int(mix(transform_board(symmetry_t(g, 0), board) ^ salt) & 1);
  return bit;
}

super_t super_meaningless(board_t board, uint64_t salt) {
  super_t s;
  for (int r = 0; r < 256; r++)
    if (meaningless(transform_board(symmetry_t(0, r), board), salt)) s.set(r);
  return s;
}

superinfo_t meaningless_value(board_t board) {
  // super_meaningless for salts 0, 1, 2, 3 and 7 at once: the 8 transformed boards of each
  // rotation are shared by the five salts (5x fewer board transforms).
  superinfo_t v;
  for (int r = 0; r < 256; r++) {
    const board_t rotated = transform_board(symmetry_t(0, r), board);
    board_t images[8];
    for (int g = 0; g < 8; g++) images[g] = transform_board(symmetry_t(g, 0), rotated);
    int bits[5] = {0, 0, 0, 0, 0};
    constexpr uint64_t salts[5] = {0, 1, 2, 3, 7};
    for (int g = 0; g < 8; g++)
      for (int k = 0; k < 5; k++) bits[k] ^= int(mix(images[g] ^ salts[k]) & 1);
    if (bits[0] | bits[1] | bits[2] | bits[3]) v.win.set(r);
    if (bits[0] | bits[1] | bits[2] | bits[3] | bits[4]) v.notlose.set(r);
  }
  return v;
}

std::string meaningless_plan_note(int slice, uint64_t nodes) {
  return "  meaningless slice " + std::to_string(slice) + ": " + std::to_string(nodes) +
         " nodes synthesized pseudorandomly (test mode; each costs tens of computed nodes, so a "
         "large meaningless slice takes longer than solving it)";
}

std::vector<superinfo_t> meaningless_block(const section_t& s, const block_t& b) {
  std::vector<superinfo_t> values(size_t(block_nodes(s, b)));
  for_each_node(s, b, [&](int k, const std::array<int, 4>& index) {
    values[size_t(k)] = meaningless_value(section_board(s, index));
  });
  return values;
}

}  // namespace pentago
