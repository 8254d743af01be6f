// The batched midgame solver's host side: positions grouped by stone count, batches sized to
// the device's memory, the layer geometry of a spot count uploaded once, and per pass every
// layer's two launches (win tables, positions) from the top layer down; only layers 0 and 1
// come back, and midgame_root_values turns them into lists as it does for the CPU solver. Also
// the CPU reference device, which runs the kernels' code on host threads.
#include "pentago/mid/midgame_gpu.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <new>
#include <thread>

#include "midgame_device.h"
#include "midgame_layer.h"
#include "pentago/mid/subsets.h"
#include "pentago/util/error.h"
#include "pentago/util/format.h"
#include "pentago/util/parallel_for.h"

namespace pentago {
namespace detail {
namespace {

// The CPU reference device: host memory, and every launch as a parallel loop over its thread
// indices.
class reference_device_t final : public midgame_device_t {
 public:
  explicit reference_device_t(int threads)
      : pool_(std::max(1, threads > 0 ? threads : int(std::thread::hardware_concurrency())) - 1) {}
  std::string name() const override {
    return "CPU reference (" + std::to_string(pool_.threads() + 1) + " threads)";
  }
  uint64_t free_bytes() const override { return midgame_default_workspace_limit(); }
  void* allocate(uint64_t bytes) override {
    return ::operator new(std::max<uint64_t>(bytes, 16), std::align_val_t(64));
  }
  void release(void* p) override { ::operator delete(p, std::align_val_t(64)); }
  void upload(void* to, const void* from, uint64_t bytes) override { std::memcpy(to, from, bytes); }
  void download(void* to, const void* from, uint64_t bytes) override {
    std::memcpy(to, from, bytes);
  }
  void solve_wins(const gpu::wins_job_t& job) override {
    launch(job.threads(), [&](uint64_t t) { gpu::wins_entry(job, t); });
  }
  void solve_rows(const gpu::rows_job_t& job) override {
    launch(job.threads(), [&](uint64_t t) { gpu::rows_entry(job, t); });
  }
  void finish() override {}

 private:
  template <class F>
  void launch(uint64_t threads, const F& entry) {
    const uint64_t chunk = 4096;
    parallel_for(pool_, (threads + chunk - 1) / chunk, [&](uint64_t c) {
      for (uint64_t t = c * chunk; t < std::min(threads, (c + 1) * chunk); t++) entry(t);
    });
  }
  worker_pool_t pool_;
};

}  // namespace

std::unique_ptr<gpu::tables_t> make_gpu_tables() {
  auto t = std::make_unique<gpu::tables_t>();
  halfsuper_t axes[5][16];
  copy_halfsuper_wins_tables(t->covered, axes);
  const auto word_pair = [](halfsuper_t h) { return gpu::half_t{h.word(0), h.word(1)}; };
  for (int set = 0; set < 16; set++) {
    t->axis0[0][set] = word_pair(axes[0][set]);
    t->axis0[1][set] = word_pair(axes[1][set]);
    t->axis1[set] = word_pair(axes[2][set]);
    t->axis2[set] = word_pair(axes[3][set]);
    t->axis3[set] = word_pair(axes[4][set]);
  }
  for (int n = 0; n <= gpu::max_spots; n++)
    for (int k = 0; k <= gpu::max_spots; k++) t->binomial[n][k] = uint32_t(binomial(n, k));
  return t;
}

std::unique_ptr<midgame_device_t> make_reference_midgame_device(int threads) {
  return std::make_unique<reference_device_t>(threads);
}

#ifndef PENTAGO_HAVE_CUDA
bool cuda_midgame_device_present(std::string& why) {
  why = "this build has no CUDA (configure with -DPENTAGO_CUDA=ON)";
  return false;
}
std::unique_ptr<midgame_device_t> make_cuda_midgame_device(int) {
  std::string why;
  cuda_midgame_device_present(why);
  throw pentago_error_t("no GPU for the midgame solver: " + why);
}
#endif

}  // namespace detail

namespace {

using detail::midgame_device_t;

// Device memory freed with its owner.
class device_buffer_t {
 public:
  device_buffer_t() = default;
  device_buffer_t(midgame_device_t& device, uint64_t bytes)
      : device_(&device), data_(device.allocate(bytes)), bytes_(bytes) {}
  template <class T>
  device_buffer_t(midgame_device_t& device, const std::vector<T>& values)
      : device_buffer_t(device, values.size() * sizeof(T)) {
    if (!values.empty()) device.upload(data_, values.data(), bytes_);
  }
  device_buffer_t(device_buffer_t&& o) noexcept { *this = std::move(o); }
  device_buffer_t& operator=(device_buffer_t&& o) noexcept {
    std::swap(device_, o.device_);
    std::swap(data_, o.data_);
    std::swap(bytes_, o.bytes_);
    return *this;
  }
  ~device_buffer_t() {
    if (data_) device_->release(data_);
  }
  template <class T>
  T* as() const {
    return static_cast<T*>(data_);
  }

