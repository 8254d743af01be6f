// The midgame solver (docs/formats.md): downstream retrograde analysis over the subsets of
// the root's empty cells, one halfsuper per position, two single-bit passes, layers from the
// full board back to the root, each layer's rows split over threads.
//
// Layer n holds the positions with n stones added to the root: the mover M (the colour that
// places next) has k0 = n / 2 of them, the player who just placed J has k1 = n - k0. A layer is
// stored as rows x columns with the rows one player's set (colex rank among all spots) and the
// columns the other's set ranked among the spots the first leaves free. Unlike the 2013 solver
// the row player alternates between layers (M at even n, J at odd n) so that a row is written
// in order and its children are read from few rows of the next layer: the children of (M, J)
// are (M' = J, J' = M + c) for each free spot c; with rows by M, J' is fixed per row and spot;
// with rows by J, M' is the row itself.
#include "pentago/mid/midgame.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <tuple>

#include "midgame_layer.h"
#include "pentago/mid/halfsuper.h"
#include "pentago/mid/subsets.h"
#include "pentago/util/error.h"
#include "pentago/util/parallel_for.h"

namespace pentago {
namespace {

// madvise advice that faults a range in writable (Linux 5.14; older kernels refuse it).
#ifdef MADV_POPULATE_WRITE
constexpr int madv_populate_write = MADV_POPULATE_WRITE;
#else
constexpr int madv_populate_write = 23;
#endif
// Layers of at least this many bytes are written with non-temporal stores.
constexpr uint64_t stream_bytes = uint64_t(16) << 20;
// Rows are handed to threads in chunks of about this many bytes of output.
constexpr uint64_t rows_chunk_bytes = uint64_t(256) << 10;

uint64_t workspace_entries(int spots) {
  uint64_t most = 0;
  for (int n = 0; n <= spots; n++)
    most = std::max(
        most, midgame_layer_size(spots, n) + (n < spots ? midgame_layer_size(spots, n + 1) : 0));
  return most;
}

std::string mib(uint64_t bytes) {
  char text[64];
  if (bytes >= uint64_t(1) << 30)
    std::snprintf(text, sizeof text, "%.1f GiB", double(bytes) / double(1 << 30));
  else
    std::snprintf(text, sizeof text, "%.1f MiB", double(bytes) / double(1 << 20));
  return text;
}

// The root: its empty cells in increasing bit order, and the two colours' stones.
struct root_info_t {
  int spots = 0;
  int spot_bit[36] = {};
  side_t first = 0, second = 0;  // the colour placing at layer 0, and the other
  int parity0 = 0;               // halfsuper class of layer 0: 1 when the root must rotate
  const std::function<bool()>* cancelled = nullptr;  // midgame_options_t::cancelled, if set

