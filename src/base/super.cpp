// Super kernel tables, run-time SIMD dispatch and printing.
#include "pentago/base/super.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>

#include "pentago/base/simd/super_tables.h"
#include "pentago/util/error.h"

namespace pentago {
namespace detail {

extern const super_kernels_t portable_kernels;
#ifndef __EMSCRIPTEN__
extern const super_kernels_t sse_kernels;
extern const super_kernels_t avx2_kernels;
extern const super_kernels_t avx512vbmi_kernels;
#endif

namespace {

// The tables are built at compile time, so that they never depend on the order in which
// static objects of other files (board.cpp's tables) are initialized.
consteval super_tables_t make_tables() {
  super_tables_t t{};
  for (int q = 0; q < 4; q++)
    for (int mask = 0; mask < 512; mask++) {
      int rotated[4] = {mask, 0, 0, 0};
      for (int r = 1; r < 4; r++) rotated[r] = rotate_ccw(rotated[r - 1]);
      for (int line = 0; line < 32; line++) {
        const int cells = int(win_line(line) >> 16 * q & 0x1ff);
        uint64_t set = 0;
        for (int r = 0; r < 4; r++)
          if ((rotated[r] & cells) == cells) set |= uint64_t(1) << r;
        t.win_nibbles[q][mask].h[line >> 4] |= set << 4 * (line & 15);
      }
    }
  for (int a = 0; a < 16; a++) {
    uint64_t g16 = 0, g64 = 0;
    for (int j = 0; j < 4; j++)
      if (a >> j & 1) g16 |= uint64_t(0xf) << 4 * j, g64 |= uint64_t(0xffff) << 16 * j;
    t.axis0[a] = uint64_t(a) * 0x1111111111111111ULL;
    t.axis1[a] = g16 * 0x0001000100010001ULL;
    t.axis2[a] = g64;
    for (int w = 0; w < 4; w++) t.axis3[a].w[w] = a >> w & 1 ? ~uint64_t(0) : 0;
  }
  for (int k = 0; k < 4; k++) {
    t.rotate_low[k] = uint64_t((1 << (4 - k)) - 1) * 0x1111111111111111ULL;
    for (int i = 0; i < 8; i++) t.rotate_words[k][i] = uint32_t((i + 2 * k) & 7);
  }
  return t;
}

}  // namespace

constexpr super_tables_t super_tables = make_tables();

}  // namespace detail

const super_kernels_t* active_super_kernels = &detail::portable_kernels;

#ifdef __EMSCRIPTEN__
// WebAssembly (src/web): the super kernels are the portable ones at every level; level sse
// runs the midgame rows on 128-bit wasm SIMD through emscripten's SSE headers.
bool simd_supported(simd_level_t level) {
  return level == simd_level_t::portable || level == simd_level_t::sse;
}

const super_kernels_t& kernels_for(simd_level_t) { return detail::portable_kernels; }
#else
bool simd_supported(simd_level_t level) {
  switch (level) {
    case simd_level_t::portable:
      return true;
    case simd_level_t::sse:
      return __builtin_cpu_supports("ssse3");
    case simd_level_t::avx2:
      return __builtin_cpu_supports("avx2");
    case simd_level_t::avx512:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("avx512f") &&
             __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
    case simd_level_t::avx512vbmi:
      return simd_supported(simd_level_t::avx512) && __builtin_cpu_supports("avx512vbmi") &&
             __builtin_cpu_supports("avx512vbmi2") && __builtin_cpu_supports("gfni") &&
             __builtin_cpu_supports("avx512vpopcntdq");
  }
  return false;
}

simd_level_t best_simd_level() {
  return simd_supported(simd_level_t::avx512vbmi) ? simd_level_t::avx512vbmi
         : simd_supported(simd_level_t::avx512)   ? simd_level_t::avx512
         : simd_supported(simd_level_t::avx2)     ? simd_level_t::avx2
         : simd_supported(simd_level_t::sse)      ? simd_level_t::sse
                                                  : simd_level_t::portable;
}

const super_kernels_t& kernels_for(simd_level_t level) {
  switch (level) {
    case simd_level_t::sse:
      return detail::sse_kernels;
    case simd_level_t::avx2:
    case simd_level_t::avx512:
      return detail::avx2_kernels;
    case simd_level_t::avx512vbmi:
      return detail::avx512vbmi_kernels;
    default:
      return detail::portable_kernels;
  }
}
#endif

namespace {
std::atomic<simd_level_t> active_level{simd_level_t::portable};

// The level and its super kernels (several levels share one kernel table).
void activate(simd_level_t level) {
  active_super_kernels = &kernels_for(level);
  active_level.store(level, std::memory_order_relaxed);
}
}  // namespace

simd_level_t current_simd_level() { return active_level.load(std::memory_order_relaxed); }

void set_simd_level(simd_level_t level) {
  if (!simd_supported(level))
    throw pentago_error_t(std::string("SIMD level ") + simd_name(level) +
                          " is not supported by this CPU");
  activate(level);
}

const char* simd_name(simd_level_t level) {
  switch (level) {
    case simd_level_t::sse:
      return "sse";
    case simd_level_t::avx2:
      return "avx2";
    case simd_level_t::avx512:
      return "avx512";
    case simd_level_t::avx512vbmi:
      return "avx512vbmi";
    default:
      return "portable";
  }
}

simd_level_t parse_simd_level(const std::string& name) {
  for (auto level : {simd_level_t::portable, simd_level_t::sse, simd_level_t::avx2,
                     simd_level_t::avx512, simd_level_t::avx512vbmi})
    if (name == simd_name(level)) return level;
  throw usage_error_t("unknown SIMD level '" + name +
                      "' (expected portable, sse, avx2, avx512 or avx512vbmi)");
}

namespace {
// Chooses the kernels once at start-up: PENTAGO_SIMD if set, else the best the CPU has.
struct simd_selector_t {
  simd_selector_t() {
    simd_level_t level = best_simd_level();
    if (const char* env = std::getenv("PENTAGO_SIMD")) {
      try {
        level = parse_simd_level(env);
        if (!simd_supported(level)) throw pentago_error_t("");
      } catch (const pentago_error_t&) {
        std::fprintf(stderr, "pentago: PENTAGO_SIMD=%s is not usable here; using %s\n", env,
                     simd_name(best_simd_level()));
        level = best_simd_level();
      }
    }
    activate(level);
  }
} selector;
}  // namespace

std::string str_super(const super_t& s) {
  char buf[80];
  std::snprintf(buf, sizeof buf, "%016llx%016llx%016llx%016llx", (unsigned long long)s.w[3],
                (unsigned long long)s.w[2], (unsigned long long)s.w[1], (unsigned long long)s.w[0]);
  return buf;
}

}  // namespace pentago
