// .npy arrays of uint64: the 2013-style header writer and a strict, bounds-checked reader.
#include "pentago/data/npy.h"

#include <cstring>
#include <map>

#include "pentago/data/file.h"
#include "pentago/util/error.h"

namespace pentago {

namespace {

constexpr char npy_magic[] = "\x93NUMPY";
constexpr size_t npy_magic_size = 6;

// A tiny parser for the Python dict literal in a .npy header.
class dict_parser_t {
 public:
  dict_parser_t(std::string_view text, const std::string& name) : text_(text), name_(name) {}

  // Parses the dict: key -> raw value text (strings unquoted, tuples as "(a,b)").
  struct value_t {
    enum { string, boolean, tuple } kind;
    std::string text;
    bool flag = false;
    std::vector<uint64_t> numbers;
  };
  std::map<std::string, value_t> parse() {
    std::map<std::string, value_t> result;
    skip_space();
    expect('{');
    for (;;) {
      skip_space();
      if (peek() == '}') break;
      const std::string key = parse_string();
      skip_space();
      expect(':');
      skip_space();
      value_t value = parse_value();
      if (!result.emplace(key, std::move(value)).second) fail("duplicate key '" + key + "'");
      skip_space();
      if (peek() == ',') {
        pos_++;
        continue;
      }
      if (peek() != '}') fail("expected ',' or '}'");
    }
    expect('}');
    skip_space();
    if (pos_ != text_.size()) fail("unexpected text after the dict");
    return result;
  }

 private:
  std::string_view text_;
  const std::string& name_;
  size_t pos_ = 0;

  [[noreturn]] void fail(const std::string& why) const {
    throw pentago_error_t(name_ + ": bad .npy header: " + why + " at character " +
                          std::to_string(pos_));
  }
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n')) pos_++;
  }
  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'");
    pos_++;
  }
  std::string parse_string() {
    const char quote = peek();
    if (quote != '\'' && quote != '"') fail("expected a quoted string");
    pos_++;
    const size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != quote) pos_++;
    if (pos_ >= text_.size()) fail("unterminated string");
    return std::string(text_.substr(start, pos_++ - start));
  }
  uint64_t parse_number() {
    if (!(peek() >= '0' && peek() <= '9')) fail("expected a number");
    uint64_t n = 0;
    while (peek() >= '0' && peek() <= '9') {
      const uint64_t digit = uint64_t(peek() - '0');
      if (n > (UINT64_MAX - digit) / 10) fail("number too large");
      n = 10 * n + digit;
      pos_++;
    }
    return n;
  }
  value_t parse_value() {
    value_t v{};
    const char c = peek();
    if (c == '\'' || c == '"') {
      v.kind = value_t::string;
      v.text = parse_string();
    } else if (text_.substr(pos_, 4) == "True") {
      v.kind = value_t::boolean, v.flag = true, pos_ += 4;
    } else if (text_.substr(pos_, 5) == "False") {
      v.kind = value_t::boolean, v.flag = false, pos_ += 5;
    } else if (c == '(') {
      v.kind = value_t::tuple;
      pos_++;
      skip_space();
      while (peek() != ')') {
        v.numbers.push_back(parse_number());
        skip_space();
        if (peek() == ',') {
          pos_++;
          skip_space();
        } else if (peek() != ')') {
          fail("expected ',' or ')' in the shape");
        }
      }
      pos_++;
    } else {
      fail("expected a value");
    }
    return v;
  }
};

}  // namespace

std::string npy_header(uint64_t rows, uint64_t cols) {
  std::string dict = "{'descr': '<u8', 'fortran_order': False, 'shape': (" + std::to_string(rows) +
                     "," + std::to_string(cols) + "), }";
  const size_t unpadded = npy_magic_size + 2 + 2 + dict.size() + 1;  // + '\n'
  dict.append((16 - unpadded % 16) % 16, ' ');
  dict.push_back('\n');
  PENTAGO_CHECK(dict.size() <= 0xffff, "npy header too long");
  std::string header(npy_magic, npy_magic_size);
  header.push_back('\x01');
  header.push_back('\x00');
  header.push_back(char(dict.size() & 0xff));
  header.push_back(char(dict.size() >> 8));
  return header + dict;
}

std::vector<uint8_t> npy_bytes(uint64_t rows, uint64_t cols, std::span<const uint64_t> data) {
  PENTAGO_CHECK(cols == 0 || rows == data.size() / cols, "npy data size mismatch");
  PENTAGO_CHECK(rows * cols == data.size(), "npy data size mismatch");
  const std::string header = npy_header(rows, cols);
  std::vector<uint8_t> bytes(header.size() + 8 * data.size());
  std::memcpy(bytes.data(), header.data(), header.size());
  if (!data.empty()) std::memcpy(bytes.data() + header.size(), data.data(), 8 * data.size());
  return bytes;
}

