// The batched midgame solver's CUDA device (midgame_device.h): cudaMalloc'd memory, synchronous
// copies, and the two kernels of midgame_gpu_kernels.h launched with one thread per index (256
// to a block). Errors of the runtime, a launch or a kernel become pentago_error_t naming the
// device and the step.
#include <cuda_runtime.h>

#include <string>

#include "../midgame_device.h"
#include "pentago/util/error.h"
#include "pentago/util/format.h"

namespace pentago::detail {
namespace {

constexpr unsigned block_threads = 256;

__global__ void wins_kernel(const gpu::wins_job_t job) {
  const uint64_t t = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t < job.threads()) gpu::wins_entry(job, t);
}

__global__ void rows_kernel(const gpu::rows_job_t job) {
  const uint64_t t = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t < job.threads()) gpu::rows_entry(job, t);
}

class cuda_device_t final : public midgame_device_t {
 public:
  explicit cuda_device_t(int ordinal) : ordinal_(ordinal) {
    int count = 0;
    check(cudaGetDeviceCount(&count), "counting the CUDA devices");
    if (ordinal < 0 || ordinal >= count)
      throw pentago_error_t("no CUDA device " + std::to_string(ordinal) + " (" +
                            std::to_string(count) + " present)");
    check(cudaSetDevice(ordinal), "selecting the device");
    cudaDeviceProp prop;
    check(cudaGetDeviceProperties(&prop, ordinal), "reading the device's properties");
    name_ = std::string(prop.name) + " (" + std::to_string(prop.multiProcessorCount) + " SMs, " +
            format_bytes(double(prop.totalGlobalMem)) + ")";
  }

  std::string name() const override { return name_; }

  uint64_t free_bytes() const override {
    select();
    size_t free = 0, total = 0;
    check(cudaMemGetInfo(&free, &total), "reading the free device memory");
    return free;
  }

  void* allocate(uint64_t bytes) override {
    select();
    void* p = nullptr;
    const cudaError_t e = cudaMalloc(&p, bytes < 16 ? 16 : bytes);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      throw pentago_error_t("cannot allocate " + format_bytes(double(bytes)) + " on " + name_ +
                            ": " + cudaGetErrorString(e));
    }
    return p;
  }

  void release(void* p) override {
    select();
    (void)cudaFree(p);
  }

  void upload(void* to, const void* from, uint64_t bytes) override {
    select();
    check(cudaMemcpy(to, from, bytes, cudaMemcpyHostToDevice), "copying to the device");
  }

  void download(void* to, const void* from, uint64_t bytes) override {
    select();
    check(cudaMemcpy(to, from, bytes, cudaMemcpyDeviceToHost), "copying from the device");
  }

  void solve_wins(const gpu::wins_job_t& job) override {
    launch(wins_kernel, job, "launching the win-table kernel");
  }

  void solve_rows(const gpu::rows_job_t& job) override {
    launch(rows_kernel, job, "launching the layer kernel");
  }

  void finish() override {
    select();
    check(cudaDeviceSynchronize(), "running the midgame kernels");
  }

 private:
  // One thread per index of the job, block_threads to a block.
  template <class Job>
  void launch(void (*kernel)(Job), const Job& job, const char* step) {
    const uint64_t threads = job.threads();
    if (!threads) return;
    select();
    kernel<<<unsigned((threads + block_threads - 1) / block_threads), block_threads>>>(job);
    check(cudaGetLastError(), step);
  }

  // The CUDA runtime keeps the current device per host thread.
  void select() const { check(cudaSetDevice(ordinal_), "selecting the device"); }

  void check(cudaError_t e, const char* step) const {
    if (e != cudaSuccess)
      throw pentago_error_t("CUDA device " + std::to_string(ordinal_) + ": " + step + ": " +
                            cudaGetErrorString(e));
  }

  int ordinal_ = 0;
  std::string name_;
};

}  // namespace

bool cuda_midgame_device_present(std::string& why) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    why = std::string("no CUDA device: ") + cudaGetErrorString(e);
    return false;
  }
  if (count == 0) {
    why = "no CUDA device";
    return false;
  }
  return true;
}

std::unique_ptr<midgame_device_t> make_cuda_midgame_device(int ordinal) {
  return std::make_unique<cuda_device_t>(ordinal);
}

}  // namespace pentago::detail
