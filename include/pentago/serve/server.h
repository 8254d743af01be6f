// pentago-serve: an HTTP/1.1 JSON API over the query path (docs/api.md) and the web explorer
// page, with limits on concurrent midgame solves (in all and per client), their queue,
// connections, idle time and body size; complete answers carry a strong ETag.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "pentago/query/query.h"

namespace pentago {

struct serve_options_t {
  query_options_t query;  // --db, --solver-threads, --cache, --answer-cache, --gpu
  std::string bind = "127.0.0.1";
  int port = 8080;                // 0: any free port (printed on stdout)
  int http_threads = 32;          // requests answered at once (idle connections hold none)
  int midgame_slots = 0;          // concurrent midgame solves; 0: hardware threads
  int midgame_queue = 64;         // requests that may wait for a slot (at most threads-1-slots)
  int midgame_per_client = 2;     // solves one client address may run or wait for (else 429)
  int max_connections = 1024;     // connections open at once
  int max_per_client = 64;        // connections open at once from one client address
  std::string trusted_proxy;      // a reverse proxy whose X-Forwarded-For names the client
  double request_timeout_s = 30;  // a connection's idle time, the wait for a slot, and one
                                  // remote database read
  size_t max_body_bytes = size_t(1) << 20;
  size_t max_batch = 64;     // positions per POST /api/v1/positions
  int max_age_s = 31536000;  // Cache-Control max-age of answers (they never change)
  std::string log_path;      // access log (appended); empty: stdout
};

// The --help text of pentago-serve.
extern const char serve_usage[];
// Parses the command line (argv[0] skipped); throws usage_error with a one-line reason.
serve_options_t parse_serve_options(int argc, char** argv);

// The server: opens the databases on construction (throws pentago::error / usage_error), binds
// with bind(), serves requests in run() until stop() (callable from any thread).
class server_t {
 public:
  explicit server_t(const serve_options_t& options);
  ~server_t();
  server_t(const server_t&) = delete;
  server_t& operator=(const server_t&) = delete;

  // Binds the listening socket and returns its port; throws pentago::error if it cannot.
  int bind();
  // Serves until stop(); throws pentago::error if the server fails while listening. Returns
  // false if responses were still under way two seconds after stop() (a midgame solve): the
  // process should then end without destroying the server.
  bool run();
  // Ends run() soon: requests waiting for a midgame slot get 503, solves under way finish.
  void stop();
  // With --gpu but no usable GPU: why (the CPU solver answers); else empty.
  std::string midgame_gpu_unavailable() const;

 private:
  struct impl_t;
  std::unique_ptr<impl_t> impl_;
};

}  // namespace pentago
