// The one query path: validates a position, answers it from the rules, the databases (a
// position to place with n stones reads its children from slice n+1, one to rotate from slice
// n) or the midgame solver (15 stones or more), sorts the moves best first, and caches answers
// by position (also the answers of the children a solve has already valued). A position to
// place whose own slice is held but whose children's is not gets a partial answer: its value.
// Which source answers a position is a value (query_route), decided before any work: the
// server holds a midgame slot by it, and the answer follows it without deciding again.
// Midgame solves run on the CPU solver, or on the GPU when asked for and present.
#include "pentago/query/query.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>

#include "pentago/db/lookup.h"
#include "pentago/mid/midgame.h"
#include "pentago/mid/midgame_gpu.h"
#include "pentago/util/error.h"
#include "pentago/util/lru_cache.h"

namespace pentago {

namespace {

// The midgame solver's values by position (each for the player to move at that board) and
// their distances (-1: a tie or not computed).
struct midgame_entry_t {
  int value = 0, distance = -1;
};
using midgame_values_t = std::unordered_map<position_t, midgame_entry_t, position_hash_t>;

// Midgame workspaces kept between solves, one per solve running at the same time.
class workspace_pool_t {
 public:
  std::unique_ptr<midgame_workspace_t> take() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (free_.empty()) return std::make_unique<midgame_workspace_t>();
    auto w = std::move(free_.back());
    free_.pop_back();
    return w;
  }
  void give(std::unique_ptr<midgame_workspace_t> w) {
    std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(std::move(w));
  }

 private:
  std::mutex mutex_;
  std::vector<std::unique_ptr<midgame_workspace_t>> free_;
};

// One midgame solve: on `gpu` when given, else on the CPU solver with a workspace of `pool`.
midgame_values_t run_midgame(position_t p, const query_options_t& options, workspace_pool_t& pool,
                             midgame_gpu_t* gpu, const std::function<bool()>& cancelled) {
  const bool distance = count_stones(p.board) >= options.distance_min_stones;
  midgame_result_t r;
  if (gpu) {
    midgame_gpu_options_t o;
    o.distance = distance;
    o.cancelled = cancelled;
    r = std::move(gpu->solve({{p.board, p.to_rotate}}, o).front());
  } else {
    midgame_options_t o;
    o.cancelled = cancelled;
    o.threads = options.threads;
    o.workspace_limit = options.midgame_memory;
    o.distance = distance;
    auto workspace = pool.take();
    try {
      r = midgame_solve(p.board, p.to_rotate, o, *workspace);
    } catch (...) {
      pool.give(std::move(workspace));
      throw;
    }
    pool.give(std::move(workspace));
  }
  midgame_values_t values;
  for (const auto& v : r.values) values[{v.board, v.to_rotate}] = {v.value, v.distance};
  return values;
}

}  // namespace

double parse_timeout_option(const std::string& option, const std::string& value) {
  char* end = nullptr;
  const double seconds = std::strtod(value.c_str(), &end);
  if (value.empty() || *end || !(seconds > 0) || seconds > 86400)
    throw usage_error_t(option + " must be a number of seconds in (0, 86400], not '" + value + "'");
  return seconds;
}

const char* answer_source_name(answer_source_t source) {
  switch (source) {
    case answer_source_t::rules:
      return "rules";
    case answer_source_t::database:
      return "database";
    case answer_source_t::midgame:
      return "midgame";
  }
  return "?";
}

struct query_engine_t::impl_t {
  query_options_t options;
  std::unique_ptr<slice_database_t> db;
  lru_cache_t<position_t, position_answer_t, position_hash_t> answers;
  std::atomic<uint64_t> queries{0}, midgame_solves{0}, midgame_in_flight{0};
  workspace_pool_t workspaces;
  std::unique_ptr<midgame_gpu_t> gpu;  // midgame solves run on it when set
  uint64_t gpu_free_bytes = 0;         // its free memory when opened
  std::string gpu_unavailable;         // options.gpu without a usable GPU: why

