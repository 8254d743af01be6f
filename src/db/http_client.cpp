// HTTP range reads with libcurl: a pool of easy handles (kept connections), retries with a
// doubling delay on transient failures within one time bound per request, and checks that the
// server honoured the range.
#include "pentago/db/http_client.h"

#include <curl/curl.h>
#include <strings.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace pentago {

namespace {

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
      throw pentago_error_t("libcurl: cannot initialise");
  });
}

// What one transfer received.
struct transfer_t {
  std::vector<uint8_t> body;
  uint64_t limit = 0;  // more bytes than this: the server ignored the range
  bool overflow = false;
  int status = 0;  // of the last response line seen
  std::string content_range;
  std::string content_encoding;
};

// A header value from a remote server for a message: at most 80 bytes, with control bytes,
// non-ASCII bytes and backslashes as \xHH, so that an error stays one clean line.
std::string printable(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size() && i < 80; i++) {
    const unsigned char c = (unsigned char)text[i];
    if (c < 0x20 || c >= 0x7f || c == '\\') {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    } else {
      out += char(c);
    }
  }
  return text.size() > 80 ? out + "..." : out;
}

// A header line's value, without the name, surrounding blanks and the line end.
std::string header_value(const std::string& line, size_t name_size) {
  std::string value = line.substr(name_size);
  const size_t a = value.find_first_not_of(" \t"), b = value.find_last_not_of(" \t\r\n");
  return a == std::string::npos || b < a ? "" : value.substr(a, b - a + 1);
}

size_t on_body(char* data, size_t, size_t n, void* user) {
  auto& t = *static_cast<transfer_t*>(user);
  if (t.status != 200 && t.status != 206) return n;  // an error page: only its status matters
  if (t.body.size() + n > t.limit) {
    t.overflow = true;
    return 0;  // aborts the transfer
  }
  t.body.insert(t.body.end(), reinterpret_cast<uint8_t*>(data),
                reinterpret_cast<uint8_t*>(data) + n);
  return n;
}

size_t on_header(char* data, size_t, size_t n, void* user) {
  auto& t = *static_cast<transfer_t*>(user);
  const std::string line(data, n);
  if (line.rfind("HTTP/", 0) == 0) {  // a new response (redirects, 100 Continue)
    t.content_range.clear();
    t.content_encoding.clear();
    const size_t space = line.find(' ');
    t.status = space == std::string::npos ? 0 : std::atoi(line.c_str() + space + 1);
  }
  static const char name[] = "content-range:";
  if (line.size() > sizeof(name) - 1 && strncasecmp(line.c_str(), name, sizeof(name) - 1) == 0)
    t.content_range = line.substr(sizeof(name) - 1);
  static const char encoding[] = "content-encoding:";
  if (strncasecmp(line.c_str(), encoding, sizeof(encoding) - 1) == 0)
    t.content_encoding = header_value(line, sizeof(encoding) - 1);
  return n;
}

bool transient(CURLcode rc) {
  switch (rc) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return true;
    default:
      return false;
  }
}

// Parses " bytes FIRST-LAST/TOTAL"; false if malformed.
bool parse_content_range(const std::string& text, uint64_t& first, uint64_t& last,
                         uint64_t& total) {
  unsigned long long a, b, t;
  if (std::sscanf(text.c_str(), " bytes %llu-%llu/%llu", &a, &b, &t) != 3) return false;
  first = a, last = b, total = t;
  return a <= b && b < t;
}

}  // namespace

struct http_client_t::handle_pool_t {
  std::mutex mutex;
  std::vector<CURL*> free;
  std::atomic<uint64_t> requests{0};
  ~handle_pool_t() {
    for (CURL* h : free) curl_easy_cleanup(h);
  }
  CURL* take() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (!free.empty()) {
        CURL* h = free.back();
        free.pop_back();
        return h;
      }
    }
    CURL* h = curl_easy_init();
    if (!h) throw pentago_error_t("libcurl: cannot create a transfer handle");
    return h;
  }
  void give(CURL* h) {
    std::lock_guard<std::mutex> lock(mutex);
    free.push_back(h);
  }
};

http_client_t::http_client_t(const http_options_t& options)
    : options_(options), pool_(std::make_unique<handle_pool_t>()) {
  if (options.attempts < 1) throw usage_error_t("HTTP attempts must be at least 1");
  global_init();
}

http_client_t::~http_client_t() = default;

uint64_t http_client_t::requests() const { return pool_->requests.load(); }