  side_t side_of(uint32_t spot_mask) const {
    side_t s = 0;
    for (; spot_mask; spot_mask &= spot_mask - 1)
      s |= side_t(1) << spot_bit[__builtin_ctz(spot_mask)];
    return s;
  }
};

using detail::midgame_layer_t;

midgame_layer_t make_layer(const root_info_t& root, int n, worker_pool_t& pool) {
  const int spots = root.spots;
  midgame_layer_t L;
  L.n = n;
  L.k0 = n / 2;
  L.k1 = n - L.k0;
  L.parity = (n + root.parity0) & 1;
  L.rows_by_mover = n % 2 == 0;
  L.row_size = L.rows_by_mover ? L.k0 : L.k1;
  L.col_size = n - L.row_size;
  L.col_space = spots - L.row_size;
  L.free_count = spots - n;
  L.row_sets = all_subsets(spots, L.row_size);
  L.rows = L.row_sets.size();
  const std::vector<uint32_t> cols = all_subsets(L.col_space, L.col_size);
  L.cols = cols.size();
  L.col_elements.resize(L.cols * L.col_size);
  L.free_index.resize(L.cols * L.free_count);
  L.child_offset.resize(L.cols * L.free_count);
  for (uint64_t i = 0; i < L.cols; i++) {
    const uint32_t z = cols[i];
    int e = 0, f = 0;
    for (int j = 0; j < L.col_space; j++) {
      if (z >> j & 1) {
        L.col_elements[i * L.col_size + e++] = uint8_t(j);
        continue;
      }
      uint32_t child;
      if (L.rows_by_mover) {
        // The child's columns are J ranked among the spots free of M + c: z without slot j.
        const uint32_t low = (uint32_t(1) << j) - 1;
        child = subset_rank((z & low) | (z >> (j + 1)) << j);
      } else {
        // The child's rows are J (this row); its columns M + c among the spots free of J.
        child = subset_rank(z | uint32_t(1) << j);
      }
      L.free_index[i * L.free_count + f] = uint8_t(j);
      L.child_offset[i * L.free_count + f] = child * uint32_t(sizeof(halfsuper_t));
      f++;
    }
  }
  const side_t mover_root = n % 2 == 0 ? root.first : root.second;
  const side_t placer_root = n % 2 == 0 ? root.second : root.first;
  const std::vector<uint32_t> mover_sets = all_subsets(spots, L.k0);
  const std::vector<uint32_t> placer_sets = all_subsets(spots, L.k1);
  L.mover_wins.resize(mover_sets.size());
  L.placer_wins.resize(2 * placer_sets.size());
  const uint64_t chunk = 256;
  const uint64_t mover_chunks = (mover_sets.size() + chunk - 1) / chunk;
  const uint64_t placer_chunks = (placer_sets.size() + chunk - 1) / chunk;
  parallel_for(pool, mover_chunks + placer_chunks, [&](uint64_t c) {
    if (c < mover_chunks) {
      for (uint64_t r = c * chunk; r < std::min<uint64_t>(mover_sets.size(), (c + 1) * chunk); r++)
        L.mover_wins[r] = halfsuper_wins(mover_root | root.side_of(mover_sets[r]), L.parity);
    } else {
      c -= mover_chunks;
      for (uint64_t r = c * chunk; r < std::min<uint64_t>(placer_sets.size(), (c + 1) * chunk);
           r++) {
        const auto both = halfsuper_wins_both(placer_root | root.side_of(placer_sets[r]));
        L.placer_wins[2 * r] = L.parity ? both.second : both.first;
        L.placer_wins[2 * r + 1] = L.parity ? both.first : both.second;
      }
    }
  });
  return L;
}

}  // namespace

uint64_t midgame_default_workspace_limit() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return uint64_t(4) << 30;
  return uint64_t(pages) * uint64_t(page) / 4 * 3;
}

uint64_t midgame_workspace_bytes(int stones) {
  if (stones < 0 || stones > 36) throw usage_error_t("stone count out of range");
  return workspace_entries(36 - stones) * sizeof(halfsuper_t);
}