void write_npy(const std::string& path, uint64_t rows, uint64_t cols,
               std::span<const uint64_t> data) {
  write_file(path, npy_bytes(rows, cols, data));
}

npy_header_info_t parse_npy_header(std::span<const uint8_t> bytes, const std::string& name) {
  if (bytes.size() < npy_magic_size + 4 || std::memcmp(bytes.data(), npy_magic, npy_magic_size))
    throw pentago_error_t(name + ": not a .npy file (bad magic)");
  const int major = bytes[6], minor = bytes[7];
  uint64_t text_size, text_start;
  if (major == 1 && minor == 0) {
    text_size = load_le<uint16_t>(bytes.data() + 8);
    text_start = 10;
  } else if (major == 2 && minor == 0) {
    if (bytes.size() < 12) throw pentago_error_t(name + ": truncated .npy header");
    text_size = load_le<uint32_t>(bytes.data() + 8);
    text_start = 12;
  } else {
    throw pentago_error_t(name + ": unsupported .npy version " + std::to_string(major) + "." +
                          std::to_string(minor));
  }
  if (text_size > bytes.size() - text_start)
    throw pentago_error_t(name + ": truncated .npy header");
  const std::string_view text(reinterpret_cast<const char*>(bytes.data() + text_start), text_size);
  if (text.empty() || text.back() != '\n')
    throw pentago_error_t(name + ": bad .npy header: does not end in a newline");

  const auto dict = dict_parser_t(text, name).parse();
  if (dict.size() != 3 || !dict.count("descr") || !dict.count("fortran_order") ||
      !dict.count("shape"))
    throw pentago_error_t(name + ": bad .npy header: expected keys descr, fortran_order and shape");
  const auto& descr = dict.at("descr");
  if (descr.kind != descr.string || descr.text != "<u8")
    throw pentago_error_t(name + ": unsupported .npy dtype (expected '<u8')");
  const auto& order = dict.at("fortran_order");
  if (order.kind != order.boolean || order.flag)
    throw pentago_error_t(name + ": unsupported .npy layout (expected fortran_order False)");
  const auto& shape = dict.at("shape");
  if (shape.kind != shape.tuple || shape.numbers.size() != 2)
    throw pentago_error_t(name + ": unsupported .npy shape (expected two dimensions)");

  npy_header_info_t info;
  info.rows = shape.numbers[0];
  info.cols = shape.numbers[1];
  info.header_size = text_start + text_size;
  if (info.cols && info.rows > UINT64_MAX / 8 / info.cols)
    throw pentago_error_t(name + ": .npy shape too large");
  return info;
}

// The body size a parsed header implies; throws unless the file has exactly that size.
static uint64_t checked_npy_body(const npy_header_info_t& info, uint64_t file_size,
                                 const std::string& name) {
  const uint64_t body = 8 * info.rows * info.cols;
  if (file_size - info.header_size != body)
    throw pentago_error_t(name + ": .npy file size " + std::to_string(file_size) +
                          " does not match its shape (" + std::to_string(info.rows) + "," +
                          std::to_string(info.cols) + "): expected " +
                          std::to_string(info.header_size + body));
  return body;
}

npy_array_t parse_npy(std::span<const uint8_t> bytes, const std::string& name) {
  const auto info = parse_npy_header(bytes, name);
  const uint64_t body = checked_npy_body(info, bytes.size(), name);
  npy_array_t array;
  array.rows = info.rows;
  array.cols = info.cols;
  array.data.resize(info.rows * info.cols);
  if (body) std::memcpy(array.data.data(), bytes.data() + info.header_size, body);
  return array;
}

npy_array_t read_npy(const std::string& path) {
  input_file_t file(path);
  // Read the header first, so that a huge claimed shape never drives an allocation.
  const uint64_t prefix = std::min<uint64_t>(file.size(), 1 << 16);
  const auto head = file.read(0, prefix, ".npy header");
  const auto info = parse_npy_header(head, path);
  const uint64_t body = checked_npy_body(info, file.size(), path);
  npy_array_t array;
  array.rows = info.rows;
  array.cols = info.cols;
  array.data.resize(info.rows * info.cols);
  file.read(info.header_size,
            std::span<uint8_t>(reinterpret_cast<uint8_t*>(array.data.data()), body), ".npy data");
  return array;
}

}  // namespace pentago
