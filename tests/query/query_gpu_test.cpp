// Tests of the query path's GPU option: an engine asked for the GPU answers midgame positions
// exactly as one on the CPU solver, and names the device it uses (without CUDA or a device:
// "cpu" and the reason); an engine given the batched solver's CPU reference device runs its
// midgame solves there, with the same answers.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "pentago/base/random_moves.h"
#include "pentago/mid/midgame_gpu.h"
#include "pentago/query/query.h"

using namespace pentago;

namespace {

// An answer's JSON without its time: what two engines must agree on.
std::string timeless_json(position_answer_t a) {
  a.elapsed_ms = 0;
  return answer_json(a);
}

// Midgame positions of 24 to 27 stones, to place and to rotate, with decisive values and ties.
std::vector<position_t> midgame_positions() {
  std::vector<position_t> positions = {
      parse_position("011010011001100101011___0___1___0___"),
      parse_position("01101001100110010101__10__1__0__1__0m"),
  };
  std::mt19937_64 rng(24);
  for (const int stones : {24, 25, 27})
    positions.push_back({random_open_position(rng, stones, false), false});
  return positions;
}

// Every position answered by both engines (each fresh, so that no answer comes from the
// other's solves), compared in full: values, distances, sources and the order of the moves.
void expect_same_answers(query_engine_t& expected, query_engine_t& actual) {
  int from_midgame = 0;
  for (const position_t p : midgame_positions()) {
    SCOPED_TRACE(position_code(p));
    ASSERT_TRUE(actual.route(p).needs_midgame());
    const position_answer_t a = expected.answer(p), b = actual.answer(p);
    EXPECT_EQ(timeless_json(a), timeless_json(b));
    from_midgame += a.source == answer_source_t::midgame;
  }
  EXPECT_GE(from_midgame, 2);
  EXPECT_EQ(actual.stats().midgame_solves, midgame_positions().size());
}

}  // namespace

TEST(query_gpu, the_gpu_option_answers_as_the_cpu_solver_and_names_its_device) {
  query_options_t cpu_options;
  cpu_options.threads = 2;
  query_options_t gpu_options = cpu_options;
  gpu_options.gpu = true;
  query_engine_t cpu(cpu_options), gpu(gpu_options);
  EXPECT_EQ(cpu.stats().midgame_device, "cpu");
  EXPECT_EQ(cpu.stats().midgame_gpu_unavailable, "");
  std::string why;
  const query_stats_t s = gpu.stats();
  if (midgame_gpu_available(&why)) {
    EXPECT_NE(s.midgame_device, "cpu");
    EXPECT_EQ(s.midgame_gpu_unavailable, "");
  } else {
    EXPECT_EQ(s.midgame_device, "cpu");
    EXPECT_FALSE(why.empty());
    EXPECT_EQ(s.midgame_gpu_unavailable, why);
  }
  expect_same_answers(cpu, gpu);
}

TEST(query_gpu, an_engine_on_the_reference_device_answers_as_the_cpu_solver) {
  query_options_t options;
  options.threads = 2;
  query_engine_t cpu(options), reference(options, midgame_gpu_t::reference(2));
  const query_stats_t s = reference.stats();
  EXPECT_EQ(s.midgame_device.rfind("CPU reference (", 0), 0u) << s.midgame_device;
  EXPECT_EQ(s.midgame_gpu_unavailable, "");
  expect_same_answers(cpu, reference);
}