  // `given`: the GPU to use whatever options.gpu says (tests give the reference device).
  impl_t(const query_options_t& o, std::unique_ptr<midgame_gpu_t> given)
      : options(o), answers(std::max<size_t>(o.answer_cache_entries, 1)), gpu(std::move(given)) {
    if (o.threads < 0) throw usage_error_t("threads must be at least 0 (0: all)");
    if (!gpu && o.gpu) {
      std::string why;
      try {
        if (midgame_gpu_available(&why)) gpu = std::make_unique<midgame_gpu_t>(0);
      } catch (const pentago_error_t& e) {
        why = e.what();
      }
      if (!gpu) gpu_unavailable = why.empty() ? "no GPU could be opened" : why;
    }
    if (gpu) gpu_free_bytes = gpu->device_free_bytes();
    if (!o.databases.empty()) {
      http_options_t h;
      h.attempts = o.fetch_attempts;
      h.timeout_seconds = o.fetch_timeout_seconds;
      db = std::make_unique<slice_database_t>(o.block_cache_bytes, h);
      for (const auto& database : o.databases) db->add_database(database);
    }
  }

  // The boards whose values a position's moves need, not counting finished ones.
  static std::vector<board_t> open_children(position_t p) {
    std::vector<board_t> result;
    auto add_rotations = [&](board_t placed) {
      for (int q = 0; q < 4; q++)
        for (const int dir : {1, -1}) {
          const board_t child = rotate_board(placed, q, dir);
          if (terminal_value(child) == 2) result.push_back(child);
        }
    };
    if (p.to_rotate) {
      add_rotations(p.board);
    } else {
      const int turn = position_mover(p);
      for (side_t rest = empty_cells(p.board); rest; rest &= rest - 1) {
        const int i = __builtin_ctzll(rest);
        const board_t placed = place_stone(p.board, turn, i / 16, i % 16);
        if (!won(unpack(placed, turn))) add_rotations(placed);
      }
    }
    return result;
  }

  // Which source answers an unfinished position (`r.position`, its open children in
  // `r.children`), and what is missing where none does.
  void route_open(query_route_t& r) const {
    const position_t p = r.position;
    const int n = count_stones(p.board), needed = p.to_rotate ? n : n + 1;
    std::optional<board_t> uncovered;
    r.kind = route_kind_t::database;
    if (db && db->has_slice(needed)) {
      for (const board_t c : r.children)
        if (!db->covers(c)) {
          uncovered = c;
          break;
        }
      if (!uncovered) return;
    }
    r.kind = route_kind_t::midgame;
    if (n >= midgame_min_stones) return;
    std::string why = "position " + position_code(p) + " (" + std::to_string(n) +
                      (n == 1 ? " stone" : " stones") + ", to " +
                      (p.to_rotate ? "rotate" : "place") + ") needs slice-" +
                      std::to_string(needed) + ".pentago";
    if (uncovered)
      why += " with section " + locate_board(*uncovered).section.name() + ", which " +
             db->describe() + " does not hold";
    else
      why += db ? ", which none of the databases " + db->describe() + " holds"
                : std::string(", and no database is given (--db)");
    why += "; the midgame solver answers positions with " + std::to_string(midgame_min_stones) +
           " or more stones";
    // The value of a position to place is in its own slice even when its moves are not.
    const bool own_value = !p.to_rotate && db && db->covers(p.board);
    r.kind = own_value ? route_kind_t::own_value_only : route_kind_t::unanswerable;
    r.missing = why;
  }

  // Value for the mover of a position to place, from the databases.
  int database_value(board_t board) const {
    const auto v = db->find(board);
    PENTAGO_CHECK(v.has_value(), "board " + std::to_string(board) + " not covered");
    const bool black = v->win(0), white = v->notlose(0);
    PENTAGO_CHECK(!(black && white), "both players win board " + std::to_string(board));
    if (!black && !white) return 0;
    return black == (board_turn(board) == 0) ? 1 : -1;
  }

  // The values of a position's children, from the databases or from one midgame solve.
  struct child_values_t {
    answer_source_t source;
    midgame_values_t mid;
  };

