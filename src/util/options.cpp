// Decimal option values and the argument cursor shared by every command-line parser.
#include "pentago/util/options.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>

#include "pentago/util/error.h"

namespace pentago {

long long parse_int_option(const std::string& option, const std::string& value, long long lo,
                           long long hi) {
  const char* begin = value.data();
  const char* end = begin + value.size();
  const bool digits =
      value.size() > size_t(value[0] == '-') &&
      std::all_of(begin + (value[0] == '-'), end, [](char c) { return c >= '0' && c <= '9'; });
  long long v = 0;
  const auto [stop, ec] = digits ? std::from_chars(begin, end, v) : std::from_chars_result{};
  if (!digits || ec == std::errc::invalid_argument || stop != end)
    throw usage_error_t(option + ": expected a decimal integer, got '" + value + "'");
  if (ec == std::errc::result_out_of_range || v < lo || v > hi)
    throw usage_error_t(option + ": " + value + " is out of range [" + std::to_string(lo) + ", " +
                        std::to_string(hi) + "]");
  return v;
}

double parse_number_option(const std::string& option, const std::string& value, double lo,
                           double hi) {
  char* end = nullptr;
  const double x = std::strtod(value.c_str(), &end);
  if (value.empty() || *end || !(x >= lo && x <= hi))
    throw usage_error_t(option + " must be a number in [" + std::to_string(lo) + ", " +
                        std::to_string(hi) + "], got '" + value + "'");
  return x;
}

uint64_t parse_memory_option(const std::string& option, const std::string& value) {
  const auto bad = [&] {
    return usage_error_t(option + ": expected a positive size like 4G or 512M, got '" + value +
                         "'");
  };
  size_t i = 0;
  double v = 0;
  while (i < value.size() && std::isdigit((unsigned char)value[i])) v = 10 * v + (value[i++] - '0');
  if (i == 0 || i > 20) throw bad();
  if (i < value.size() && value[i] == '.') {
    const size_t start = ++i;
    for (double scale = 0.1; i < value.size() && std::isdigit((unsigned char)value[i]); scale /= 10)
      v += scale * (value[i++] - '0');
    if (i == start) throw bad();
  }
  if (!(v > 0)) throw bad();
  std::string suffix = value.substr(i);
  for (auto& c : suffix) c = char(std::toupper((unsigned char)c));
  double scale = 1;
  if (suffix == "" || suffix == "B")
    scale = 1;
  else if (suffix == "K" || suffix == "KB" || suffix == "KIB")
    scale = 0x1p10;
  else if (suffix == "M" || suffix == "MB" || suffix == "MIB")
    scale = 0x1p20;
  else if (suffix == "G" || suffix == "GB" || suffix == "GIB")
    scale = 0x1p30;
  else if (suffix == "T" || suffix == "TB" || suffix == "TIB")
    scale = 0x1p40;
  else
    throw usage_error_t(option + ": unknown size suffix '" + value.substr(i) + "' in '" + value +
                        "' (use K, M, G or T)");
  const double bytes = v * scale;
  if (bytes > 1e18) throw usage_error_t(option + ": " + value + " is too large");
  if (bytes < 1) throw bad();
  return uint64_t(bytes);
}

bool argument_cursor_t::next() {
  if (has_inline_)
    throw usage_error_t(arg_ + " takes no value, got '" + arg_ + "=" + inline_value_ + "'");
  if (++i_ >= argc_) return false;
  arg_ = argv_[i_];
  const size_t eq = arg_.find('=');
  if (arg_.rfind("--", 0) == 0 && eq != std::string::npos) {
    inline_value_ = arg_.substr(eq + 1);
    arg_.resize(eq);
    has_inline_ = true;
  }
  return true;
}

std::string argument_cursor_t::value() {
  if (has_inline_) {
    has_inline_ = false;
    return inline_value_;
  }
  if (i_ + 1 >= argc_) throw usage_error_t(arg_ + " needs a value");
  return argv_[++i_];
}

void argument_cursor_t::unknown() const {
  throw usage_error_t("unknown option " + arg_ + " (see --help)");
}

}  // namespace pentago
