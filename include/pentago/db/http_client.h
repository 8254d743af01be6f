// HTTP range reads for remote databases (libcurl): byte ranges of a URL with retries on
// transient failures, and an input_file whose reads are range requests.
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "pentago/data/file.h"
#include "pentago/util/error.h"

namespace pentago {

// A request that failed for a reason of the network or the server (after every retry), as
// opposed to bad data received.
struct fetch_error_t : pentago_error_t {
  using pentago_error_t::pentago_error_t;
};

struct http_options_t {
  int attempts = 3;                // tries per request on transient failures
  double timeout_seconds = 30;     // per request, every try and the delays between them included
  double first_retry_delay = 0.1;  // seconds; doubles after every failed try
};

class http_client_t {
 public:
  explicit http_client_t(const http_options_t& options = {});
  ~http_client_t();
  http_client_t(const http_client_t&) = delete;
  http_client_t& operator=(const http_client_t&) = delete;

  struct range_result_t {
    std::vector<uint8_t> bytes;  // exactly the requested range
    uint64_t total_size = 0;     // of the whole resource (from Content-Range)
  };
  // GET bytes [offset, offset + size) of `url` (size >= 1). Returns nullopt when the server
  // answers 404 or 410 and `missing_ok`; throws fetch_error for anything else that fails
  // (connection, timeout, other status, a server that ignores Range), after retrying the
  // transient failures (connection errors, timeouts, 5xx, 408, 429) while the request's time
  // (options().timeout_seconds) lasts.
  std::optional<range_result_t> get_range(const std::string& url, uint64_t offset, uint64_t size,
                                          bool missing_ok = false) const;

  // A read-only remote file of known size whose reads are range requests.
  std::shared_ptr<const input_file_t> open(const std::string& url, uint64_t size) const;

  const http_options_t& options() const { return options_; }
  uint64_t requests() const;

 private:
  struct handle_pool_t;
  http_options_t options_;
  std::unique_ptr<handle_pool_t> pool_;
};

}  // namespace pentago
