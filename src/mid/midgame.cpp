// The midgame solver (reference midgame.md): downstream retrograde analysis over the subsets of
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

#include <emmintrin.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <type_traits>

#include "pentago/mid/halfsuper.h"
#include "pentago/mid/subsets.h"
#include "pentago/util/error.h"
#include "pentago/util/parallel_for.h"

namespace pentago {
namespace {

constexpr int max_spots = 36 - midgame_min_stones;

// C(n, k) for n < max_spots, k <= max_spots / 2 + 1: the colex terms of the row kernel.
struct small_binomials_t {
  uint32_t c[max_spots][max_spots / 2 + 2];
};
constexpr small_binomials_t small_binomials = [] {
  small_binomials_t t{};
  for (int n = 0; n < max_spots; n++) {
    t.c[n][0] = 1;
    for (int k = 1; k < max_spots / 2 + 2; k++)
      t.c[n][k] = n == 0 ? 0 : t.c[n - 1][k - 1] + t.c[n - 1][k];
  }
  return t;
}();
// Layers of at least this many bytes are written with non-temporal stores.
constexpr uint64_t stream_bytes = uint64_t(16) << 20;

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
struct root_info {
  int spots = 0;
  int spot_bit[36] = {};
  side_t first = 0, second = 0;  // the colour placing at layer 0, and the other
  int parity0 = 0;               // halfsuper class of layer 0: 1 when the root must rotate

