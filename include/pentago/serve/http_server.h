// The HTTP/1.1 transport of pentago-serve, on GNU libmicrohttpd: one internal polling thread
// (epoll) reads requests and writes responses without blocking, so idle, slow and never-reading
// clients hold no worker; connections are bounded in total and per client address, idle ones
// close after the timeout, and the library frames requests (a malformed or ambiguous one is
// answered 400 and closed). A fixed pool of workers runs the handler while the connection is
// suspended; request bodies are bounded one by one and together.
#pragma once
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace pentago {

struct http_request_t {
  std::string method;   // "GET", "HEAD", "POST"
  std::string target;   // as sent: "/api/v1/position/0?x=1"
  std::string path;     // the target's path, percent-decoded (an absolute-form target's too)
  std::string version;  // "HTTP/1.1" or "HTTP/1.0"
  std::vector<std::pair<std::string, std::string>> headers;  // names in lower case
  std::string body;                                          // chunked bodies decoded
  std::string remote_addr;                                   // "127.0.0.1"
  // Non-empty when the request could not be read: why (the response status is set already).
  std::string malformed;
  double start_seconds = 0;  // steady clock, when the request reached the handler
  int socket = -1;           // the client's connection (for client_gone)

  // The value of a header by lower-case name ("" if absent).
  std::string header(const std::string& name) const;
  // Whether the client has closed its connection or it failed (the answer has no one to go
  // to); cheap: one poll of the socket without waiting.
  bool client_gone() const;
};

struct http_response_t {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  bool close = false;     // close the connection after this response
  size_t body_bytes = 0;  // the body's size once the transport has taken it (for the log)
};

struct http_server_options_t {
  std::string bind = "127.0.0.1";
  int port = 0;           // 0: any free port
  int threads = 4;        // workers: responses produced at once
  double timeout_s = 30;  // a connection idle (nothing received or sent) this long closes
  size_t max_body = size_t(1) << 20;
  size_t max_connections = 1024;  // open at once; more are closed on accept
  size_t max_per_client = 64;     // open at once from one address
  // Request bodies held at once, all connections together; a body that would pass it is
  // answered 503 (so that many half-sent bodies cannot take the server's memory).
  size_t body_budget = size_t(64) << 20;
  // Requests this returns true for are answered on the polling thread (cheap routes that must
  // never wait behind the workers: health, stats, the page); the handler must return at once.
  std::function<bool(const http_request_t&)> immediate;
  // A reverse proxy's address: its requests name their client in X-Forwarded-For (the last
  // entry, the one the proxy added), which then counts as the request's remote address.
  std::string trusted_proxy;
};

class http_server_t {
 public:
  // Produces the response of a request, on a worker thread. Also called for a request refused
  // before it reached the workers (request.malformed set, response.status preset) to fill the
  // error body: it must then return at once.
  using handler_t = std::function<void(const http_request_t&, http_response_t&)>;
  // Called once per response sent (or attempted), after it is written.
  using logger_t = std::function<void(const http_request_t&, const http_response_t&)>;

  http_server_t(const http_server_options_t& options, handler_t handle, logger_t log);
  ~http_server_t();
  http_server_t(const http_server_t&) = delete;
  http_server_t& operator=(const http_server_t&) = delete;

  // Binds and listens; returns the port. Throws pentago::error with the reason.
  int bind();
  // Serves until stop(). Requests not yet started are dropped; the responses under way get two
  // seconds to finish. Returns false if some did not (their workers still run: the caller
  // should end the process rather than destroy the server, which would wait for them).
  bool run();
  // Ends run() soon (any thread, also before run() starts).
  void stop();

 private:
  struct impl_t;
  std::unique_ptr<impl_t> impl_;
};

// Escapes a byte string for one field of a log line: bytes below 0x21, 0x7f and above, '\' and
// '"' become \xHH, so a field never holds spaces, control characters or raw escape sequences.
std::string log_field(const std::string& text, size_t max_bytes = 200);

}  // namespace pentago