  // The value of a rotation's child to place for the player who rotated, from `from`.
  void value_child(const child_values_t& from, rotation_answer_t& r) const {
    if (from.source == answer_source_t::database) {
      r.value = -database_value(r.child.board);
    } else {
      const auto it = from.mid.find(r.child);
      PENTAGO_CHECK(it != from.mid.end(), "midgame result lacks board " + position_code(r.child));
      r.value = -it->second.value;
      r.distance = it->second.distance >= 0 ? 1 + it->second.distance : -1;
    }
    r.source = from.source;
  }

  child_values_t solve_children(const query_route_t& r, const std::function<bool()>& cancelled) {
    child_values_t values{
        r.kind == route_kind_t::database ? answer_source_t::database : answer_source_t::midgame,
        {}};
    if (r.kind == route_kind_t::database) {
      db->prefetch(r.children);
      return values;
    }
    // A root whose workspace the GPU could not hold goes to the CPU solver.
    const bool fits = gpu && midgame_gpu_t::batch_bytes(count_stones(r.position.board), 1) <=
                                 midgame_gpu_t::usable_bytes(gpu_free_bytes);
    midgame_gpu_t* device = fits ? gpu.get() : nullptr;
    midgame_in_flight++;
    try {
      values.mid = run_midgame(r.position, options, workspaces, device, cancelled);
    } catch (...) {
      midgame_in_flight--;
      throw;
    }
    midgame_in_flight--;
    midgame_solves++;
    return values;
  }

  position_answer_t compute(const query_route_t& r, const std::function<bool()>& cancelled) {
    const position_t p = r.position;
    position_answer_t a;
    a.position = p;
    a.stones = count_stones(p.board);
    a.to_move = position_mover(p);
    switch (r.kind) {
      case route_kind_t::cached:
        return *r.cached;
      case route_kind_t::rules:
        a.value = *rules_value(p);
        a.source = answer_source_t::rules;
        a.distance = a.value ? 0 : -1;
        return a;
      case route_kind_t::unanswerable:
        throw pentago_error_t(r.missing);
      case route_kind_t::own_value_only:
        a.value = database_value(p.board);
        a.source = answer_source_t::database;
        a.slice = a.stones;
        a.moves_unknown = r.missing;
        return a;
      case route_kind_t::database:
        a.slice = a.stones + (p.to_rotate ? 0 : 1);
        break;
      case route_kind_t::midgame:
        break;
    }
    const child_values_t from = solve_children(r, cancelled);
    auto valued = position_moves<move_answer_t>(p, [&](rotation_answer_t& rotation) {
      value_child(from, rotation);
      return true;
    });
    a.moves = std::move(valued.moves);
    a.value = valued.value, a.source = valued.source, a.distance = valued.distance;
    if (from.source == answer_source_t::midgame) {
      const auto it = from.mid.find(p);
      PENTAGO_CHECK(
          it != from.mid.end() && it->second.value == a.value &&
              (it->second.distance < 0 || it->second.distance == a.distance),
          "midgame root value or distance disagrees with its children at " + position_code(p));
    }
    if (a.source != answer_source_t::database) a.slice = -1;
    return a;
  }

  // The answers of a position to place's children to rotate, which its answer already holds.
  void remember_children(const position_answer_t& a) {
    if (a.position.to_rotate) return;
    for (const auto& m : a.moves) {
      if (!m.child.to_rotate) continue;
      position_answer_t c;
      c.position = m.child;
      c.stones = a.stones + 1;
      c.to_move = a.to_move;
      c.value = m.value;
      c.source = m.source;
      c.distance = m.distance;
      if (c.source == answer_source_t::database) c.slice = a.slice;
      for (const auto& r : m.rotations) c.moves.push_back(rotation_as_move<move_answer_t>(r));
      answers.put(c.position, std::move(c));
    }
  }
};

query_engine_t::query_engine_t(const query_options_t& options)
    : impl_(std::make_unique<impl_t>(options, nullptr)) {}

query_engine_t::query_engine_t(const query_options_t& options, midgame_gpu_t&& gpu)
    : impl_(std::make_unique<impl_t>(options, std::make_unique<midgame_gpu_t>(std::move(gpu)))) {}

query_engine_t::~query_engine_t() = default;