 private:
  midgame_device_t* device_ = nullptr;
  void* data_ = nullptr;
  uint64_t bytes_ = 0;
};

// Entries (halfsupers) of the win tables of the largest layer of a spot count, per root.
uint64_t wins_entries(int spots) {
  uint64_t most = 0;
  for (int n = 0; n <= spots; n++)
    most = std::max(most, binomial(spots, n / 2) + 2 * binomial(spots, n - n / 2));
  return most;
}

// One layer's child tables on the host: per empty spot of a column its free slot and the
// child's column (rows_job_t::child), and per row and free slot the child's row (rows by the
// mover).
struct host_layer_t {
  detail::midgame_layer_t layer;  // geometry only (no wins)
  std::vector<uint32_t> child, child_row;
};

host_layer_t host_layer(int spots, int n) {
  host_layer_t h;
  h.layer = detail::midgame_layer_geometry(spots, n, 0);
  const detail::midgame_layer_t& L = h.layer;
  h.child.resize(L.child_offset.size());
  for (size_t i = 0; i < L.child_offset.size(); i++) {
    const uint32_t col = L.child_offset[i] / uint32_t(sizeof(halfsuper_t));
    PENTAGO_CHECK(col < (1u << 24), "midgame child column past 24 bits");
    h.child[i] = uint32_t(L.free_index[i]) << 24 | col;
  }
  if (L.rows_by_mover && n < spots) {
    h.child_row.resize(L.rows * L.col_space);
    for (uint64_t r = 0; r < L.rows; r++) {
      const uint32_t row_set = L.row_sets[r];
      for (int j = 0, s = 0; j < L.col_space; s++)
        if (!(row_set >> s & 1))
          h.child_row[r * L.col_space + j++] = subset_rank(row_set | 1u << s);
    }
  }
  return h;
}

// The spots free of each k-subset of the spots, in order: [rank * (spots - k) + j].
std::vector<uint8_t> free_spots_of(const std::vector<uint32_t>& sets, int spots, int k) {
  std::vector<uint8_t> free(sets.size() * (spots - k));
  for (size_t r = 0; r < sets.size(); r++)
    for (int s = 0, j = 0; s < spots; s++)
      if (!(sets[r] >> s & 1)) free[r * (spots - k) + j++] = uint8_t(s);
  return free;
}

uint64_t geometry_bytes(int spots) {
  uint64_t bytes = sizeof(gpu::tables_t);
  for (int k = 0; k <= spots; k++)
    bytes += binomial(spots, k) * (sizeof(uint32_t) + (spots - k) * sizeof(uint8_t));
  for (int n = 0; n <= spots; n++) {
    const int k0 = n / 2, k1 = n - k0;
    const bool by_mover = n % 2 == 0;
    const int row_size = by_mover ? k0 : k1, col_space = spots - row_size;
    const uint64_t cols = binomial(col_space, n - row_size);
    bytes += cols * (spots - n) * sizeof(uint32_t);
    if (by_mover && n < spots) bytes += binomial(spots, row_size) * col_space * sizeof(uint32_t);
  }
  return bytes;
}

// Per root of a batch: its workspace (two adjacent layers), its layer's win tables, the root
// and the answers that come back.
uint64_t root_bytes(int spots) {
  return (midgame_workspace_bytes(36 - spots) / sizeof(halfsuper_t) + wins_entries(spots) + 1 +
          spots) *
             sizeof(gpu::half_t) +
         sizeof(gpu::root_t);
}

}  // namespace

// The geometry of one spot count on the device: the k-subsets of the spots for every k (the
// rows, columns and win-table sets of every layer) and each layer's child tables.
struct spot_geometry_t {
  struct layer_t {
    uint64_t rows = 0, cols = 0;
    int row_size = 0, col_size = 0, col_space = 0, free_count = 0, k0 = 0, k1 = 0;
    bool rows_by_mover = false;
    device_buffer_t child, child_row;
  };
  int spots = -1;
  std::vector<device_buffer_t> subsets;     // by k
  std::vector<device_buffer_t> free_spots;  // by k: free_spots_of
  std::vector<layer_t> layers;              // by n
};

struct midgame_gpu_t::impl_t {
  std::unique_ptr<midgame_device_t> device;
  device_buffer_t tables;
  spot_geometry_t geometry;  // of the last spot count solved
  std::mutex mutex;

