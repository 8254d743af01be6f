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

void task_pool::submit(int level, std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.emplace_back(level, std::move(task));
  }
  // All: a waiting helper woken for a task below its level would not take it.
  ready_.notify_all();
}

bool task_pool::has_task(int min_level) const {
  for (const auto& entry : queue_)
    if (entry.first >= min_level) return true;
  return false;
}

bool task_pool::run_one(int min_level) {
  std::function<void()> task;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = queue_.begin();
    while (it != queue_.end() && it->first < min_level) ++it;
    if (it == queue_.end()) return false;
    task = std::move(it->second);
    queue_.erase(it);
  }
  task();
  return true;
}

void task_pool::help_until(int min_level, const std::function<bool()>& done) {
  while (!done()) {
    if (run_one(min_level)) continue;
    std::unique_lock<std::mutex> lock(mutex_);
    // The timeout only bounds the cost of a wake-up raced away by a task submitted elsewhere.
    ready_.wait_for(lock, std::chrono::milliseconds(1),
                    [&] { return stopping_ || has_task(min_level) || done(); });
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
      task = std::move(queue_.front().second);
      queue_.pop_front();
    }
    task();
  }
}

}  // namespace pentago::detail