query_route_t query_engine_t::route(position_t position) const {
  validate_position(position);
  query_route_t r;
  r.position = position;
  if ((r.cached = impl_->answers.find(position))) {
    r.kind = route_kind_t::cached;
  } else if (rules_value(position)) {
    r.kind = route_kind_t::rules;
  } else {
    r.children = impl_t::open_children(position);
    impl_->route_open(r);
  }
  return r;
}

position_answer_t query_engine_t::answer(const query_route_t& route,
                                         const std::function<bool()>& cancelled) {
  const auto start = std::chrono::steady_clock::now();
  impl_->queries++;
  bool computed = false;
  const auto cached = route.cached ? route.cached : impl_->answers.get(route.position, [&] {
    computed = true;
    return impl_->compute(route, cancelled);
  });
  if (computed) impl_->remember_children(*cached);
  position_answer_t a = *cached;
  a.elapsed_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return a;
}

position_answer_t query_engine_t::answer(position_t position,
                                         const std::function<bool()>& cancelled) {
  return answer(route(position), cancelled);
}

std::vector<position_answer_t> query_engine_t::best_line(position_t position,
                                                         const std::function<bool()>& cancelled) {
  std::vector<position_answer_t> line;
  for (;;) {
    line.push_back(answer(position, cancelled));
    const auto& a = line.back();
    if (a.moves.empty()) break;
    PENTAGO_CHECK(line.size() <= 80, "best line does not end");
    position = a.moves.front().child;
  }
  return line;
}

query_stats_t query_engine_t::stats() const {
  query_stats_t s;
  s.queries = impl_->queries.load();
  const auto a = impl_->answers.stats();
  s.answer_cache_hits = a.hits + a.waits;
  if (impl_->db) {
    const auto b = impl_->db->cache().stats();
    s.block_cache_hits = b.hits + b.waits;
    s.block_cache_misses = b.misses;
    s.block_cache_bytes = b.bytes;
    s.http_requests = impl_->db->http_requests();
  }
  s.midgame_solves = impl_->midgame_solves.load();
  s.midgame_in_flight = impl_->midgame_in_flight.load();
  if (impl_->gpu) s.midgame_device = impl_->gpu->device_name();
  s.midgame_gpu_unavailable = impl_->gpu_unavailable;
  return s;
}

std::vector<int> query_engine_t::slices() const {
  return impl_->db ? impl_->db->slices() : std::vector<int>{};
}

std::string answer_json(const position_answer_t& answer) {
  using json_t = nlohmann::ordered_json;
  auto source_fields = [](json_t& j, answer_source_t source) {
    j["source"] = answer_source_name(source);
  };
  // A move or a rotation: its notation, child, value and source.
  auto move_fields = [&](const auto& m) {
    json_t j;
    j["move"] = m.move;
    j["child"] = position_code(m.child);
    j["value"] = value_word(m.value);
    if (m.distance >= 0) j["distance"] = m.distance;
    source_fields(j, m.source);
    return j;
  };
  json_t j;
  j["board"] = position_code(answer.position);
  j["stones"] = answer.stones;
  j["to_move"] = color_name(answer.to_move);
  j["phase"] = answer.position.to_rotate ? "rotate" : "place";
  j["value"] = value_word(answer.value);
  if (answer.distance >= 0) j["distance"] = answer.distance;
  source_fields(j, answer.source);
  if (answer.source == answer_source_t::database && answer.slice >= 0) j["slice"] = answer.slice;
  json_t moves = json_t::array();
  for (const auto& m : answer.moves) {
    json_t jm = move_fields(m);
    json_t rotations = json_t::array();
    for (const auto& r : m.rotations) rotations.push_back(move_fields(r));
    jm["rotations"] = std::move(rotations);
    moves.push_back(std::move(jm));
  }
  if (answer.moves_unknown.empty()) {
    j["moves"] = std::move(moves);
  } else {
    j["moves"] = nullptr;
    j["moves_unknown"] = answer.moves_unknown;
  }
  j["elapsed_ms"] = answer.elapsed_ms;
  return j.dump();
}

}  // namespace pentago
