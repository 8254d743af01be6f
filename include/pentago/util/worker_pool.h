// A pool of worker threads with a job deque (urgent jobs go to the front), per-activity time
// accounting and first-error capture, used by each rank of the MPI engine.
#pragma once
#include <array>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace pentago {

// What worker time is spent on (summed over threads, reported per slice).
enum class activity { compute, compress, decompress, accumulate, io, idle, count };
const char* activity_name(activity a);
using activity_times = std::array<double, size_t(activity::count)>;

class worker_pool {
 public:
  explicit worker_pool(int threads);
  ~worker_pool();
  worker_pool(const worker_pool&) = delete;
  worker_pool& operator=(const worker_pool&) = delete;

  int threads() const { return int(threads_.size()); }
  void push_back(std::function<void()> job);
  void push_front(std::function<void()> job);
  // Blocks until the queue is empty and no job runs (the caller helps run jobs).
  void wait_idle();
  // Runs queued jobs on the calling thread until none are left; returns the number run.
  int help();

  // Time accounting: jobs call add_time for their activity; idle time is tracked here.
  void add_time(activity a, double seconds);
  activity_times take_times();  // returns and resets

  // First exception thrown by a job (its message), or empty.
  bool failed() const { return failed_.load(); }
  std::string failure() const;

 private:
  void run();
  bool run_one(std::unique_lock<std::mutex>& lock);

  std::vector<std::thread> threads_;
  mutable std::mutex mutex_;
  std::condition_variable wake_, idle_;
  std::deque<std::function<void()>> jobs_;
  int running_ = 0;
  bool stop_ = false;
  std::atomic<bool> failed_{false};
  std::string failure_;
  std::mutex times_mutex_;
  activity_times times_{};
};

// Scoped timer adding its lifetime to a pool's activity total.
class activity_timer {
 public:
  activity_timer(worker_pool& pool, activity a);
  ~activity_timer();

 private:
  worker_pool& pool_;
  activity activity_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace pentago
