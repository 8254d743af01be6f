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

  // Tasks carry a level (the split depth that made them); waiting threads only help with
  // tasks at their own level or deeper, so nested helping cannot grow the stack unboundedly.
  void submit(int level, std::function<void()> task);
  // Runs one queued task of at least `min_level` on the calling thread; false if none.
  bool run_one(int min_level = 0);
  // Runs queued tasks of at least `min_level` on the calling thread until done() holds,
  // sleeping while there are none. Whoever makes done() true must call wake_all afterwards.
  void help_until(int min_level, const std::function<bool()>& done);
  void wake_all();

 private:
  void work();

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::pair<int, std::function<void()>>> queue_;  // (level, task)
  bool has_task(int min_level) const;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace pentago::detail
