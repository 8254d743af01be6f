// Worker pool with a front/back job deque, time accounting and error capture.
#include "pentago/util/worker_pool.h"

#include <chrono>

namespace pentago {

const char* activity_name(activity a) {
  static const char* names[] = {"compute", "compress", "decompress", "accumulate", "io", "idle"};
  return names[size_t(a)];
}

worker_pool::worker_pool(int threads) {
  for (int t = 0; t < threads; t++) threads_.emplace_back([this] { run(); });
}

worker_pool::~worker_pool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (auto& t : threads_) t.join();
}

void worker_pool::push_back(std::function<void()> job) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    jobs_.push_back(std::move(job));
  }
  wake_.notify_one();
}

void worker_pool::push_front(std::function<void()> job) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    jobs_.push_front(std::move(job));
  }
  wake_.notify_one();
}

bool worker_pool::run_one(std::unique_lock<std::mutex>& lock) {
  if (jobs_.empty()) return false;
  auto job = std::move(jobs_.front());
  jobs_.pop_front();
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
  lock.lock();
  running_--;
  if (jobs_.empty() && !running_) idle_.notify_all();
  return true;
}

void worker_pool::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    if (run_one(lock)) continue;
    if (stop_) return;
    const auto start = std::chrono::steady_clock::now();
    wake_.wait(lock, [&] { return stop_ || !jobs_.empty(); });
    const double idle =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    lock.unlock();
    add_time(activity::idle, idle);
    lock.lock();
  }
}

int worker_pool::help() {
  std::unique_lock<std::mutex> lock(mutex_);
  int n = 0;
  while (run_one(lock)) n++;
  return n;
}

void worker_pool::wait_idle() {
  help();
  std::unique_lock<std::mutex> lock(mutex_);
  idle_.wait(lock, [&] { return jobs_.empty() && !running_; });
}

void worker_pool::add_time(activity a, double seconds) {
  std::lock_guard<std::mutex> lock(times_mutex_);
  times_[size_t(a)] += seconds;
}

activity_times worker_pool::take_times() {
  std::lock_guard<std::mutex> lock(times_mutex_);
  const auto t = times_;
  times_ = {};
  return t;
}

std::string worker_pool::failure() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return failure_;
}

activity_timer::activity_timer(worker_pool& pool, activity a)
    : pool_(pool), activity_(a), start_(std::chrono::steady_clock::now()) {}

activity_timer::~activity_timer() {
  pool_.add_time(activity_,
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count());
}

}  // namespace pentago
