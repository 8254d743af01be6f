// Text for people: sizes in binary units, durations, words quoted for the shell, printf's
// formatting into a string of any length, and reports built a line at a time.
#pragma once
#include <string>

namespace pentago {

std::string format_bytes(double bytes);      // "1.23 GiB"
std::string format_seconds(double seconds);  // "1h 02m 03s" / "12.3 s"
// A word as the shell reads it back: unchanged if it has only safe characters, else in single
// quotes ("it's" -> 'it'\''s').
std::string shell_quote(const std::string& word);

// What printf would print, as a string (never cut short).
std::string format_printf(const char* format, ...) __attribute__((format(printf, 1, 2)));

// A report built a line at a time: each line as given or formatted as printf does, and the
// text with a newline after every line.
class text_lines_t {
 public:
  void add(const std::string& line) {
    text_ += line;
    text_ += '\n';
  }
  void addf(const char* format, ...) __attribute__((format(printf, 2, 3)));
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

}  // namespace pentago
