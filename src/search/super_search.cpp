// Rotation-abstracted forward search (docs/formats.md, "Supers") with a shared lockless table and a
// younger-brothers-wait parallel split.
#include "pentago/search/super_search.h"

#include <atomic>
#include <exception>
#include <mutex>
#include <vector>

#include "pentago/base/symmetry.h"
#include "pentago/search/lockless_table.h"
#include "pentago/search/standardize.h"
#include "pentago/util/error.h"
#include "pentago/util/worker_pool.h"

namespace pentago {
namespace {

using value_table_t = lockless_table_t<8>;

bool all_ones(const super_t& s) { return (s.w[0] & s.w[1] & s.w[2] & s.w[3]) == ~uint64_t(0); }

value_table_t::data_t to_words(const superinfo_t& v) {
  return {v.win.w[0],     v.win.w[1],     v.win.w[2],     v.win.w[3],
          v.notlose.w[0], v.notlose.w[1], v.notlose.w[2], v.notlose.w[3]};
}

superinfo_t from_words(const value_table_t::data_t& d) {
  superinfo_t v;
  for (int i = 0; i < 4; i++) v.win.w[i] = d[i], v.notlose.w[i] = d[4 + i];
  return v;
}

superinfo_t transform_info(symmetry_t s, const superinfo_t& v) {
  return {transform_super(s, v.win), transform_super(s, v.notlose)};
}

// A node whose children are searched by several threads. Its `done` flag is raised once its
// value is decided, which cancels the subtrees still running below it.
struct split_point_t {
  const split_point_t* parent;
  const int level;  // nesting depth of split points: 1 at the outermost
  std::atomic<bool> done{false};
  std::atomic<int> pending{0};
  std::atomic<bool> incomplete{false};
  std::mutex mutex;
  super_t win, notlose;  // contributions of the children, under mutex
  std::exception_ptr failure;

  explicit split_point_t(const split_point_t* p) : parent(p), level(p ? p->level + 1 : 1) {}
  bool cancelled() const {
    for (const split_point_t* s = this; s; s = s->parent)
      if (s->done.load(std::memory_order_relaxed)) return true;
    return false;
  }
};

// Per-task state: counters, and the innermost split point above the task.
struct task_context_t {
  const split_point_t* split = nullptr;
  bool aborted = false;  // a cancelled subtree: its value is meaningless, nothing is stored
  search_stats_t stats;
};

}  // namespace

search_stats_t& search_stats_t::operator+=(const search_stats_t& o) {
  nodes += o.nodes;
  leaves += o.leaves;
  table_probes += o.table_probes;
  table_hits += o.table_hits;
  table_stores += o.table_stores;
  return *this;
}

struct super_searcher_t::impl_t {
  super_search_options_t options;
  value_table_t table;
  std::unique_ptr<worker_pool_t> pool;  // threads - 1 workers; the caller is the last thread
  std::mutex stats_mutex;
  search_stats_t totals;

  explicit impl_t(const super_search_options_t& o) : options(o), table(o.table_bits) {
    if (o.threads < 1 || o.threads > 1024)
      throw usage_error_t("thread count must be between 1 and 1024, got " +
                          std::to_string(o.threads));
    if (o.leaf_stones != -1 && (o.leaf_stones < 0 || o.leaf_stones > 36))
      throw usage_error_t("leaf stone count must be -1 (none) or 0..36, got " +
                          std::to_string(o.leaf_stones));
    if (o.leaf_stones != -1 && !o.leaf)
      throw usage_error_t("leaf stone count given without a leaf function");
    if (o.threads > 1) pool = std::make_unique<worker_pool_t>(o.threads - 1);
  }

  void merge(const search_stats_t& s) {
    std::lock_guard<std::mutex> lock(stats_mutex);
    totals += s;
  }