  side_t side_of(uint32_t spot_mask) const {
    side_t s = 0;
    for (; spot_mask; spot_mask &= spot_mask - 1)
      s |= side_t(1) << spot_bit[__builtin_ctz(spot_mask)];
    return s;
  }
};

// Geometry and read-only tables of one layer (shared by all its rows).
struct layer_t {
  int n = 0, k0 = 0, k1 = 0;
  int parity = 0;          // halfsuper class of this layer's positions (after rotation)
  bool rows_by_mover = 0;  // rows are M (else J)
  int row_size = 0, col_size = 0, col_space = 0;  // |row set|, |column set|, spots free of a row
  int free_count = 0;                             // empty spots: spots - n
  uint64_t rows = 0, cols = 0;
  std::vector<uint32_t> row_sets;  // absolute spot masks
  // Per column (relative mask within the row's free spots): its elements, and per empty spot
  // f: the relative index j of the spot and the child's column in the next layer.
  std::vector<uint8_t> col_elements, free_index;
  std::vector<uint32_t> child_col;
  // Wins of the mover per absolute k0-set (this layer's class), of the player who just placed
  // per absolute k1-set (pairs: this class, then the other: before the rotation).
  std::vector<halfsuper_t> mover_wins, placer_wins;
};

layer_t make_layer(const root_info& root, int n, worker_pool& pool) {
  const int spots = root.spots;
  layer_t L;
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
  L.child_col.resize(L.cols * L.free_count);
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
      L.child_col[i * L.free_count + f] = child;
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

// One row of layer L: reads the next layer (nullptr at the full board), writes `out`.
// `win_bit`: the stored bit means "the mover wins" (else "the mover does not lose").
// Layers 0 and 1 also copy their values into `results` (root, then one per spot).
// `stream`: write with non-temporal stores (layers much larger than the caches).
// `by_mover`: L.rows_by_mover, fixed at compile time.
template <bool stream, bool by_mover>
void solve_row(const layer_t& L, const layer_t* next, const halfsuper_t* next_data, uint64_t row,
               halfsuper_t* out, bool win_bit, halfsuper_t* results) {
  const uint32_t row_set = L.row_sets[row];
  // Spots free of the row set, and per column element a and relative spot y the colex term
  // C(free[y], a + 1): the column set's absolute rank is the sum over its elements.
  int free_spot[max_spots];
  for (int y = 0, s = 0; y < L.col_space; s++)
    if (!(row_set >> s & 1)) free_spot[y++] = s;
  uint32_t term[max_spots / 2 + 1][max_spots];
  for (int a = 0; a < L.col_size; a++)
    for (int y = 0; y < L.col_space; y++) term[a][y] = small_binomials.c[free_spot[y]][a + 1];
  // Child rows per relative free slot j.
  const halfsuper_t* child_row[max_spots];
  if (next) {
    for (int j = 0; j < L.col_space; j++) {
      const uint64_t r = L.rows_by_mover ? subset_rank(row_set | uint32_t(1) << free_spot[j]) : row;
      child_row[j] = next_data + r * next->cols;
    }
  }
  const halfsuper_t init =
      L.free_count == 0 && !win_bit ? halfsuper_t::ones() : halfsuper_t::zero();
  const halfsuper_t* row_mover = by_mover ? &L.mover_wins[row] : nullptr;
  const halfsuper_t* row_placer = by_mover ? nullptr : &L.placer_wins[2 * row];
  const int fc = L.free_count, cs = L.col_size;
  for (uint64_t col = 0; col < L.cols; col++) {
    halfsuper_t u = init;
    const uint8_t* fi = &L.free_index[col * fc];
    const uint32_t* cc = &L.child_col[col * fc];
    if (by_mover) {
      for (int f = 0; f < fc; f++) u = u | child_row[fi[f]][cc[f]];
    } else {
      // Rows by the player who placed: every child lies in this row of the next layer.
      for (int f = 0; f < fc; f++) u = u | child_row[0][cc[f]];
    }
    const uint8_t* el = &L.col_elements[col * cs];
    uint32_t abs_rank = 0;
    for (int a = 0; a < cs; a++) abs_rank += term[a][el[a]];
    const halfsuper_t w0 = by_mover ? *row_mover : L.mover_wins[abs_rank];
    const halfsuper_t* placer = by_mover ? &L.placer_wins[2 * abs_rank] : row_placer;
    const halfsuper_t w1 = placer[0], w1_before = placer[1];
    // Fives on the board end the game: both is a tie, only the mover's a win, else a loss.
    const halfsuper_t mover_ok = win_bit ? ~w1 : halfsuper_t::ones();
    u = andnot(w0 | w1, u) | (w0 & mover_ok);
    if (L.n <= 1) {
      // Layer 0: the root; layer 1: J is one spot, the row set or the column element.
      const int spot = L.n == 0 ? -1 : by_mover ? free_spot[el[0]] : __builtin_ctz(row_set);
      results[1 + spot] = u;
    }
    // The placer's value before rotating: the best rotation, or a five made by placing.
    const halfsuper_t value = halfsuper_rmax(~u) | w1_before;
    if constexpr (stream)
      _mm_stream_si128(reinterpret_cast<__m128i*>(&out[row * L.cols + col]), __m128i(value.v));
    else
      out[row * L.cols + col] = value;
  }
  if constexpr (stream) _mm_sfence();
}

}  // namespace

uint64_t midgame_default_workspace_limit() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return uint64_t(4) << 30;
  return uint64_t(pages) * uint64_t(page) / 4 * 3;
}

uint64_t midgame_workspace_bytes(int stones) {
  if (stones < 0 || stones > 36) throw usage_error("stone count out of range");
  return workspace_entries(36 - stones) * sizeof(halfsuper_t);
}

namespace {

// The (win, notlose) halves of the root (index 0, for its mover) and of the layer-1 positions
// (1 + spot, for the other player), by the two single-bit passes.
struct solved_halves {
  std::vector<halfsuper_t> win, notlose;
};

solved_halves solve_halves(const root_info& root, worker_pool& pool, halfsuper_t* buffer,
                           uint64_t entries) {
  const int spots = root.spots;
  std::vector<halfsuper_t> pass_values[2];
  for (int aggressive = 1; aggressive >= 0; aggressive--) {
    std::vector<halfsuper_t>& values = pass_values[aggressive];
    values.assign(1 + spots, halfsuper_t::zero());
    std::unique_ptr<layer_t> next;
    const halfsuper_t* next_data = nullptr;
    for (int n = spots; n >= 0; n--) {
      auto layer = std::make_unique<layer_t>(make_layer(root, n, pool));
      const uint64_t size = layer->rows * layer->cols;
      PENTAGO_CHECK(size == midgame_layer_size(spots, n), "midgame layer size");
      // Even layers at the start of the workspace, odd layers flush against its end.
      halfsuper_t* data = n % 2 == 0 ? buffer : buffer + (entries - size);
      const bool win_bit = (aggressive ^ (n & 1)) != 0;
      const uint64_t rows = layer->rows;
      const bool stream = size * sizeof(halfsuper_t) >= stream_bytes;
      auto solve = [&](auto stream_flag, auto by_mover_flag) {
        parallel_for(pool, rows, [&](uint64_t row) {
          solve_row<stream_flag(), by_mover_flag()>(*layer, next.get(), next_data, row, data,
                                                    win_bit, values.data());
        });
      };
      using yes = std::true_type;
      using no = std::false_type;
      if (layer->rows_by_mover)
        stream ? solve(yes(), yes()) : solve(no(), yes());
      else
        stream ? solve(yes(), no()) : solve(no(), no());
      next = std::move(layer);
      next_data = data;
    }
  }
  // Pass 1 holds the root mover's wins and the other player's notlose; pass 0 the reverse.
  solved_halves r;
  r.win.resize(1 + spots);
  r.notlose.resize(1 + spots);
  for (int i = 0; i <= spots; i++) {
    r.win[i] = pass_values[i == 0 ? 1 : 0][i];
    r.notlose[i] = pass_values[i == 0 ? 0 : 1][i];
  }
  return r;
}

int half_value(const solved_halves& h, int index, int j) {
  return int(h.win[index](j)) + int(h.notlose[index](j)) - 1;
}

// Value of a board to rotate that has five in a row, for the player who placed (rule 1).
int finished_rotate_value(board_t board, int placer) {
  const bool me = won(unpack(board, placer)), op = won(unpack(board, 1 - placer));
  return me && op ? 0 : me ? 1 : -1;
}

// The 8 rotations of a board to rotate in the 2013 order, valued from halfsuper `index` (the
// player to move after the rotation); appends them and returns the board's value (placer).
int append_rotations(std::vector<midgame_value>& values, board_t board, const solved_halves& h,
                     int index) {
  int best = -1;
  for (int s = 0; s < 8; s++) {
    const int q = s >> 1, dir = s % 2 == 0 ? 1 : -1;
    int g[4] = {0, 0, 0, 0};
    g[q] = (dir + 4) % 4;
    const int v = half_value(h, index, halfsuper_index(g[0], g[1], g[2], g[3]));
    values.push_back({rotate_board(board, q, dir), false, v});
    best = std::max(best, -v);
  }
  return best;
}

}  // namespace

// The layer workspace: anonymous memory, with transparent huge pages where the kernel offers
// them on request (fewer page faults on first touch).
midgame_workspace::midgame_workspace() = default;
midgame_workspace::~midgame_workspace() { release(); }
uint64_t midgame_workspace::bytes() const { return bytes_; }
void midgame_workspace::release() {
  if (data_) munmap(data_, bytes_);
  data_ = nullptr;
  bytes_ = 0;
}

midgame_result midgame_solve(board_t board, bool to_rotate, const midgame_options& options) {
  midgame_workspace workspace;
  return midgame_solve(board, to_rotate, options, workspace);
}

midgame_result midgame_solve(board_t board, bool to_rotate, const midgame_options& options,
                             midgame_workspace& workspace) {
  const auto start = std::chrono::steady_clock::now();
  check_board(board);
  const int stones = count_stones(board);
  if (to_rotate && stones == 0) throw usage_error("a board to rotate needs a placed stone");
  if (stones < midgame_min_stones)
    throw usage_error("the midgame solver needs at least " + std::to_string(midgame_min_stones) +
                      " stones: a " + std::to_string(stones) + "-stone board would need a " +
                      mib(midgame_workspace_bytes(stones)) + " workspace");
  midgame_result result;
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
      result.values.push_back({board, true, finished_rotate_value(board, placer)});
      return finish();
    }
  } else if (const int v = terminal_value(board); v != 2) {
    result.values.push_back({board, false, v});
    return finish();
  }

  root_info root;
  root.spots = 36 - stones;
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
    throw error("the midgame solver needs a workspace of " + mib(result.workspace_bytes) +
                " for a " + std::to_string(stones) + "-stone board, over the limit of " +
                mib(limit));
  if (workspace.bytes_ < result.workspace_bytes) {
    workspace.release();
    void* p = mmap(nullptr, result.workspace_bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
      throw error("cannot map a midgame workspace of " + mib(result.workspace_bytes));
    madvise(p, result.workspace_bytes, MADV_HUGEPAGE);
    workspace.data_ = p;
    workspace.bytes_ = result.workspace_bytes;
  }
  worker_pool pool(result.threads - 1);  // with the calling thread, for every layer
  const solved_halves h =
      solve_halves(root, pool, static_cast<halfsuper_t*>(workspace.data_), entries);

  if (to_rotate) {
    const int v = append_rotations(result.values, board, h, 0);
    result.values.push_back({board, true, v});
    return finish();
  }
  int best = -1;
  for (int i = 0; i < root.spots; i++) {
    const int bit = root.spot_bit[i];
    const board_t child = place_stone(board, mover, bit / 16, bit % 16);
    int v;
    if (won(unpack(child, mover))) {
      v = finished_rotate_value(child, mover);
    } else {
      v = append_rotations(result.values, child, h, 1 + i);
    }
    result.values.push_back({child, true, v});
    best = std::max(best, v);
  }
  PENTAGO_CHECK(best == half_value(h, 0, 0), "midgame root value disagrees with its children");
  result.values.push_back({board, false, best});
  return finish();
}

}  // namespace pentago
