// The thread pool: a leveled front/back job deque, helping waits, time accounting and error
// capture.
#include "pentago/util/worker_pool.h"

#include <algorithm>
#include <string>
#include <system_error>

#include "pentago/util/error.h"

namespace pentago {

const char* activity_name(activity_t a) {
  static const char* names[] = {"compute", "compress", "decompress", "accumulate", "io", "idle"};
  return names[size_t(a)];
}

worker_pool_t::worker_pool_t(int threads) {
  try {
    for (int t = 0; t < threads; t++) threads_.emplace_back([this] { work(); });
  } catch (const std::system_error& e) {
    // Out of threads (a task limit, the process ids): stop the ones started and say so.
    const size_t started = threads_.size();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (auto& t : threads_) t.join();
    throw pentago_error_t("cannot start " + std::to_string(threads) + " threads (" +
                          std::to_string(started) + " started): " + e.what());
  }
}

worker_pool_t::~worker_pool_t() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (auto& t : threads_) t.join();
}

void worker_pool_t::push(job_t job, bool front) {
  bool helpers;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (front)
      jobs_.push_front(std::move(job));
    else
      jobs_.push_back(std::move(job));
    helpers = helpers_waiting_ > 0;
  }
  wake_.notify_one();
  // All of them: a helper woken for a job below its level would not take it.
  if (helpers) help_.notify_all();
}

void worker_pool_t::push_back(std::function<void()> job, int level) {
  push({level, std::move(job)}, false);
}

void worker_pool_t::push_front(std::function<void()> job, int level) {
  push({level, std::move(job)}, true);
}

bool worker_pool_t::has_job(int min_level) const {
  return std::any_of(jobs_.begin(), jobs_.end(),
                     [&](const job_t& j) { return j.level >= min_level; });
}

bool worker_pool_t::run_one(std::unique_lock<std::mutex>& lock, int min_level) {
  auto it = jobs_.begin();
  while (it != jobs_.end() && it->level < min_level) ++it;
  if (it == jobs_.end()) return false;
  auto job = std::move(it->run);
  jobs_.erase(it);
  running_++;
  lock.unlock();
  try {
    if (!failed_) job();
  } catch (const std::exception& e) {
    std::lock_guard<std::mutex> guard(mutex_);
    if (!failed_) failure_ = e.what(), failed_ = true;
  } catch (...) {
    std::lock_guard<std::mutex> guard(mutex_);
    if (!failed_) failure_ = "unknown exception in a worker thread", failed_ = true;
  }
  job = nullptr;  // its captures are released before the job counts as finished
  lock.lock();
  running_--;
  if (jobs_.empty() && !running_) idle_.notify_all();
  return true;
}

void worker_pool_t::work() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    if (run_one(lock, 0)) continue;
    if (stop_) return;
    const auto start = std::chrono::steady_clock::now();
    wake_.wait(lock, [&] { return stop_ || !jobs_.empty(); });
    const double idle =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    lock.unlock();
    add_time(activity_t::idle, idle);
    lock.lock();
  }
}

int worker_pool_t::help() {
  std::unique_lock<std::mutex> lock(mutex_);
  int n = 0;
  while (run_one(lock, 0)) n++;
  return n;
}

bool worker_pool_t::run_one(int min_level) {
  std::unique_lock<std::mutex> lock(mutex_);
  return run_one(lock, min_level);
}

void worker_pool_t::help_until(int min_level, const std::function<bool()>& done) {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!done()) {
    if (run_one(lock, min_level)) continue;
    helpers_waiting_++;
    help_.wait(lock, [&] { return has_job(min_level) || done(); });
    helpers_waiting_--;
  }
}

void worker_pool_t::wake_helpers() {
  { std::lock_guard<std::mutex> lock(mutex_); }  // a helper is either before its check or asleep
  help_.notify_all();
}

void worker_pool_t::wait_idle() {
  help();
  std::unique_lock<std::mutex> lock(mutex_);
  idle_.wait(lock, [&] { return jobs_.empty() && !running_; });
}

void worker_pool_t::add_time(activity_t a, double seconds) {
  std::lock_guard<std::mutex> lock(times_mutex_);
  times_[size_t(a)] += seconds;
}

activity_times_t worker_pool_t::take_times() {
  std::lock_guard<std::mutex> lock(times_mutex_);
  const auto t = times_;
  times_ = {};
  return t;
}

std::string worker_pool_t::failure() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return failure_;
}

activity_timer_t::activity_timer_t(worker_pool_t& pool, activity_t a)
    : pool_(pool), activity_(a), start_(std::chrono::steady_clock::now()) {}

activity_timer_t::~activity_timer_t() {
  pool_.add_time(activity_,
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count());
}

}  // namespace pentago
