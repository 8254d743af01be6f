// From passes to listed values, for any backend of the midgame solver (the CPU row kernels, the
// batched GPU kernels): the root of a board, the rules' value of a finished one, the two full
// passes merged into (win, notlose) halves, the cut-off passes that time every decisive entry,
// and the list in the 2013 order (docs/formats.md), for every root of a batch at once.
#include <algorithm>
#include <tuple>

#include "midgame_layer.h"
#include "pentago/util/error.h"

namespace pentago::detail {
namespace {

// The (win, notlose) halves of the root (index 0, for its mover) and of the layer-1 positions
// (1 + spot, for the other player).
struct solved_halves_t {
  std::vector<halfsuper_t> win, notlose;
};

int half_value(const solved_halves_t& h, int index, int j) {
  return int(h.win[index](j)) + int(h.notlose[index](j)) - 1;
}

// Value of a board to rotate that has five in a row, for the player who placed (rule 1).
int finished_rotate_value(board_t board, int placer) {
  const bool me = won(unpack(board, placer)), op = won(unpack(board, 1 - placer));
  return me && op ? 0 : me ? 1 : -1;
}

// Distances (turns to the end, midgame.h) of the entries of a root's halves: index 0 (the
// layer-0 positions) and 1 + spot (layer 1), 128 bits each; -1 where not computed or a tie.
struct distance_table_t {
  std::vector<int8_t> turns;
  int at(int index, int j) const { return turns.empty() ? -1 : turns[index * 128 + j]; }
};

// The single-quadrant rotations (the 2013 order) as halfsuper bits.
int rotation_bit(int s) {
  const int q = s >> 1, dir = s % 2 == 0 ? 1 : -1;
  int g[4] = {0, 0, 0, 0};
  g[q] = (dir + 4) % 4;
  return halfsuper_index(g[0], g[1], g[2], g[3]);
}

// Pass 1 holds the root mover's wins and the other player's notlose; pass 0 the reverse.
std::vector<solved_halves_t> merge_passes(const std::vector<std::vector<halfsuper_t>>& aggressive,
                                          const std::vector<std::vector<halfsuper_t>>& defensive) {
  std::vector<solved_halves_t> halves(aggressive.size());
  for (size_t b = 0; b < halves.size(); b++) {
    const size_t entries = aggressive[b].size();
    solved_halves_t& r = halves[b];
    r.win.resize(entries);
    r.notlose.resize(entries);
    for (size_t i = 0; i < entries; i++) {
      r.win[i] = (i == 0 ? aggressive : defensive)[b][i];
      r.notlose[i] = (i == 0 ? defensive : aggressive)[b][i];
    }
  }
  return halves;
}

// Distances by passes cut off after d = 0, 1, ... turns from layer 0: "the mover of layer 0
// wins within d" is bit set in the aggressive pass at index 0, and at index 1 + spot "the
// mover of layer 1 does not lose within d" (so losing within d is the bit clear); the other
// pass the reverse. An entry's distance is the first d at which its winner's bit shows (less
// the one turn that leads to layer 1). Stops once every decisive entry of every root has one:
// at d = spots the passes are the full ones, so every decisive entry has one by then.
std::vector<distance_table_t> solve_distances(const std::vector<midgame_root_t>& roots,
                                              const std::vector<solved_halves_t>& halves,
                                              const midgame_pass_t& pass) {
  // An entry of a root to rotate is timed from d = 0 (its rotation is the first turn); one of a
  // root to place from d = 1.
  struct entry_t {
    int root, index, j, first_d;
    bool aggressive, want_set;
  };
  std::vector<entry_t> open;
  for (size_t b = 0; b < roots.size(); b++) {
    const midgame_root_t& root = roots[b];
    auto add = [&](int index, int j) {
      const int v = half_value(halves[b], index, j);
      if (v == 0) return;
      // The aggressive pass: index 0 wins show as set bits, index > 0 losses as clear bits.
      const bool aggressive = (index == 0) == (v > 0);
      open.push_back({int(b), index, j, root.to_rotate ? 0 : 1, aggressive, v > 0});
    };
    if (root.to_rotate) {
      for (int s = 0; s < 8; s++) add(0, rotation_bit(s));
    } else {
      add(0, 0);
      for (int i = 0; i < root.spots; i++)
        if (!won(root.first | side_t(1) << root.spot_bit[i]))
          for (int s = 0; s < 8; s++) add(1 + i, rotation_bit(s));
    }
  }
  std::vector<distance_table_t> tables(roots.size());
  for (size_t b = 0; b < roots.size(); b++) tables[b].turns.assign((1 + roots[b].spots) * 128, -1);
  const int spots = roots.empty() ? 0 : roots[0].spots;
  for (int d = 0; d <= spots && !open.empty(); d++) {
    for (const bool aggressive : {true, false}) {
      auto due = [&](const entry_t& e) { return e.aggressive == aggressive && e.first_d <= d; };
      if (std::none_of(open.begin(), open.end(), due)) continue;
      const std::vector<std::vector<halfsuper_t>> values = pass(aggressive, d);
      std::erase_if(open, [&](const entry_t& e) {
        if (!due(e) || values[e.root][e.index](e.j) != e.want_set) return false;
        tables[e.root].turns[e.index * 128 + e.j] = int8_t(d - (e.index > 0 ? 1 : 0));
        return true;
      });
    }
  }
  PENTAGO_CHECK(open.empty(), "midgame distances: a decisive position never ends");
  return tables;
}

// The 8 rotations of a board to rotate in the 2013 order, valued from halfsuper `index` (the
// player to move after the rotation); appends them and returns the board's value (placer) and
// its distance (the best rotation's: the winner's fastest, the loser's slowest; -1 unknown).
std::pair<int, int> append_rotations(std::vector<midgame_value_t>& values, board_t board,
                                     const solved_halves_t& h, const distance_table_t& distances,
                                     int index) {
  int best = -1;
  int fastest_win = 1000, slowest_loss = -1;
  for (int s = 0; s < 8; s++) {
    const int q = s >> 1, dir = s % 2 == 0 ? 1 : -1;
    const int j = rotation_bit(s);
    const int v = half_value(h, index, j), d = distances.at(index, j);
    values.push_back({rotate_board(board, q, dir), false, v, d});
    best = std::max(best, -v);
    if (d >= 0 && v < 0) fastest_win = std::min(fastest_win, 1 + d);
    if (d >= 0 && v > 0) slowest_loss = std::max(slowest_loss, 1 + d);
  }
  const int distance = distances.turns.empty() ? -1
                       : best > 0              ? fastest_win
                       : best < 0              ? slowest_loss
                                               : -1;
  return {best, distance};
}

// The list of one root.
std::vector<midgame_value_t> root_values(const midgame_root_t& root, const solved_halves_t& h,
                                         const distance_table_t& distances, bool distance) {
  std::vector<midgame_value_t> values;
  if (root.to_rotate) {
    const auto [v, d] = append_rotations(values, root.board, h, distances, 0);
    values.push_back({root.board, true, v, d});
    return values;
  }
  const int mover = count_stones(root.board) & 1;
  int best = -1, fastest_win = 1000, slowest_loss = -1;
  for (int i = 0; i < root.spots; i++) {
    const int bit = root.spot_bit[i];
    const board_t child = place_stone(root.board, mover, bit / 16, bit % 16);
    int v, d, move_turns;
    if (won(unpack(child, mover))) {
      // Five by placing: the game ends with this turn.
      v = finished_rotate_value(child, mover);
      d = distance ? 0 : -1;
      move_turns = 1;
    } else {
      std::tie(v, d) = append_rotations(values, child, h, distances, 1 + i);
      move_turns = d;
    }
    values.push_back({child, true, v, d});
    best = std::max(best, v);
    if (v > 0) fastest_win = std::min(fastest_win, move_turns);
    if (v < 0) slowest_loss = std::max(slowest_loss, move_turns);
  }
  PENTAGO_CHECK(best == half_value(h, 0, 0), "midgame root value disagrees with its children");
  int root_distance = -1;
  if (distance && best != 0) {
    root_distance = best > 0 ? fastest_win : slowest_loss;
    PENTAGO_CHECK(root_distance == distances.at(0, 0),
                  "midgame root distance disagrees with its children");
  }
  values.push_back({root.board, false, best, root_distance});
  return values;
}

}  // namespace

std::optional<midgame_value_t> midgame_finished_root(board_t board, bool to_rotate, bool distance) {
  check_board(board);
  const int stones = count_stones(board);
  if (to_rotate && stones == 0) throw usage_error_t("a board to rotate needs a placed stone");
  if (to_rotate) {
    if (!won(unpack(board, 0)) && !won(unpack(board, 1))) return std::nullopt;
    const int v = finished_rotate_value(board, 1 - (stones & 1));
    return midgame_value_t{board, true, v, distance && v != 0 ? 0 : -1};
  }
  const int v = terminal_value(board);
  if (v == 2) return std::nullopt;
  return midgame_value_t{board, false, v, distance && v != 0 ? 0 : -1};
}

midgame_root_t midgame_root(board_t board, bool to_rotate) {
  midgame_root_t root;
  const int stones = count_stones(board);
  const int mover = stones & 1;  // the colour that places next (after the pending rotation)
  root.board = board;
  root.to_rotate = to_rotate;
  root.spots = 36 - stones;
  int s = 0;
  for (side_t e = empty_cells(board); e; e &= e - 1) root.spot_bit[s++] = __builtin_ctzll(e);
  root.first = unpack(board, mover);
  root.second = unpack(board, 1 - mover);
  root.parity0 = to_rotate ? 1 : 0;
  return root;
}

std::vector<std::vector<midgame_value_t>> midgame_root_values(
    const std::vector<midgame_root_t>& roots, bool distance, const midgame_pass_t& pass) {
  if (roots.empty()) return {};
  const int spots = roots[0].spots;
  for (const midgame_root_t& root : roots)
    PENTAGO_CHECK(root.spots == spots, "a midgame batch mixes spot counts");
  // The aggressive pass first, then the other.
  const std::vector<std::vector<halfsuper_t>> aggressive = pass(true, spots);
  const std::vector<std::vector<halfsuper_t>> defensive = pass(false, spots);
  const std::vector<solved_halves_t> halves = merge_passes(aggressive, defensive);
  const std::vector<distance_table_t> distances =
      distance ? solve_distances(roots, halves, pass) : std::vector<distance_table_t>(roots.size());
  std::vector<std::vector<midgame_value_t>> lists(roots.size());
  for (size_t b = 0; b < roots.size(); b++)
    lists[b] = root_values(roots[b], halves[b], distances[b], distance);
  return lists;
}

}  // namespace pentago::detail
