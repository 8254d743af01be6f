// Chrome trace event recording (--trace FILE): complete events per rank and thread, gathered
// to rank 0 and written as JSON that Perfetto and chrome://tracing open.
#pragma once
#include <mpi.h>

#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace pentago {

class trace_recorder_t {
 public:
  trace_recorder_t();
  // Records [start, now) as an event on the calling thread.
  void add(const char* name, std::chrono::steady_clock::time_point start,
           const std::string& detail = "");
  // Gathers every rank's events to rank 0, which writes the JSON file. Collective.
  void write(const std::string& path, MPI_Comm comm);

 private:
  struct event_t {
    const char* name;
    int thread;
    double start_us, duration_us;
    std::string detail;
  };
  int thread_index();
  std::chrono::steady_clock::time_point origin_;
  std::mutex mutex_;
  std::vector<event_t> events_;
  std::vector<std::thread::id> threads_;
};

// Records its lifetime into a recorder (which may be null).
class trace_scope_t {
 public:
  trace_scope_t(trace_recorder_t* trace, const char* name, std::string detail = "")
      : trace_(trace),
        name_(name),
        detail_(std::move(detail)),
        start_(std::chrono::steady_clock::now()) {}
  ~trace_scope_t() {
    if (trace_) trace_->add(name_, start_, detail_);
  }

 private:
  trace_recorder_t* trace_;
  const char* name_;
  std::string detail_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace pentago
