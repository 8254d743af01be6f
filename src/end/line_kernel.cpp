// Run-time choice of the line kernel's SIMD level.
#include "pentago/end/line_kernel.h"

#include <string>

#include "pentago/util/error.h"

namespace pentago {
namespace detail {
extern void (*const line_block_portable)(const line_block_job_t&);
extern void (*const line_block_sse)(const line_block_job_t&);
extern void (*const line_block_avx2)(const line_block_job_t&);
extern void (*const line_block_avx512)(const line_block_job_t&);
extern void (*const line_block_avx512vbmi)(const line_block_job_t&);
}  // namespace detail

void run_line_block(simd_level_t level, const line_block_job_t& job) {
  switch (level) {
    case simd_level_t::avx512vbmi:
      if (!simd_supported(level)) break;
      return detail::line_block_avx512vbmi(job);
    case simd_level_t::avx512:
      if (!simd_supported(level)) break;
      return detail::line_block_avx512(job);
    case simd_level_t::avx2:
      if (!simd_supported(level)) break;
      return detail::line_block_avx2(job);
    case simd_level_t::sse:
      if (!simd_supported(level)) break;
      return detail::line_block_sse(job);
    default:
      return detail::line_block_portable(job);
  }
  throw pentago_error_t(std::string("this CPU lacks ") + simd_name(level) + " for the line kernel");
}

void run_line_block(const line_block_job_t& job) { run_line_block(current_simd_level(), job); }

namespace detail {
thread_local uint64_t kept_line_tables_epoch = 0;
}  // namespace detail

void forget_kept_line_tables() { detail::kept_line_tables_epoch++; }

}  // namespace pentago
