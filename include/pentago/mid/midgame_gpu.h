// The midgame solver on a GPU, batched: the positions of one stone count are solved together
// (all children of every root, and many unrelated roots, in one launch sequence per layer),
// every layer in device memory, only the answers copied back. Built with CUDA
// (-DPENTAGO_CUDA=ON); without it, or without a device, midgame_gpu_available() says why and
// callers use the CPU solver (midgame.h). The same kernels also run on a CPU reference device,
// which is how machines without a GPU test them.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "pentago/mid/midgame.h"

namespace pentago {

// Fewest stones the batched solver takes where the workspace fits the device (12: 24 empty
// cells; a 13-stone board takes 94 GiB, a 14-stone one 32.7 GiB).
constexpr int midgame_gpu_min_stones = 12;

struct midgame_position_t {
  board_t board = 0;
  bool to_rotate = false;
};

struct midgame_gpu_options_t {
  bool distance = false;  // also every listed position's distance (midgame_options_t)
  // Device bytes a batch may take; 0: usable_bytes of the device's free memory.
  uint64_t memory_limit = 0;
  // Most roots in one batch (0: as many as the memory holds). More roots share each launch,
  // but past a few dozen their layers crowd each other out of the caches: on an H200, 64 gave
  // the most 18-stone positions a second, all that fit (about 260) a fifth fewer, one a
  // seventh fewer (docs/performance.md).
  uint64_t max_batch = 64;
  // Asked before every layer; true stops the solve with midgame_cancelled_t.
  std::function<bool()> cancelled;
};

// Whether this build has CUDA and sees a CUDA device; if not, `why` (when given) says why.
bool midgame_gpu_available(std::string* why = nullptr);

class midgame_gpu_t {
 public:
  // CUDA device `ordinal`; throws pentago_error_t when there is none (midgame_gpu_available).
  explicit midgame_gpu_t(int ordinal = 0);
  // The same solver with the kernels run on `threads` host threads (0: all): the reference
  // the tests compare with the CPU solver where there is no GPU.
  static midgame_gpu_t reference(int threads = 0);
  midgame_gpu_t(midgame_gpu_t&&) noexcept;
  midgame_gpu_t& operator=(midgame_gpu_t&&) noexcept;
  ~midgame_gpu_t();

  std::string device_name() const;
  uint64_t device_free_bytes() const;  // device memory free now

  // Every position's list (midgame_result_t, in the order given; `seconds` is the time of the
  // batch it was solved in, `threads` 1). Positions of one stone count are solved in batches
  // as large as the memory allows. Throws usage_error_t for an invalid board or one with fewer
  // than midgame_gpu_min_stones stones, pentago_error_t when one root's workspace does not fit
  // the device (naming both), midgame_cancelled_t when cancelled. One solve at a time.
  std::vector<midgame_result_t> solve(const std::vector<midgame_position_t>& positions,
                                      const midgame_gpu_options_t& options = {});

  // Device bytes a batch of `batch` roots with `stones` stones takes, layer geometry included.
  static uint64_t batch_bytes(int stones, uint64_t batch);
  // Of `free` device bytes, what batches may take without a memory limit: all but a sixteenth.
  static uint64_t usable_bytes(uint64_t free) { return free - free / 16; }

 private:
  struct impl_t;
  explicit midgame_gpu_t(std::unique_ptr<impl_t> impl);
  std::unique_ptr<impl_t> impl_;
};

}  // namespace pentago
