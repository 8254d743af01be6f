// The HTTP/1.1 transport of pentago-serve. One thread reads and frames every request, so a slow
// or idle client holds no worker; a fixed pool of workers runs the handler and writes each
// response. A request must arrive whole within the timeout (else 408), its body (with
// Content-Length or chunked) within the size limit (else 413); pipelined requests are answered
// in order; a malformed request is answered 400 and its connection closed.
#pragma once
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace pentago {

struct http_request {
  std::string method;   // "GET", "HEAD", "POST"
  std::string target;   // as sent: "/api/v1/position/0?x=1"
  std::string path;     // the target before '?', percent-decoded
  std::string version;  // "HTTP/1.1" or "HTTP/1.0"
  std::vector<std::pair<std::string, std::string>> headers;  // names in lower case
  std::string body;                                          // chunked bodies decoded
  std::string remote_addr;                                   // "127.0.0.1"
  // Non-empty when the request could not be read: why (the response status is set already).
  std::string malformed;
  double start_seconds = 0;  // steady clock, when its first byte arrived

  // The value of a header by lower-case name ("" if absent).
  std::string header(const std::string& name) const;
};

struct http_response {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  bool close = false;  // close the connection after this response
};

struct http_server_options {
  std::string bind = "127.0.0.1";
  int port = 0;           // 0: any free port
  int threads = 4;        // workers: responses produced at once
  double timeout_s = 30;  // a request must arrive within this; idle connections and writes too
  size_t max_body = size_t(1) << 20;
  size_t max_header = size_t(16) << 10;  // the request line and headers
  size_t max_target = 8192;              // longer targets get 414
  size_t max_connections = 1024;         // open at once; more wait in the listen backlog
};

class http_server {
 public:
  // Produces the response of a request, on a worker thread. Also called, on the reading
  // thread, for a malformed request (request.malformed set, response.status preset) to fill
  // the error body: it must then return at once.
  using handler = std::function<void(const http_request&, http_response&)>;
  // Called once per response sent (or attempted), after it is written.
  using logger = std::function<void(const http_request&, const http_response&)>;

  http_server(const http_server_options& options, handler handle, logger log);
  ~http_server();
  http_server(const http_server&) = delete;
  http_server& operator=(const http_server&) = delete;

  // Binds and listens; returns the port. Throws pentago::error with the reason.
  int bind();
  // Serves until stop(). Requests not yet started are dropped; the responses under way get two
  // seconds to finish. Returns false if some did not (their workers still run: the caller
  // should end the process rather than destroy the server, which would wait for them).
  bool run();
  // Ends run() soon (any thread, also before run() starts).
  void stop();

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

// Escapes a byte string for one field of a log line: bytes below 0x21, 0x7f and above, '\' and
// '"' become \xHH, so a field never holds spaces, control characters or raw escape sequences.
std::string log_field(const std::string& text, size_t max_bytes = 200);

}  // namespace pentago