namespace {

// The (win, notlose) halves of the root (index 0, for its mover) and of the layer-1 positions
// (1 + spot, for the other player), by the two single-bit passes.
struct solved_halves_t {
  std::vector<halfsuper_t> win, notlose;
};

// One single-bit pass over layers `top` down to 0, `top` a leaf (spots: the whole game; less:
// the game cut off after `top` turns from layer 0). Returns the root's (index 0) and layer 1's
// (1 + spot) halves. Aggressive: the bit is "layer 0's mover wins" at even layers and "the
// mover does not lose" at odd ones; else the reverse. `layers` caches the layer tables
// between passes when `keep_layers`.
std::vector<halfsuper_t> solve_pass(const root_info_t& root, worker_pool_t& pool,
                                    halfsuper_t* buffer, uint64_t entries, bool aggressive, int top,
                                    std::vector<std::unique_ptr<midgame_layer_t>>& layers,
                                    bool keep_layers) {
  const int spots = root.spots;
  const detail::midgame_row_kernels_t& kernels = detail::midgame_kernels_for(current_simd_level());
  std::vector<halfsuper_t> values(1 + spots, halfsuper_t::zero());
  layers.resize(spots + 1);
  const midgame_layer_t* next = nullptr;
  const halfsuper_t* next_data = nullptr;
  for (int n = top; n >= 0; n--) {
    if (root.cancelled && (*root.cancelled)()) throw midgame_cancelled_t();
    if (!layers[n]) layers[n] = std::make_unique<midgame_layer_t>(make_layer(root, n, pool));
    const midgame_layer_t& layer = *layers[n];
    const uint64_t size = layer.rows * layer.cols;
    PENTAGO_CHECK(size == midgame_layer_size(spots, n), "midgame layer size");
    // Even layers at the start of the workspace, odd layers flush against its end.
    halfsuper_t* data = n % 2 == 0 ? buffer : buffer + (entries - size);
    const bool win_bit = (aggressive ^ (n & 1)) != 0;
    const detail::midgame_row_job_t job{&layer,
                                        next,
                                        next_data,
                                        data,
                                        values.data(),
                                        win_bit,
                                        size * sizeof(halfsuper_t) >= stream_bytes};
    // Rows in chunks of about rows_chunk_bytes, at least 8 chunks per thread when the layer
    // has the rows (one atomic claim and one store fence per chunk).
    const uint64_t row_bytes = layer.cols * sizeof(halfsuper_t);
    const uint64_t chunk = std::max<uint64_t>(
        1, std::min(rows_chunk_bytes / row_bytes, layer.rows / (8 * uint64_t(pool.threads() + 1))));
    parallel_for(pool, (layer.rows + chunk - 1) / chunk, [&](uint64_t c) {
      kernels.solve_rows(job, c * chunk, std::min(layer.rows, (c + 1) * chunk));
    });
    if (!keep_layers && n < top) layers[n + 1].reset();
    next = &layer;
    next_data = data;
  }
  if (!keep_layers) layers.clear();
  return values;
}

solved_halves_t solve_halves(const root_info_t& root, worker_pool_t& pool, halfsuper_t* buffer,
                             uint64_t entries,
                             std::vector<std::unique_ptr<midgame_layer_t>>& layers,
                             bool keep_layers) {
  const int spots = root.spots;
  std::vector<halfsuper_t> pass_values[2];
  // The first pass keeps its layer tables for the second (tens of MiB at most, against a
  // workspace of hundreds).
  for (int aggressive = 1; aggressive >= 0; aggressive--)
    pass_values[aggressive] = solve_pass(root, pool, buffer, entries, aggressive, spots, layers,
                                         keep_layers || aggressive == 1);
  // Pass 1 holds the root mover's wins and the other player's notlose; pass 0 the reverse.
  solved_halves_t r;
  r.win.resize(1 + spots);
  r.notlose.resize(1 + spots);
  for (int i = 0; i <= spots; i++) {
    r.win[i] = pass_values[i == 0 ? 1 : 0][i];
    r.notlose[i] = pass_values[i == 0 ? 0 : 1][i];
  }
  return r;
}

int half_value(const solved_halves_t& h, int index, int j) {
  return int(h.win[index](j)) + int(h.notlose[index](j)) - 1;
}

// Value of a board to rotate that has five in a row, for the player who placed (rule 1).
int finished_rotate_value(board_t board, int placer) {
  const bool me = won(unpack(board, placer)), op = won(unpack(board, 1 - placer));
  return me && op ? 0 : me ? 1 : -1;
}

// Distances (turns to the end, midgame.h) of the entries of the root's halves: index 0 (the
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

// Distances by passes cut off after d = 0, 1, ... turns from layer 0: "the mover of layer 0
// wins within d" is bit set in the aggressive pass at index 0, and at index 1 + spot "the
// mover of layer 1 does not lose within d" (so losing within d is the bit clear); the other
// pass the reverse. An entry's distance is the first d at which its winner's bit shows (less
// the one turn that leads to layer 1). Stops once every decisive entry has one: at d = spots
// the passes are the full ones, so every decisive entry has one by then.
distance_table_t solve_distances(const root_info_t& root, bool to_rotate, const solved_halves_t& h,
                                 worker_pool_t& pool, halfsuper_t* buffer, uint64_t entries,
                                 std::vector<std::unique_ptr<midgame_layer_t>>& layers) {
  struct entry_t {
    int index, j;
    bool aggressive, want_set;
  };
  std::vector<entry_t> open;
  auto add = [&](int index, int j) {
    const int v = half_value(h, index, j);
    if (v == 0) return;
    // The aggressive pass: index 0 wins show as set bits, index > 0 losses as clear bits.
    const bool aggressive = (index == 0) == (v > 0);
    open.push_back({index, j, aggressive, v > 0});
  };
  if (to_rotate) {
    for (int s = 0; s < 8; s++) add(0, rotation_bit(s));
  } else {
    add(0, 0);
    for (int i = 0; i < root.spots; i++)
      if (!won(root.first | side_t(1) << root.spot_bit[i]))
        for (int s = 0; s < 8; s++) add(1 + i, rotation_bit(s));
  }
  distance_table_t table;
  table.turns.assign((1 + root.spots) * 128, -1);
  for (int d = to_rotate ? 0 : 1; d <= root.spots && !open.empty(); d++) {
    for (const bool aggressive : {true, false}) {
      if (std::none_of(open.begin(), open.end(),
                       [&](const entry_t& e) { return e.aggressive == aggressive; }))
        continue;
      const std::vector<halfsuper_t> values =
          solve_pass(root, pool, buffer, entries, aggressive, d, layers, true);
      std::erase_if(open, [&](const entry_t& e) {
        if (e.aggressive != aggressive || values[e.index](e.j) != e.want_set) return false;
        table.turns[e.index * 128 + e.j] = int8_t(d - (e.index > 0 ? 1 : 0));
        return true;
      });
    }
  }
  PENTAGO_CHECK(open.empty(), "midgame distances: a decisive position never ends");
  return table;
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

}  // namespace

// The layer workspace: anonymous memory, with transparent huge pages where the kernel offers
// them on request (fewer page faults on first touch), faulted in ahead by every thread of the
// first solve that uses it.
midgame_workspace_t::midgame_workspace_t() = default;
midgame_workspace_t::~midgame_workspace_t() { release(); }
uint64_t midgame_workspace_t::bytes() const { return bytes_; }
void midgame_workspace_t::release() {
  if (data_) munmap(data_, bytes_);
  data_ = nullptr;
  bytes_ = 0;
}

midgame_result_t midgame_solve(board_t board, bool to_rotate, const midgame_options_t& options) {
  midgame_workspace_t workspace;
  return midgame_solve(board, to_rotate, options, workspace);
}

midgame_result_t midgame_solve(board_t board, bool to_rotate, const midgame_options_t& options,
                               midgame_workspace_t& workspace) {
  const auto start = std::chrono::steady_clock::now();
  check_board(board);
  const int stones = count_stones(board);
  if (to_rotate && stones == 0) throw usage_error_t("a board to rotate needs a placed stone");
  if (stones < midgame_min_stones)
    throw usage_error_t("the midgame solver needs at least " + std::to_string(midgame_min_stones) +
                        " stones: a " + std::to_string(stones) + "-stone board would need a " +
                        mib(midgame_workspace_bytes(stones)) + " workspace");
  midgame_result_t result;
  result.threads =
      options.threads > 0 ? options.threads : std::max(1, int(std::thread::hardware_concurrency()));
  const int mover = stones & 1;  // the colour that places next (after the pending rotation)
  auto finish = [&]() {
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  };
  // Finished roots are valued by the rules.
  if (to_rotate) {
    const int placer = 1 - mover;
    if (won(unpack(board, 0)) || won(unpack(board, 1))) {
      const int v = finished_rotate_value(board, placer);
      result.values.push_back({board, true, v, options.distance && v != 0 ? 0 : -1});
      return finish();
    }
  } else if (const int v = terminal_value(board); v != 2) {
    result.values.push_back({board, false, v, options.distance && v != 0 ? 0 : -1});
    return finish();
  }

  root_info_t root;
  root.spots = 36 - stones;
  if (options.cancelled) root.cancelled = &options.cancelled;
  const side_t empty = empty_cells(board);
  int s = 0;
  for (side_t e = empty; e; e &= e - 1) root.spot_bit[s++] = __builtin_ctzll(e);
  root.first = unpack(board, mover);
  root.second = unpack(board, 1 - mover);
  root.parity0 = to_rotate ? 1 : 0;

  const uint64_t entries = workspace_entries(root.spots);
  result.workspace_bytes = entries * sizeof(halfsuper_t);
  const uint64_t limit =
      options.workspace_limit ? options.workspace_limit : midgame_default_workspace_limit();
  if (result.workspace_bytes > limit)
    throw pentago_error_t("the midgame solver needs a workspace of " + mib(result.workspace_bytes) +
                          " for a " + std::to_string(stones) + "-stone board, over the limit of " +
                          mib(limit));
  if (workspace.bytes_ < result.workspace_bytes) {
    workspace.release();
    void* p = mmap(nullptr, result.workspace_bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
      throw pentago_error_t("cannot map a midgame workspace of " + mib(result.workspace_bytes));
    madvise(p, result.workspace_bytes, MADV_HUGEPAGE);
    workspace.data_ = p;
    workspace.bytes_ = result.workspace_bytes;
    workspace.fresh_ = true;
  }
  worker_pool_t pool(result.threads - 1);  // with the calling thread, for every layer
  halfsuper_t* buffer = static_cast<halfsuper_t*>(workspace.data_);
  if (workspace.fresh_) {
    // Fresh memory is faulted in ahead, in 32 MiB pieces on every thread: one call per piece
    // instead of a page fault per huge page (or per 4 KiB page) in the middle of the layer
    // loops, where two threads faulting at once cost several times the system time of one.
    // Kernels before 5.14 lack MADV_POPULATE_WRITE: the pages then fault in as they are used.
    const uint64_t piece = uint64_t(32) << 20;
    char* base = static_cast<char*>(workspace.data_);
    const uint64_t total = workspace.bytes_;
    // A few pieces per thread at a time, so that a cancelled solve stops here too.
    const uint64_t pieces = (total + piece - 1) / piece, group = 2 * uint64_t(pool.threads() + 1);
    for (uint64_t first = 0; first < pieces; first += group) {
      if (root.cancelled && (*root.cancelled)()) throw midgame_cancelled_t();
      parallel_for(pool, std::min(group, pieces - first), [&](uint64_t k) {
        const uint64_t c = first + k;
        (void)madvise(base + c * piece, std::min(piece, total - c * piece), madv_populate_write);
      });
    }
    workspace.fresh_ = false;
  }
  std::vector<std::unique_ptr<midgame_layer_t>> layers;  // kept between the passes of distances
  const solved_halves_t h = solve_halves(root, pool, buffer, entries, layers, options.distance);
  const distance_table_t distances =
      options.distance ? solve_distances(root, to_rotate, h, pool, buffer, entries, layers)
                       : distance_table_t{};

  if (to_rotate) {
    const auto [v, d] = append_rotations(result.values, board, h, distances, 0);
    result.values.push_back({board, true, v, d});
    return finish();
  }
  int best = -1, fastest_win = 1000, slowest_loss = -1;
  for (int i = 0; i < root.spots; i++) {
    const int bit = root.spot_bit[i];
    const board_t child = place_stone(board, mover, bit / 16, bit % 16);
    int v, d, move_turns;
    if (won(unpack(child, mover))) {
      // Five by placing: the game ends with this turn.
      v = finished_rotate_value(child, mover);
      d = options.distance ? 0 : -1;
      move_turns = 1;
    } else {
      std::tie(v, d) = append_rotations(result.values, child, h, distances, 1 + i);
      move_turns = d;
    }
    result.values.push_back({child, true, v, d});
    best = std::max(best, v);
    if (v > 0) fastest_win = std::min(fastest_win, move_turns);
    if (v < 0) slowest_loss = std::max(slowest_loss, move_turns);
  }
  PENTAGO_CHECK(best == half_value(h, 0, 0), "midgame root value disagrees with its children");
  int distance = -1;
  if (options.distance && best != 0) {
    distance = best > 0 ? fastest_win : slowest_loss;
    PENTAGO_CHECK(distance == distances.at(0, 0),
                  "midgame root distance disagrees with its children");
  }
  result.values.push_back({board, false, best, distance});
  return finish();
}

}  // namespace pentago
