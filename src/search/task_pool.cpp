// Thread pool with help-while-waiting, used to split the super search across threads.
#include "task_pool.h"

#include <chrono>

namespace pentago::detail {

task_pool::task_pool(int workers) {
  for (int i = 0; i < workers; i++) threads_.emplace_back([this] { work(); });
}

task_pool::~task_pool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  ready_.notify_all();
  for (auto& t : threads_) t.join();
}

void task_pool::submit(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(std::move(task));
  }
  ready_.notify_one();
}

bool task_pool::run_one() {
  std::function<void()> task;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (queue_.empty()) return false;
    task = std::move(queue_.front());
    queue_.pop_front();
  }
  task();
  return true;
}

void task_pool::help_until(const std::function<bool()>& done) {
  while (!done()) {
    if (run_one()) continue;
    std::unique_lock<std::mutex> lock(mutex_);
    // The timeout only bounds the cost of a wake-up raced away by a task submitted elsewhere.
    ready_.wait_for(lock, std::chrono::milliseconds(1),
                    [&] { return stopping_ || !queue_.empty() || done(); });
  }
}

void task_pool::wake_all() {
  { std::lock_guard<std::mutex> lock(mutex_); }
  ready_.notify_all();
}

void task_pool::work() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task();
  }
}

}  // namespace pentago::detail
