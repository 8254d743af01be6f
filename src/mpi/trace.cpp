// Chrome trace events: per-thread recording and the gathered JSON file.
#include "pentago/mpi/trace.h"

#include <cstdio>
#include <thread>

#include "pentago/mpi/comm.h"
#include "pentago/util/error.h"

namespace pentago {

trace_recorder_t::trace_recorder_t() : origin_(std::chrono::steady_clock::now()) {}

int trace_recorder_t::thread_index() {
  const auto id = std::this_thread::get_id();
  for (size_t i = 0; i < threads_.size(); i++)
    if (threads_[i] == id) return int(i);
  threads_.push_back(id);
  return int(threads_.size() - 1);
}

void trace_recorder_t::add(const char* name, std::chrono::steady_clock::time_point start,
                           const std::string& detail) {
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(mutex_);
  events_.push_back({name, thread_index(),
                     std::chrono::duration<double, std::micro>(start - origin_).count(),
                     std::chrono::duration<double, std::micro>(now - start).count(), detail});
}

void trace_recorder_t::write(const std::string& path, MPI_Comm comm) {
  const int rank = mpi_rank(comm), ranks = mpi_size(comm);
  std::string text;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    char buf[512];
    for (const auto& e : events_) {
      std::snprintf(buf, sizeof buf,
                    "{\"name\":\"%s\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":%.1f,\"dur\":%.1f,"
                    "\"args\":{\"detail\":\"%s\"}},\n",
                    e.name, rank, e.thread, e.start_us, e.duration_us, e.detail.c_str());
      text += buf;
    }
    for (size_t t = 0; t < threads_.size(); t++) {
      std::snprintf(buf, sizeof buf,
                    "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%zu,"
                    "\"args\":{\"name\":\"%s %zu\"}},\n",
                    rank, t, t == 0 ? "communication" : "worker", t);
      text += buf;
    }
    std::snprintf(buf, sizeof buf,
                  "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":\"rank "
                  "%d\"}},\n",
                  rank, rank);
    text += buf;
  }
  int size = int(text.size());
  std::vector<int> sizes(ranks), offsets(ranks);
  PENTAGO_MPI(MPI_Gather(&size, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, comm));
  std::vector<char> all;
  if (rank == 0) {
    int total = 0;
    for (int r = 0; r < ranks; r++) offsets[r] = total, total += sizes[r];
    all.resize(total);
  }
  PENTAGO_MPI(MPI_Gatherv(text.data(), size, MPI_CHAR, all.data(), sizes.data(), offsets.data(),
                          MPI_CHAR, 0, comm));
  if (rank != 0) return;
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw pentago_error_t("cannot write trace " + path);
  std::fputs("{\"traceEvents\":[\n", f);
  std::fwrite(all.data(), 1, all.size(), f);
  std::fputs("{\"name\":\"end\",\"ph\":\"M\",\"pid\":0,\"args\":{}}\n]}\n", f);
  std::fclose(f);
}

}  // namespace pentago
