// A small thread pool for the parallel super search: a shared FIFO of tasks, and waiting
// threads that help by running queued tasks until the work they wait for is done.
#pragma once
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace pentago::detail {

class task_pool {
 public:
  // Starts `workers` threads (0 is allowed: then tasks only run when someone waits).
  explicit task_pool(int workers);
  ~task_pool();
  task_pool(const task_pool&) = delete;
  task_pool& operator=(const task_pool&) = delete;

  void submit(std::function<void()> task);
  // Runs one queued task on the calling thread; false if the queue was empty.
  bool run_one();
  // Runs queued tasks on the calling thread until done() holds, sleeping while the queue is
  // empty. Whoever makes done() true must call wake_all afterwards.
  void help_until(const std::function<bool()>& done);
  void wake_all();

 private:
  void work();

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace pentago::detail
