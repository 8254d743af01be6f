// Uniformly random unfinished positions (random_positions.h): rejection sampling of boards.
#include "random_positions.h"

#include <array>
#include <string>

#include "pentago/util/error.h"
#include "pentago/util/random.h"

namespace pentago::python {

namespace {

// Uniform in [0, n) without modulo bias: 64-bit draws above the last multiple of n are redrawn.
uint64_t unbiased_below(random_t& random, uint64_t n) {
  const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  for (;;) {
    const uint64_t x = random.bits<uint64_t>();
    if (x < limit) return x % n;
  }
}

// One board with `stones` stones on uniformly chosen distinct cells, black first.
board_t random_board(random_t& random, int stones) {
  std::array<int, 36> cells;
  for (int i = 0; i < 36; i++) cells[i] = i;
  side_t sides[2] = {0, 0};
  for (int k = 0; k < stones; k++) {
    const int pick = k + int(unbiased_below(random, uint64_t(36 - k)));
    std::swap(cells[k], cells[pick]);
    const int cell = cells[k];
    sides[k < (stones + 1) / 2 ? 0 : 1] |= cell_bit(cell / 6, cell % 6);
  }
  return pack(sides[0], sides[1]);
}

}  // namespace

std::vector<board_t> random_positions(int stones, uint64_t count, uint64_t seed) {
  if (stones < 0 || stones > 35)
    throw usage_error_t("stones must be 0..35 (a board with 36 stones is full), not " +
                        std::to_string(stones));
  // A bound that keeps the board array (8 bytes each) to at most 8 GiB.
  constexpr uint64_t max_count = uint64_t(1) << 30;
  if (count > max_count)
    throw usage_error_t("count must be at most " + std::to_string(max_count) + ", not " +
                        std::to_string(count));
  random_t random(make_uint128(seed, uint64_t(stones)));
  // Far more than any stone count needs: the rarest case (35 stones) keeps about 1 board in
  // a few thousand.
  const uint64_t max_draws = 100000 * (count + 1);
  std::vector<board_t> boards;
  boards.reserve(count);
  uint64_t draws = 0;
  while (boards.size() < count) {
    if (++draws > max_draws)
      throw pentago_error_t("no unfinished board with " + std::to_string(stones) + " stones in " +
                            std::to_string(max_draws) + " draws");
    const board_t board = random_board(random, stones);
    if (won(unpack(board, 0)) || won(unpack(board, 1))) continue;
    boards.push_back(board);
  }
  return boards;
}

}  // namespace pentago::python
