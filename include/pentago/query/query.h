// The one query path of every front end (pentago-lookup, pentago-serve): the value of a
// position and of each of its moves, from the rules, the saved slices of databases (local
// directories or base URLs), or the midgame solver, with an LRU cache of answers by board.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pentago/base/position.h"

namespace pentago {

// Where a value came from.
enum class answer_source_t { rules, database, midgame };
const char* answer_source_name(answer_source_t source);  // "rules", "database", "midgame"

// Values are -1 loss, 0 tie, 1 win (value_word, pentago/base/position.h): always for the player
// to move at the position they belong to.

// A rotation after a placement: quadrant 0..3, direction +1 CCW or -1 CW.
struct rotation_answer_t {
  std::string move;  // the move notation of cli/query ("q0 ccw")
  position_t child;  // the board after the rotation (to place)
  int value = 0;     // for the player who placed and rotated (the mover of the parent)
  answer_source_t source = answer_source_t::rules;
  int distance = -1;  // turns to the end counting this one (position_answer); -1 unknown or tie
};

// One move of a position. For a position to place: placing at a cell (child to rotate, or a
// finished board), with that placement's 8 rotations in `rotations`. For a position to
// rotate: one rotation (no nested rotations).
struct move_answer_t {
  std::string move;  // "c4" (a cell: row a..f top to bottom, column 1..6) or "q2 cw"
  position_t child;
  int value = 0;  // for the player to move at the parent position
  answer_source_t source = answer_source_t::rules;
  int distance = -1;  // turns to the end counting this one (position_answer); -1 unknown or tie
  std::vector<rotation_answer_t> rotations;
};

struct position_answer_t {
  position_t position;
  int stones = 0;
  int to_move = 0;  // 0 black, 1 white (for a position to rotate: the player who placed)
  int value = 0;    // for that player
  answer_source_t source = answer_source_t::rules;
  // Turns to the end of the game with perfect play (a turn: a placement and its rotation; the
  // current turn counts as one; 0 for a finished game): the fewest the winner can force, the
  // most the loser can hold out. -1 for a tie, or where the source cannot know it (database).
  int distance = -1;
  int slice = -1;  // database slice read, when source is database
  // Best first: wins (fastest first), then ties, then losses (slowest first); moves whose
  // distance is unknown after those of the same value whose distance is known.
  std::vector<move_answer_t> moves;
  // Non-empty for a partial answer: the value is known (from the position's own slice) but the
  // moves are not; names the missing slice. `moves` is then empty.
  std::string moves_unknown;
  double elapsed_ms = 0;
};

struct query_options_t {
  std::vector<std::string> databases;  // directories or http(s):// base URLs
  int threads = 0;                     // midgame solver threads (0: all)
  // Midgame solves of positions with at least this many stones also give distances (up to
  // about 8 times the time of the plain solve).
  int distance_min_stones = 18;
  uint64_t midgame_memory = 0;  // midgame workspace bound (0: from the machine's memory)
  uint64_t block_cache_bytes = uint64_t(128) << 20;
  size_t answer_cache_entries = 4096;
  int fetch_attempts = 3;             // tries of a remote read (network errors, corrupt data)
  double fetch_timeout_seconds = 30;  // per HTTP request, its retries included
  // Midgame solves on the GPU (pentago/mid/midgame_gpu.h) when this build has CUDA and a
  // device is present, else on the CPU solver (query_stats_t::midgame_gpu_unavailable says
  // why). A position whose workspace is more than the device had free when opened goes to the
  // CPU solver too. The GPU solves one position at a time; concurrent solves wait for it.
  bool gpu = false;
};

struct query_stats_t {
  uint64_t queries = 0, answer_cache_hits = 0;
  uint64_t block_cache_hits = 0, block_cache_misses = 0, block_cache_bytes = 0;
  uint64_t midgame_solves = 0, midgame_in_flight = 0;
  uint64_t http_requests = 0;          // range requests to remote databases
  std::string midgame_device = "cpu";  // what midgame solves run on: "cpu" or the GPU's name
  // With query_options_t::gpu but no usable GPU: why (the CPU solver answers); else empty.
  std::string midgame_gpu_unavailable;
};

// A --timeout value: a number of seconds in (0, 86400]; throws usage_error naming the option.
double parse_timeout_option(const std::string& option, const std::string& value);

// How a position is answered, decided before any work (query_engine_t::route): from the cache
// of answers, by the rules (a finished game), from the databases (its children's slice covers
// every child), by the midgame solver, with its own value only (a position to place whose own
// slice is held but whose children's is not), or not at all.
enum class route_kind_t { cached, rules, database, midgame, own_value_only, unanswerable };

// A valid position and how it is answered: what query_engine_t::route gives (the only maker of
// one) and answer takes, as route decided it.
class query_engine_t;
struct query_route_t {
  position_t position;
  route_kind_t kind = route_kind_t::unanswerable;
  std::string missing;                              // own_value_only, unanswerable: why
  std::vector<board_t> children;                    // database, midgame: the boards to value
  std::shared_ptr<const position_answer_t> cached;  // cached: the answer
  // Whether answering runs the midgame solver (the server holds a slot for it).
  bool needs_midgame() const { return kind == route_kind_t::midgame; }

 private:
  friend class query_engine_t;
  query_route_t() = default;  // nor an aggregate: answer({board, to_rotate}) names a position
};

class midgame_gpu_t;  // pentago/mid/midgame_gpu.h

// Thread safe. Construction opens (and validates) every database.
class query_engine_t {
 public:
  explicit query_engine_t(const query_options_t& options);
  // The same with midgame solves on `gpu` (options.gpu aside): how tests run the GPU path on
  // midgame_gpu_t::reference(), its kernels on host threads.
  query_engine_t(const query_options_t& options, midgame_gpu_t&& gpu);
  ~query_engine_t();

  // Validates the position (usage_error) and decides how it is answered, reading nothing but
  // the databases' section lists and the cache of answers.
  query_route_t route(position_t position) const;
  // The answer of a routed position. Throws pentago::error with one line naming the missing
  // slice-N.pentago (never a guess), unless the position's own value is in a slice: then a
  // partial answer (moves_unknown). `cancelled` (optional) is asked between the layers of a
  // midgame solve: true stops it with midgame_cancelled.
  position_answer_t answer(const query_route_t& route, const std::function<bool()>& cancelled = {});
  // route, then answer.
  position_answer_t answer(position_t position, const std::function<bool()>& cancelled = {});
  // A best line from the position to the end of the game (the position first).
  std::vector<position_answer_t> best_line(position_t position,
                                           const std::function<bool()>& cancelled = {});
  query_stats_t stats() const;
  // The slices the databases hold, ascending.
  std::vector<int> slices() const;

 private:
  struct impl_t;
  std::unique_ptr<impl_t> impl_;
};

// The JSON of an answer (the shape of docs/api.md), as one line of text.
std::string answer_json(const position_answer_t& answer);

}  // namespace pentago