  explicit impl_t(std::unique_ptr<midgame_device_t> d) : device(std::move(d)) {
    const std::unique_ptr<gpu::tables_t> t = detail::make_gpu_tables();
    tables = device_buffer_t(*device, sizeof(gpu::tables_t));
    device->upload(tables.as<void>(), t.get(), sizeof(gpu::tables_t));
  }

  const spot_geometry_t& geometry_for(int spots) {
    if (geometry.spots == spots) return geometry;
    geometry = spot_geometry_t();  // frees the last one first
    spot_geometry_t g;
    g.spots = spots;
    for (int k = 0; k <= spots; k++) {
      const std::vector<uint32_t> sets = all_subsets(spots, k);
      g.subsets.emplace_back(*device, sets);
      g.free_spots.emplace_back(*device, free_spots_of(sets, spots, k));
    }
    for (int n = 0; n <= spots; n++) {
      const host_layer_t h = host_layer(spots, n);
      spot_geometry_t::layer_t l;
      l.rows = h.layer.rows;
      l.cols = h.layer.cols;
      l.row_size = h.layer.row_size;
      l.col_size = h.layer.col_size;
      l.col_space = h.layer.col_space;
      l.free_count = h.layer.free_count;
      l.k0 = h.layer.k0;
      l.k1 = h.layer.k1;
      l.rows_by_mover = h.layer.rows_by_mover;
      l.child = device_buffer_t(*device, h.child);
      l.child_row = device_buffer_t(*device, h.child_row);
      g.layers.push_back(std::move(l));
    }
    geometry = std::move(g);
    return geometry;
  }