  // Value of the board (black, white) with n stones for its mover, from any frame: looked up
  // or computed on the superstandardized board and mapped back.
  superinfo_t node(side_t black, side_t white, int n, int depth, task_context_t& ctx) {
    if (n == options.leaf_stones) {
      ctx.stats.leaves++;
      return options.leaf(pack(black, white));
    }
    if (36 - n < options.table_min_empties) return expand(black, white, n, depth, ctx);
    symmetry_t s;
    const board_t standard = fast_superstandardize(pack(black, white), &s);
    const symmetry_t back = inverse(s);
    value_table_t::data_t words;
    ctx.stats.table_probes++;
    if (table.probe(standard, words)) {
      ctx.stats.table_hits++;
      return transform_info(back, from_words(words));
    }
    const uint64_t nodes_before = ctx.stats.nodes;
    const superinfo_t v = expand(unpack(standard, 0), unpack(standard, 1), n, depth, ctx);
    if (ctx.aborted) return v;
    // Cost: log2 of the positions expanded for this result.
    const uint64_t work = ctx.stats.nodes - nodes_before;
    table.store(standard, to_words(v), 64 - __builtin_clzll(work | 1));
    ctx.stats.table_stores++;
    return transform_info(back, v);
  }

  // The recurrence (docs/formats.md, "Supers") on the board as given.
  superinfo_t expand(side_t black, side_t white, int n, int depth, task_context_t& ctx) {
    const int turn = n & 1;
    const side_t me = turn ? white : black, op = turn ? black : white;
    const super_t my_fives = super_wins(me), op_fives = super_wins(op);
    const super_t decided = my_fives | op_fives;  // rule 1: the game is already over there
    const superinfo_t over = {my_fives & ~op_fives, my_fives};
    if (n == 36) return {over.win, over.notlose | ~decided};  // full board: tie unless over
    if (all_ones(decided)) return over;
    if (ctx.split && ctx.split->cancelled()) {
      ctx.aborted = true;
      return {};
    }
    ctx.stats.nodes++;

    // Immediate wins first: a placement that makes five wins without rotating.
    side_t cells[36];
    int count = 0;
    super_t win, notlose;
    for (side_t rest = side_mask & ~(black | white); rest; rest &= rest - 1) {
      const side_t cell = rest & -rest;
      cells[count++] = cell;
      const super_t placed = super_wins(me | cell);
      win |= placed;
    }
    const auto finish = [&] {
      return superinfo_t{(win & ~decided) | over.win, ((notlose | win) & ~decided) | over.notlose};
    };
    const auto settled = [&] { return all_ones(win | decided); };
    if (settled()) return finish();

    if (n == 35 && options.leaf_stones != 36) {
      // The placement fills the board: after the rotation, fives decide, else a tie.
      const super_t placed = super_wins(me | cells[0]);
      win |= rmax(placed & ~op_fives);
      notlose |= rmax(placed | ~op_fives);
      return finish();
    }

    // Each child b + cell is valued from the opponent's view; the mover then picks the best
    // rotation: win where some rotation makes the child lost for the opponent, and so on.
    const auto absorb = [](super_t& w, super_t& nl, const superinfo_t& child) {
      w |= rmax(~child.notlose);
      nl |= rmax(~child.win);
    };
    const auto child_value = [&](int i, task_context_t& c) {
      return turn ? node(black, white | cells[i], n + 1, depth + 1, c)
                  : node(black | cells[i], white, n + 1, depth + 1, c);
    };

    const bool split = pool && count >= options.split_min_empties && depth < options.split_depth;
    // Younger brothers wait: the eldest child is searched first, alone.
    for (int i = 0; i < (split ? 1 : count); i++) {
      const superinfo_t child = child_value(i, ctx);
      if (ctx.aborted) return {};
      absorb(win, notlose, child);
      if (settled()) return finish();
    }
    if (!split) return finish();

    split_point_t sp(ctx.split);
    sp.pending.store(count - 1, std::memory_order_relaxed);
    for (int i = 1; i < count; i++)
      pool->push_back(
          [&, i] {
            task_context_t task;
            task.split = &sp;
            try {
              if (sp.cancelled()) {
                sp.incomplete.store(true, std::memory_order_relaxed);
              } else {
                const superinfo_t child = child_value(i, task);
                if (task.aborted) {
                  sp.incomplete.store(true, std::memory_order_relaxed);
                } else {
                  std::lock_guard<std::mutex> lock(sp.mutex);
                  absorb(sp.win, sp.notlose, child);
                  if (all_ones(sp.win | win | decided))
                    sp.done.store(true, std::memory_order_relaxed);
                }
              }
            } catch (...) {
              std::lock_guard<std::mutex> lock(sp.mutex);
              if (!sp.failure) sp.failure = std::current_exception();
              sp.incomplete.store(true, std::memory_order_relaxed);
              sp.done.store(true, std::memory_order_relaxed);
            }
            merge(task.stats);
            if (sp.pending.fetch_sub(1, std::memory_order_acq_rel) == 1) pool->wake_helpers();
          },
          sp.level);
    // Help only with tasks of this split level or deeper: every nested wait is then one level
    // deeper, which bounds the stack (helping with any task can recurse without limit).
    pool->help_until(sp.level, [&] { return sp.pending.load(std::memory_order_acquire) == 0; });

    if (sp.failure) std::rethrow_exception(sp.failure);
    win |= sp.win;
    notlose |= sp.notlose;
    if (settled()) return finish();
    if (sp.incomplete.load(std::memory_order_relaxed)) {
      // Some child was cut short, which only happens when an ancestor was cancelled.
      ctx.aborted = true;
      return {};
    }
    return finish();
  }
};

super_searcher_t::super_searcher_t(const super_search_options_t& options)
    : impl_(std::make_unique<impl_t>(options)) {}
super_searcher_t::~super_searcher_t() = default;

superinfo_t super_searcher_t::solve(board_t board) {
  check_board(board);
  task_context_t ctx;
  const superinfo_t v =
      impl_->node(unpack(board, 0), unpack(board, 1), count_stones(board), 0, ctx);
  impl_->merge(ctx.stats);
  PENTAGO_CHECK(!ctx.aborted, "root search cancelled");
  return v;
}

game_value_t super_searcher_t::value(board_t board) { return rotation_value(solve(board)); }

superinfo_t super_searcher_t::black_white(board_t board) {
  return to_black_white(solve(board), board_turn(board));
}

search_stats_t super_searcher_t::stats() const {
  std::lock_guard<std::mutex> lock(impl_->stats_mutex);
  return impl_->totals;
}

void super_searcher_t::reset_stats() {
  std::lock_guard<std::mutex> lock(impl_->stats_mutex);
  impl_->totals = {};
}

void super_searcher_t::clear_table() { impl_->table.clear(); }

const super_search_options_t& super_searcher_t::options() const { return impl_->options; }

superinfo_t to_black_white(const superinfo_t& mover_value, int turn) {
  return turn == 0 ? superinfo_t{mover_value.win, ~mover_value.notlose}
                   : superinfo_t{~mover_value.notlose, mover_value.win};
}

leaf_function_t equivariant_leaf(std::function<superinfo_t(board_t)> of_standard_board) {
  return [f = std::move(of_standard_board)](board_t board) {
    symmetry_t s;
    const board_t standard = fast_superstandardize(board, &s);
    return transform_info(inverse(s), f(standard));
  };
}

namespace {
super_searcher_t& thread_engine() {
  thread_local super_searcher_t engine([] {
    super_search_options_t options;
    options.table_bits = 12;
    return options;
  }());
  return engine;
}
}  // namespace

superinfo_t super_solve(board_t board) { return thread_engine().solve(board); }
game_value_t super_value(board_t board) { return thread_engine().value(board); }
superinfo_t super_black_white(board_t board) { return thread_engine().black_white(board); }

}  // namespace pentago
