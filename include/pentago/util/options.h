// Command-line values shared by every parser: decimal integers (no C prefixes: "010" is ten),
// memory sizes ("7G", "1.5GiB", "512M", decimal only), and the argument cursor that walks a
// command line ("--opt value" and "--opt=value"). Errors are one-line usage_errors naming the
// option.
#pragma once
#include <cstdint>
#include <string>

namespace pentago {

// A decimal integer in [lo, hi]: optional '-', then digits only (no '+', spaces or prefixes).
long long parse_int_option(const std::string& option, const std::string& value, long long lo,
                           long long hi);
// A number in [lo, hi] as strtod reads it (the whole value); usage_error "<option> must be a
// number in [lo, hi], got '<value>'" otherwise.
double parse_number_option(const std::string& option, const std::string& value, double lo,
                           double hi);
// A positive size: decimal digits with an optional fraction, then an optional suffix B, K, M,
// G, T (powers of 1024; also KB/KiB etc.). "0x10G", "1e9", "inf" are rejected.
uint64_t parse_memory_option(const std::string& option, const std::string& value);

// Walks a command line: next() moves to the next word, arg() is that word (for "--opt=value"
// the "--opt" part), value() consumes the option's value (the "=value" part or the next word).
// next() rejects an "=value" that the previous option did not consume.
class argument_cursor_t {
 public:
  argument_cursor_t(int argc, char** argv) : argc_(argc), argv_(argv) {}
  bool next();
  const std::string& arg() const { return arg_; }
  // A word starting with '-' other than "-" alone (which names standard input).
  bool is_option() const { return arg_.size() > 1 && arg_[0] == '-'; }
  std::string value();  // usage_error "<option> needs a value" at the end of the line
  long long int_value(long long lo, long long hi) {
    return parse_int_option(arg_, value(), lo, hi);
  }
  uint64_t memory_value() { return parse_memory_option(arg_, value()); }
  [[noreturn]] void unknown() const;  // usage_error "unknown option ..."

 private:
  int argc_, i_ = 0;
  char** argv_;
  std::string arg_, inline_value_;
  bool has_inline_ = false;
};

}  // namespace pentago
