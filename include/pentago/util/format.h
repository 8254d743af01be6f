// Text for people: sizes in binary units, durations, and words quoted for the shell.
#pragma once
#include <string>

namespace pentago {

std::string format_bytes(double bytes);      // "1.23 GiB"
std::string format_seconds(double seconds);  // "1h 02m 03s" / "12.3 s"
// A word as the shell reads it back: unchanged if it has only safe characters, else in single
// quotes ("it's" -> 'it'\''s').
std::string shell_quote(const std::string& word);

}  // namespace pentago
