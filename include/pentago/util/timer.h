// Wall-clock timing for progress lines and reports: seconds since a steady_clock instant.
#pragma once
#include <chrono>

namespace pentago {

using steady_time_t = std::chrono::steady_clock::time_point;

inline double seconds_since(steady_time_t start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace pentago