std::optional<http_client_t::range_result_t> http_client_t::get_range(const std::string& url,
                                                                      uint64_t offset,
                                                                      uint64_t size,
                                                                      bool missing_ok) const {
  PENTAGO_CHECK(size >= 1, "empty range request");
  const std::string range = std::to_string(offset) + "-" + std::to_string(offset + size - 1);
  CURL* h = pool_->take();
  struct returner_t {
    handle_pool_t& pool;
    CURL* h;
    ~returner_t() { pool.give(h); }
  } give_back{*pool_, h};

  std::string last_reason;
  double delay = options_.first_retry_delay;
  // Every try and the delays between them share one bound: a stalled server holds the caller
  // for timeout_seconds, not that times the attempts.
  using clock_type_t = std::chrono::steady_clock;
  const auto deadline =
      clock_type_t::now() + std::chrono::duration_cast<clock_type_t::duration>(
                                std::chrono::duration<double>(options_.timeout_seconds));
  const auto seconds_left = [&] {
    return std::chrono::duration<double>(deadline - clock_type_t::now()).count();
  };
  int attempt = 1;
  for (; attempt <= options_.attempts; attempt++) {
    if (attempt > 1) {
      if (seconds_left() <= delay + 0.001) {
        last_reason += ", no time left to retry within " +
                       std::to_string(int(std::ceil(options_.timeout_seconds))) + " s";
        break;
      }
      std::this_thread::sleep_for(std::chrono::duration<double>(delay));
      delay *= 2;
    }
    const double left = std::max(0.001, seconds_left());
    transfer_t t;
    t.limit = size;
    char message[CURL_ERROR_SIZE] = "";
    curl_easy_reset(h);
    curl_easy_setopt(h, CURLOPT_URL, url.c_str());
    curl_easy_setopt(h, CURLOPT_RANGE, range.c_str());
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(h, CURLOPT_MAXREDIRS, 5L);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_USERAGENT, "pentago-query");
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, std::max(1L, long(1000 * std::min(10.0, left))));
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, std::max(1L, long(1000 * left)));
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, message);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &t);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &t);
    pool_->requests++;
    const CURLcode rc = curl_easy_perform(h);
    // A range of encoded content (gzip and the like) is not a range of the file's bytes.
    if (!t.content_encoding.empty() && strcasecmp(t.content_encoding.c_str(), "identity") != 0 &&
        (t.status == 200 || t.status == 206))
      throw fetch_error_t(url + ": the server sent range " + range + " with Content-Encoding '" +
                          printable(t.content_encoding) +
                          "' (serve the slice files unencoded: a range of encoded bytes is not "
                          "a range of the file)");
    if (rc != CURLE_OK) {
      if (t.overflow)
        throw fetch_error_t(url + ": the server ignores HTTP Range requests (sent more than the " +
                            std::to_string(size) + " bytes asked for)");
      last_reason = message[0] ? message : curl_easy_strerror(rc);
      if (transient(rc)) continue;
      throw fetch_error_t("cannot fetch " + url + ": " + last_reason);
    }
    long status = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    if (status == 206) {
      uint64_t first, last, total;
      if (!parse_content_range(t.content_range, first, last, total) || first != offset ||
          last != offset + size - 1 || t.body.size() != size)
        throw fetch_error_t(url + ": bad partial response to range " + range + " (Content-Range '" +
                            printable(header_value(t.content_range, 0)) + "', " +
                            std::to_string(t.body.size()) + " bytes)");
      return range_result_t{std::move(t.body), total};
    }
    if (status == 200) {
      // Whole content in one piece: fine only when the range was the whole resource.
      if (offset == 0 && t.body.size() == size) return range_result_t{std::move(t.body), size};
      throw fetch_error_t(url + ": the server ignores HTTP Range requests (status 200 to range " +
                          range + ")");
    }
    if ((status == 404 || status == 410) && missing_ok) return std::nullopt;
    if (status == 416)
      throw fetch_error_t(url + ": range " + range +
                          " is not satisfiable (HTTP 416: the file is shorter than expected)");
    last_reason = "HTTP status " + std::to_string(status);
    if (status >= 500 || status == 408 || status == 429) continue;
    throw fetch_error_t("cannot fetch " + url + ": " + last_reason);
  }
  const int tries = attempt - 1;
  throw fetch_error_t("cannot fetch " + url + ": " + last_reason + " (" + std::to_string(tries) +
                      (tries == 1 ? " attempt)" : " attempts)"));
}

std::shared_ptr<const input_file_t> http_client_t::open(const std::string& url,
                                                        uint64_t size) const {
  return std::make_shared<const input_file_t>(
      url, size, [this, url](uint64_t offset, std::span<uint8_t> out) {
        const auto r = get_range(url, offset, out.size());
        std::memcpy(out.data(), r->bytes.data(), out.size());
      });
}

}  // namespace pentago
