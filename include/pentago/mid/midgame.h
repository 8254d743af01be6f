// The midgame solver (docs/formats.md): the value of a position with 15 or more stones and
// of every child a player choosing a move needs, by downstream retrograde analysis over the
// subsets of the root's empty cells, one halfsuper (128 bits) per position, multi-threaded.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "pentago/base/board.h"
#include "pentago/util/error.h"

namespace pentago {

// Fewest stones the midgame solver accepts (workspace: 486 MiB at 18 stones, 1.4 GiB at 17,
// 4.0 GiB at 16, 11.2 GiB at 15; below 15 it would pass 30 GiB).
constexpr int midgame_min_stones = 15;

struct midgame_options_t {
  int threads = 0;  // 0: all hardware threads
  // Bytes the layer workspace may take; 0: midgame_default_workspace_limit(). A larger
  // workspace throws pentago::error naming both.
  uint64_t workspace_limit = 0;
  // Also the distance of every listed position: passes cut off after d turns for d = 1, 2, ...
  // until every decisive one is known (up to about 8 times the plain solve's time).
  bool distance = false;
  // Asked on the calling thread before every layer; when it returns true the solve stops and
  // throws midgame_cancelled (a client that left, an interrupt).
  std::function<bool()> cancelled;
};

// A solve stopped by midgame_options_t::cancelled.
struct midgame_cancelled_t : pentago_error_t {
  midgame_cancelled_t() : pentago_error_t("the midgame solve was cancelled") {}
};

// The default workspace bound: three quarters of the machine's physical memory.
uint64_t midgame_default_workspace_limit();

// One valued position. `to_rotate`: a stone was placed and the rotation is still due. `value`
// (-1 loss, 0 tie, 1 win) is for the player to move at that board; for a to_rotate board, the
// player who placed and must now rotate.
//
// `distance` (with midgame_options_t::distance): the turns to the end of the game with perfect
// play, a turn being a placement and its rotation and the current one counting as one (for a
// board to rotate, its rotation is that turn): the fewest the winner can force, the most the
// loser can hold out. 0 for a finished board, -1 for a tie or when not asked for.
struct midgame_value_t {
  board_t board = 0;
  bool to_rotate = false;
  int value = 0;
  int distance = -1;
};

struct midgame_result_t {
  // In the 2013 order (docs/formats.md): for a root to place, per empty cell in increasing bit
  // order the 8 rotations of that placement (quadrant q = s>>1, s even CCW) then the placed
  // board itself; a finished child is listed alone; the root comes last. For a root to
  // rotate: its 8 rotations, then the root.
  std::vector<midgame_value_t> values;
  uint64_t workspace_bytes = 0;  // bytes of the layer workspace used
  int threads = 1;
  double seconds = 0;
};

// Workspace bytes the solver needs for a root with `stones` stones (0 <= stones <= 36).
uint64_t midgame_workspace_bytes(int stones);

// Solves `board` (stone counts checked with check_board). Throws usage_error for fewer than
// midgame_min_stones stones, naming the workspace it would need; pentago::error if the
// workspace exceeds the workspace limit, naming the need and the limit.
midgame_result_t midgame_solve(board_t board, bool to_rotate,
                               const midgame_options_t& options = {});

// Layer memory kept between solves (fresh memory costs page faults and zeroing, about as much
// as an 18-stone solve's own work on a virtual machine). It grows to the largest solve seen;
// one solve at a time per workspace.
class midgame_workspace_t {
 public:
  midgame_workspace_t();
  ~midgame_workspace_t();
  midgame_workspace_t(const midgame_workspace_t&) = delete;
  midgame_workspace_t& operator=(const midgame_workspace_t&) = delete;
  uint64_t bytes() const;  // currently held
  void release();          // gives the memory back

 private:
  friend midgame_result_t midgame_solve(board_t, bool, const midgame_options_t&,
                                        midgame_workspace_t&);
  void* data_ = nullptr;
  uint64_t bytes_ = 0;
  bool fresh_ = false;  // mapped and not touched yet
};

// The same, with the layers in `workspace` (grown if needed, kept afterwards).
midgame_result_t midgame_solve(board_t board, bool to_rotate, const midgame_options_t& options,
                               midgame_workspace_t& workspace);

}  // namespace pentago
