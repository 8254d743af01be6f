// Text for people: sizes and durations read as intended, shell quoting survives the shell, and
// printf's formatting into strings and line-at-a-time reports keeps every byte.
#include "pentago/util/format.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

using namespace pentago;

namespace {

// What sh makes of a word after quoting: the word itself.
std::string through_shell(const std::string& word) {
  const std::string command = "printf '%s' " + shell_quote(word);
  FILE* pipe = popen(command.c_str(), "r");
  std::string out;
  char buffer[256];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
  pclose(pipe);
  return out;
}

TEST(shell_quote, words_survive_the_shell) {
  for (const std::string word : {"plain", "run dir", "it's", "a\"b", "$HOME", "x;rm -rf y",
                                 "back\\slash", "*", "", "tab\there", "--dir=/a b/c"})
    EXPECT_EQ(through_shell(word), word) << shell_quote(word);
  EXPECT_EQ(shell_quote("/runs/r-1/slice-35.pentago"), "/runs/r-1/slice-35.pentago");
}

TEST(format, sizes_and_durations) {
  EXPECT_EQ(format_bytes(0), "0 B");
  EXPECT_EQ(format_bytes(1536), "1.50 KiB");
  EXPECT_EQ(format_bytes(3.0 * (1 << 30)), "3.00 GiB");
  EXPECT_EQ(format_seconds(12.34), "12.3 s");
  EXPECT_EQ(format_seconds(3723), "1h 02m 03s");
}

TEST(format, printf_into_strings_and_lines) {
  EXPECT_EQ(format_printf("%.3g", 1e6), "1e+06");
  EXPECT_EQ(format_printf("%5d|%-4s|", 42, "ab"), "   42|ab  |");
  EXPECT_EQ(format_printf("%s", ""), "");
  // Longer than any fixed buffer: never cut short.
  const std::string long_word(5000, 'x');
  EXPECT_EQ(format_printf("<%s>", long_word.c_str()), "<" + long_word + ">");
  text_lines_t lines;
  EXPECT_EQ(lines.text(), "");
  lines.addf("%d ranks x %d threads", 2, 3);
  lines.add("");
  lines.add("as given %d");
  EXPECT_EQ(lines.text(), "2 ranks x 3 threads\n\nas given %d\n");
}

}  // namespace
