// The one thread pool: worker threads serving a job deque (urgent jobs go to the front), jobs
// tagged with a level so that nested waits help only with deeper work, per-activity time
// accounting and first-error capture. The MPI engine, the in-process driver and the forward
// search use it directly; the file writer, the midgame and the database tools through
// parallel_for (parallel_for.h).
#pragma once
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace pentago {

// What worker time is spent on (summed over threads, reported per slice).
enum class activity_t { compute, compress, decompress, accumulate, io, idle, count };
const char* activity_name(activity_t a);
using activity_times_t = std::array<double, size_t(activity_t::count)>;

class worker_pool_t {
 public:
  // Starts `threads` workers (0 is allowed: jobs then run only on threads that help).
  explicit worker_pool_t(int threads);
  ~worker_pool_t();  // lets the workers finish the queued jobs, then joins them
  worker_pool_t(const worker_pool_t&) = delete;
  worker_pool_t& operator=(const worker_pool_t&) = delete;

  int threads() const { return int(threads_.size()); }

  // Queues a job. Workers take jobs from the front whatever their level; the level only
  // restricts which jobs a thread inside help_until or run_one may take.
  void push_back(std::function<void()> job, int level = 0);
  void push_front(std::function<void()> job, int level = 0);

  // Blocks until the queue is empty and no job runs (the caller helps run jobs).
  void wait_idle();
  // Runs queued jobs on the calling thread until none are left; returns the number run.
  int help();
  // Runs one queued job of level >= min_level on the calling thread; false if there is none.
  bool run_one(int min_level = 0);
  // Runs queued jobs of level >= min_level on the calling thread until done() holds, sleeping
  // while there are none. A job that helps with its own level + 1 or deeper therefore nests at
  // most one frame per level. Whoever makes done() true must call wake_helpers() afterwards.
  // Jobs waited for this way must not throw (a failed pool drops the jobs still queued).
  void help_until(int min_level, const std::function<bool()>& done);
  void wake_helpers();

  // Time accounting: jobs call add_time for their activity; idle time is tracked here.
  void add_time(activity_t a, double seconds);
  activity_times_t take_times();  // returns and resets

  // First exception thrown by a job (its message), or empty. After a failure, queued jobs are
  // dropped without running (early stop).
  bool failed() const { return failed_.load(); }
  std::string failure() const;

 private:
  struct job_t {
    int level;
    std::function<void()> run;
  };
  void work();
  void push(job_t job, bool front);
  bool has_job(int min_level) const;
  bool run_one(std::unique_lock<std::mutex>& lock, int min_level);

  std::vector<std::thread> threads_;
  mutable std::mutex mutex_;
  std::condition_variable wake_, idle_, help_;  // workers, wait_idle, help_until
  std::deque<job_t> jobs_;
  int running_ = 0;
  int helpers_waiting_ = 0;
  bool stop_ = false;
  std::atomic<bool> failed_{false};
  std::string failure_;
  std::mutex times_mutex_;
  activity_times_t times_{};
};

// Scoped timer adding its lifetime to a pool's activity total.
class activity_timer_t {
 public:
  activity_timer_t(worker_pool_t& pool, activity_t a);
  ~activity_timer_t();

 private:
  worker_pool_t& pool_;
  activity_t activity_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace pentago
