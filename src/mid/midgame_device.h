// Internal to mid: a device that runs the batched midgame solver's kernels
// (midgame_gpu_kernels.h): its memory, copies both ways, and the two launches. Two devices: the
// CUDA one (cuda/midgame_cuda.cu, built with PENTAGO_CUDA) and the CPU reference
// (midgame_gpu.cpp), which runs the same kernel code on host threads. Only plain types here:
// nvcc compiles the CUDA device against this header.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "midgame_gpu_kernels.h"

namespace pentago::detail {

class midgame_device_t {
 public:
  virtual ~midgame_device_t() = default;
  // "NVIDIA H200 (132 SMs, 139.8 GiB)", or the CPU reference's name.
  virtual std::string name() const = 0;
  // Bytes of device memory free now.
  virtual uint64_t free_bytes() const = 0;
  // Device memory; throws pentago_error_t naming the size when there is none.
  virtual void* allocate(uint64_t bytes) = 0;
  virtual void release(void* p) = 0;
  virtual void upload(void* to, const void* from, uint64_t bytes) = 0;
  virtual void download(void* to, const void* from, uint64_t bytes) = 0;
  // One thread per index of job.threads(); launches run in order.
  virtual void solve_wins(const gpu::wins_job_t& job) = 0;
  virtual void solve_rows(const gpu::rows_job_t& job) = 0;
  // Waits for every launch; throws pentago_error_t naming a device error.
  virtual void finish() = 0;
};

// The read-only tables every batch's kernels use: halfsuper_wins_both's (halfsuper.cpp) and the
// small binomials.
std::unique_ptr<gpu::tables_t> make_gpu_tables();

// The CPU reference device on `threads` host threads (0: all).
std::unique_ptr<midgame_device_t> make_reference_midgame_device(int threads);

// Whether this build has CUDA and sees a device; `why` says why not.
bool cuda_midgame_device_present(std::string& why);
// CUDA device `ordinal`; throws pentago_error_t when there is none (or no CUDA in the build).
std::unique_ptr<midgame_device_t> make_cuda_midgame_device(int ordinal);

}  // namespace pentago::detail
