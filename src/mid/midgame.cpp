// The midgame solver (docs/formats.md): downstream retrograde analysis over the subsets of
// the root's empty cells, one halfsuper per position, two single-bit passes, layers from the
// full board back to the root, each layer's rows split over threads; the layer geometry
// (shared with the batched GPU solver) and the CPU passes. midgame_values.cpp turns the passes
// into the listed values.
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

using detail::midgame_layer_t;
using detail::midgame_root_t;

}  // namespace

namespace detail {

midgame_layer_t midgame_layer_geometry(int spots, int n, int parity0) {
  midgame_layer_t L;
  L.n = n;
  L.k0 = n / 2;
  L.k1 = n - L.k0;
  L.parity = (n + parity0) & 1;
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
  return L;
}

void fill_midgame_wins(midgame_layer_t& L, const midgame_root_t& root, worker_pool_t& pool) {
  const int spots = root.spots, n = L.n;
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
}

}  // namespace detail

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

// One single-bit pass (detail::midgame_pass_t) of one root on the CPU row kernels. `layers`
// caches the layer tables between passes when `keep_layers`; `cancelled` is asked before every
// layer.
std::vector<halfsuper_t> solve_pass(const midgame_root_t& root, worker_pool_t& pool,
                                    halfsuper_t* buffer, uint64_t entries, bool aggressive, int top,
                                    std::vector<std::unique_ptr<midgame_layer_t>>& layers,
                                    bool keep_layers, const std::function<bool()>& cancelled) {
  const int spots = root.spots;
  const detail::midgame_row_kernels_t& kernels = detail::midgame_kernels_for(current_simd_level());
  std::vector<halfsuper_t> values(1 + spots, halfsuper_t::zero());
  layers.resize(spots + 1);
  const midgame_layer_t* next = nullptr;
  const halfsuper_t* next_data = nullptr;
  for (int n = top; n >= 0; n--) {
    if (cancelled && cancelled()) throw midgame_cancelled_t();
    if (!layers[n]) {
      layers[n] =
          std::make_unique<midgame_layer_t>(detail::midgame_layer_geometry(spots, n, root.parity0));
      detail::fill_midgame_wins(*layers[n], root, pool);
    }
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
  midgame_result_t result;
  auto finish = [&]() {
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  };
  // Finished roots are valued by the rules.
  if (const auto finished = detail::midgame_finished_root(board, to_rotate, options.distance)) {
    result.values.push_back(*finished);
    return finish();
  }
  const int stones = count_stones(board);
  if (stones < midgame_min_stones)
    throw usage_error_t("the midgame solver needs at least " + std::to_string(midgame_min_stones) +
                        " stones: a " + std::to_string(stones) + "-stone board would need a " +
                        mib(midgame_workspace_bytes(stones)) + " workspace");
  result.threads =
      options.threads > 0 ? options.threads : std::max(1, int(std::thread::hardware_concurrency()));
  const midgame_root_t root = detail::midgame_root(board, to_rotate);
  const std::function<bool()> no_cancel;
  const std::function<bool()>& cancelled = options.cancelled ? options.cancelled : no_cancel;

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
    // Mapped here rather than through util's map_pages: the explorer's WebAssembly module
    // builds mid without util's page code (src/web/wasm/CMakeLists.txt).
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
      if (cancelled && cancelled()) throw midgame_cancelled_t();
      parallel_for(pool, std::min(group, pieces - first), [&](uint64_t k) {
        const uint64_t c = first + k;
        (void)madvise(base + c * piece, std::min(piece, total - c * piece), madv_populate_write);
      });
    }
    workspace.fresh_ = false;
  }
  // The layer tables are kept between passes: the second full pass reuses the first's, and
  // the distance passes all of them (tens of MiB at most, against a workspace of hundreds).
  std::vector<std::unique_ptr<midgame_layer_t>> layers;
  int passes = 0;
  const detail::midgame_pass_t pass = [&](bool aggressive, int top) {
    const bool keep_layers = options.distance || passes++ == 0;
    return std::vector<std::vector<halfsuper_t>>{
        solve_pass(root, pool, buffer, entries, aggressive, top, layers, keep_layers, cancelled)};
  };
  result.values = std::move(detail::midgame_root_values({root}, options.distance, pass)[0]);
  return finish();
}

}  // namespace pentago