  // One batch of open roots with the same spot count; their lists.
  std::vector<std::vector<midgame_value_t>> solve_batch(
      const std::vector<detail::midgame_root_t>& roots, const midgame_gpu_options_t& options) {
    const int spots = roots[0].spots;
    const spot_geometry_t& g = geometry_for(spots);
    const uint32_t batch = uint32_t(roots.size());
    const uint64_t ws = midgame_workspace_bytes(36 - spots) / sizeof(halfsuper_t);
    device_buffer_t workspace(*device, ws * batch * sizeof(gpu::half_t));
    device_buffer_t wins(*device, wins_entries(spots) * batch * sizeof(gpu::half_t));
    device_buffer_t results(*device, (1 + spots) * uint64_t(batch) * sizeof(gpu::half_t));
    std::vector<gpu::root_t> host_roots(batch);
    for (uint32_t b = 0; b < batch; b++) {
      gpu::root_t& r = host_roots[b];
      r = {};
      r.first = roots[b].first;
      r.second = roots[b].second;
      for (int s = 0; s < spots; s++) r.spot_bit[s] = uint8_t(roots[b].spot_bit[s]);
      r.parity0 = uint32_t(roots[b].parity0);
    }
    const device_buffer_t device_roots(*device, host_roots);
    gpu::half_t* const data = workspace.as<gpu::half_t>();
    auto layer_data = [&](int n) {
      const uint64_t size = g.layers[n].rows * g.layers[n].cols;
      return data + (n % 2 == 0 ? 0 : ws - size) * batch;
    };
    const detail::midgame_pass_t pass = [&](bool aggressive, int top) {
      for (int n = top; n >= 0; n--) {
        if (options.cancelled && options.cancelled()) throw midgame_cancelled_t();
        const spot_geometry_t::layer_t& L = g.layers[n];
        gpu::wins_job_t w{};
        w.tables = tables.as<gpu::tables_t>();
        w.roots = device_roots.as<gpu::root_t>();
        w.batch = batch;
        w.n = uint32_t(n);
        w.mover_sets = g.subsets[L.k0].as<uint32_t>();
        w.placer_sets = g.subsets[L.k1].as<uint32_t>();
        w.mover_count = binomial(spots, L.k0);
        w.placer_count = binomial(spots, L.k1);
        w.mover_wins = wins.as<gpu::half_t>();
        w.placer_wins = w.mover_wins + w.mover_count * batch;
        device->solve_wins(w);
        gpu::rows_job_t r{};
        r.tables = w.tables;
        r.batch = batch;
        r.rows_by_mover = L.rows_by_mover;
        r.leaf = n == top;
        r.win_bit = (aggressive ^ (n & 1)) != 0;
        r.rows = L.rows;
        r.cols = L.cols;
        r.next_cols = r.leaf ? 0 : g.layers[n + 1].cols;
        r.col_space = uint32_t(L.col_space);
        r.free_count = uint32_t(L.free_count);
        r.col_sets = g.subsets[L.col_size].as<uint32_t>();
        r.row_free = g.free_spots[L.row_size].as<uint8_t>();
        r.child = L.child.as<uint32_t>();
        r.child_row = L.child_row.as<uint32_t>();
        r.next = r.leaf ? nullptr : layer_data(n + 1);
        r.out = layer_data(n);
        r.mover_wins = w.mover_wins;
        r.placer_wins = w.placer_wins;
        r.results = n <= 1 ? results.as<gpu::half_t>() : nullptr;
        device->solve_rows(r);
      }
      // The values of layers 0 and 1 (layer 1's as a pass cut at layer 0 left them: only the
      // root is read then).
      std::vector<gpu::half_t> answers((1 + spots) * uint64_t(batch));
      device->download(answers.data(), results.as<gpu::half_t>(),
                       answers.size() * sizeof(gpu::half_t));
      device->finish();
      std::vector<std::vector<halfsuper_t>> values(batch, std::vector<halfsuper_t>(1 + spots));
      for (uint32_t b = 0; b < batch; b++)
        for (int i = 0; i <= spots; i++) {
          const gpu::half_t h = answers[uint64_t(i) * batch + b];
          values[b][i] = {halfsuper_t::vec_t{h.lo, h.hi}};
        }
      return values;
    };
    return detail::midgame_root_values(roots, options.distance, pass);
  }
};

bool midgame_gpu_available(std::string* why) {
  std::string reason;
  const bool present = detail::cuda_midgame_device_present(reason);
  if (why) *why = reason;
  return present;
}

midgame_gpu_t::midgame_gpu_t(int ordinal)
    : impl_(std::make_unique<impl_t>(detail::make_cuda_midgame_device(ordinal))) {}
midgame_gpu_t::midgame_gpu_t(std::unique_ptr<impl_t> impl) : impl_(std::move(impl)) {}
midgame_gpu_t midgame_gpu_t::reference(int threads) {
  return midgame_gpu_t(std::make_unique<impl_t>(detail::make_reference_midgame_device(threads)));
}
midgame_gpu_t::midgame_gpu_t(midgame_gpu_t&&) noexcept = default;
midgame_gpu_t& midgame_gpu_t::operator=(midgame_gpu_t&&) noexcept = default;
midgame_gpu_t::~midgame_gpu_t() = default;

std::string midgame_gpu_t::device_name() const { return impl_->device->name(); }
uint64_t midgame_gpu_t::device_free_bytes() const { return impl_->device->free_bytes(); }

uint64_t midgame_gpu_t::batch_bytes(int stones, uint64_t batch) {
  const int spots = 36 - stones;
  return geometry_bytes(spots) + batch * root_bytes(spots);
}

std::vector<midgame_result_t> midgame_gpu_t::solve(const std::vector<midgame_position_t>& positions,
                                                   const midgame_gpu_options_t& options) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  std::vector<midgame_result_t> results(positions.size());
  // Every board is checked before any work; finished ones are valued by the rules.
  std::map<int, std::vector<size_t>> open_by_spots;
  for (size_t i = 0; i < positions.size(); i++) {
    const midgame_position_t& p = positions[i];
    if (const auto finished =
            detail::midgame_finished_root(p.board, p.to_rotate, options.distance)) {
      results[i].values.push_back(*finished);
      continue;
    }
    const int stones = count_stones(p.board);
    if (stones < midgame_gpu_min_stones)
      throw usage_error_t("the GPU midgame solver needs at least " +
                          std::to_string(midgame_gpu_min_stones) + " stones, not " +
                          std::to_string(stones));
    open_by_spots[36 - stones].push_back(i);
  }
  // Larger boards first: their geometry is the smallest, and a batch that does not fit fails
  // before the long solves.
  for (auto it = open_by_spots.begin(); it != open_by_spots.end(); ++it) {
    const int spots = it->first, stones = 36 - spots;
    const std::vector<size_t>& members = it->second;
    // The geometry is uploaded first: the free memory read after it is what roots may take.
    impl_->geometry_for(spots);
    const uint64_t fixed = geometry_bytes(spots), per_root = root_bytes(spots);
    uint64_t allowed, for_roots;
    if (options.memory_limit) {
      allowed = options.memory_limit;
      for_roots = allowed > fixed ? allowed - fixed : 0;
    } else {
      for_roots = usable_bytes(impl_->device->free_bytes());
      allowed = for_roots + fixed;
    }
    uint64_t fits = for_roots / per_root;
    if (fits == 0)
      throw pentago_error_t("the GPU midgame solver needs " +
                            format_bytes(double(fixed + per_root)) + " of device memory for a " +
                            std::to_string(stones) + "-stone board, over the " +
                            format_bytes(double(allowed)) + " it may take");
    if (options.max_batch) fits = std::min(fits, options.max_batch);
    for (size_t first = 0; first < members.size(); first += fits) {
      const auto start = std::chrono::steady_clock::now();
      const size_t count = std::min<size_t>(fits, members.size() - first);
      std::vector<detail::midgame_root_t> roots;
      for (size_t k = 0; k < count; k++) {
        const midgame_position_t& p = positions[members[first + k]];
        roots.push_back(detail::midgame_root(p.board, p.to_rotate));
      }
      auto lists = impl_->solve_batch(roots, options);
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      for (size_t k = 0; k < count; k++) {
        midgame_result_t& r = results[members[first + k]];
        r.values = std::move(lists[k]);
        r.workspace_bytes = midgame_workspace_bytes(stones);
        r.seconds = seconds;
      }
    }
  }
  return results;
}

}  // namespace pentago
