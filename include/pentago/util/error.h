// Error types shared by every layer: one-line, user-facing failures with an exit-code category.
#pragma once
#include <stdexcept>
#include <string>

namespace pentago {

// A runtime failure (bad file, exhausted memory, internal inconsistency): exit code 1.
struct pentago_error_t : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Bad user input (options, board or section strings): exit code 2.
struct usage_error_t : pentago_error_t {
  using pentago_error_t::pentago_error_t;
};

// Throws pentago::error with the given message if the condition fails. Used for internal
// invariants that must hold even in release builds (never compiled out).
#define PENTAGO_CHECK(cond, msg)                                                               \
  do {                                                                                         \
    if (!(cond))                                                                               \
      throw ::pentago::pentago_error_t(std::string("internal check failed: ") + (msg) + " (" + \
                                       __FILE__ + ":" + std::to_string(__LINE__) + ")");       \
  } while (0)

}  // namespace pentago
