// pentago-serve's HTTP/1.1 transport on GNU libmicrohttpd (see http_server.h): the library's
// polling thread frames requests and writes responses; here are the checks it leaves to the
// application (ambiguous framing, body bounds), the workers, and suspend/resume between them.
#include "pentago/serve/http_server.h"

#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>

#include "pentago/util/error.h"

namespace pentago {

namespace {

using clock_type_t = std::chrono::steady_clock;

// Body bytes read and dropped after a body was refused, before the connection is closed
// without an answer (a chunked body may never end).
constexpr uint64_t max_dropped = uint64_t(16) << 20;

// How long stopping waits for the responses under way.
constexpr double stop_grace_s = 2;

double now_seconds() {
  return std::chrono::duration<double>(clock_type_t::now().time_since_epoch()).count();
}

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower((unsigned char)c));
  return s;
}

// Percent-decodes a path; false on a bad escape.
bool percent_decode(const std::string& in, std::string& out) {
  out.clear();
  for (size_t i = 0; i < in.size(); i++) {
    if (in[i] != '%') {
      out += in[i];
      continue;
    }
    if (i + 2 >= in.size() || !std::isxdigit((unsigned char)in[i + 1]) ||
        !std::isxdigit((unsigned char)in[i + 2]))
      return false;
    out += char(std::stoi(in.substr(i + 1, 2), nullptr, 16));
    i += 2;
  }
  return true;
}

// What is known of a connection: whether any request on it got as far as its headers (one
// that closes without any is logged as malformed: the library refused its first line).
struct connection_state_t {
  int requests = 0;
  std::string remote;
  double opened = 0;
};

std::string address_of(MHD_Connection* c) {
  char host[NI_MAXHOST] = "?";
  if (const MHD_ConnectionInfo* info =
          MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS)) {
    const sockaddr* a = info->client_addr;
    getnameinfo(a, a->sa_family == AF_INET6 ? sizeof(sockaddr_in6) : sizeof(sockaddr_in), host,
                sizeof host, nullptr, 0, NI_NUMERICHOST);
  }
  return host;
}

// One request on a connection, from its request line to the end of its response.
struct exchange_t {
  enum class stage_t { fresh, reading, working, answered, queued } at = stage_t::fresh;
  MHD_Connection* connection = nullptr;
  http_request_t request;
  http_response_t response;
  size_t reserved = 0;  // bytes of the body budget held
  int refuse_status = 0;
  std::string refuse_reason;
  uint64_t dropped = 0;  // body bytes dropped after the refusal
};

}  // namespace

std::string http_request_t::header(const std::string& name) const {
  for (const auto& [n, v] : headers)
    if (n == name) return v;
  return "";
}

bool http_request_t::client_gone() const {
  if (socket < 0) return false;
  pollfd p{socket, POLLRDHUP, 0};
  if (::poll(&p, 1, 0) <= 0) return false;
  return (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) != 0;
}

std::string log_field(const std::string& text, size_t max_bytes) {
  std::string out;
  const size_t n = std::min(text.size(), max_bytes);
  for (size_t i = 0; i < n; i++) {
    const unsigned char c = (unsigned char)text[i];
    if (c <= 0x20 || c >= 0x7f || c == '\\' || c == '"') {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    } else {
      out += char(c);
    }
  }
  if (text.size() > max_bytes) out += "...";
  return out.empty() ? "-" : out;
}

struct http_server_t::impl_t {
  http_server_options_t options;
  handler_t handle;
  logger_t log;
  int listen_fd = -1;
  MHD_Daemon* daemon = nullptr;
  std::atomic<size_t> body_bytes{0};  // held by request bodies, against options.body_budget

  std::mutex mutex;
  std::condition_variable work, stopped;
  bool stopping = false;
  std::deque<exchange_t*> jobs;
  int active = 0;  // jobs a worker is producing
  std::vector<std::thread> workers;

  impl_t(const http_server_options_t& o, handler_t h, logger_t l)
      : options(o), handle(std::move(h)), log(std::move(l)) {}
  ~impl_t() {
    stop_workers();
    if (daemon) MHD_stop_daemon(daemon);
    if (listen_fd >= 0) ::close(listen_fd);
  }

  void stop_workers() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stopping = true;
    }
    work.notify_all();
    for (auto& w : workers)
      if (w.joinable()) w.join();
    workers.clear();
  }

  bool reserve(exchange_t& x, size_t bytes) {
    size_t held = body_bytes.load();
    do {
      if (held + bytes > options.body_budget) return false;
    } while (!body_bytes.compare_exchange_weak(held, held + bytes));
    x.reserved += bytes;
    return true;
  }
  void release(exchange_t& x) {
    body_bytes -= x.reserved;
    x.reserved = 0;
  }

  // Queues x.response on its connection (on the polling thread).
  MHD_Result queue(exchange_t& x) {
    http_response_t& res = x.response;
    // The body moves to the library (freed once sent): no copy, and nothing kept here.
    res.body_bytes = res.body.size();
    auto* body = new std::string(std::move(res.body));
    res.body.clear();
    MHD_Response* r = MHD_create_response_from_buffer_with_free_callback_cls(
        body->size(), body->data(), [](void* p) { delete static_cast<std::string*>(p); }, body);
    if (!r) {
      delete body;
      return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, res.content_type.c_str());
    for (const auto& [name, value] : res.headers)
      MHD_add_response_header(r, name.c_str(), value.c_str());
    if (res.close) MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
    const MHD_Result ok = MHD_queue_response(x.connection, unsigned(res.status), r);
    MHD_destroy_response(r);
    x.at = exchange_t::stage_t::queued;
    release(x);
    x.request.body.clear();
    x.request.body.shrink_to_fit();
    return ok;
  }

  // Answers at once with an error (the handler fills the JSON body) and closes.
  MHD_Result refuse(exchange_t& x, int status, const std::string& why) {
    x.request.malformed = why;
    x.response = http_response_t{};
    x.response.status = status;
    x.response.close = true;
    try {
      handle(x.request, x.response);
    } catch (...) {
    }
    x.response.close = true;
    return queue(x);
  }

  // The first call for a request: its line and headers, checks of its framing and size.
  MHD_Result begin(exchange_t& x, MHD_Connection* c, const char* method, const char* version) {
    http_request_t& q = x.request;
    x.connection = c;
    q.method = method;
    q.version = version;
    q.remote_addr = address_of(c);
    if (const MHD_ConnectionInfo* info =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD))
      q.socket = info->connect_fd;
    // With their lengths: a NUL inside a value stays visible (and is refused below).
    MHD_get_connection_values_n(
        c, MHD_HEADER_KIND,
        [](void* cls, MHD_ValueKind, const char* key, size_t key_size, const char* value,
           size_t value_size) -> MHD_Result {
          static_cast<http_request_t*>(cls)->headers.push_back(
              {lower(std::string(key ? key : "", key ? key_size : 0)),
               std::string(value ? value : "", value ? value_size : 0)});
          return MHD_YES;
        },
        &q);
    if (!options.trusted_proxy.empty() && q.remote_addr == options.trusted_proxy) {
      std::string forwarded = q.header("x-forwarded-for");
      forwarded = forwarded.substr(forwarded.rfind(',') + 1);
      const size_t a = forwarded.find_first_not_of(" \t"), b = forwarded.find_last_not_of(" \t");
      if (a != std::string::npos) q.remote_addr = forwarded.substr(a, b - a + 1);
    }
    x.at = exchange_t::stage_t::reading;
    if (auto* seen = static_cast<connection_state_t*>(
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT)->socket_context))
      seen->requests++;
    // The path: an absolute-form target ("http://host/p") names its path after the authority.
    std::string target = q.target;
    if (const size_t scheme = target.find("://");
        target.rfind('/', 0) != 0 && scheme != std::string::npos) {
      const size_t slash = target.find('/', scheme + 3);
      target = slash == std::string::npos ? "/" : target.substr(slash);
    }
    if (target.empty() || target[0] != '/')
      return refuse(x, 400, "request target must start with '/'");
    for (const char ch : target)
      if ((unsigned char)ch <= 0x20 || ch == 0x7f)
        return refuse(x, 400, "control byte in request target");
    if (!percent_decode(target.substr(0, target.find('?')), q.path))
      return refuse(x, 400, "bad percent escape in request target");
    // Framing the library leaves to the application (RFC 9112 §6.3): one Content-Length of
    // digits, one Transfer-Encoding, not both; else 400 and close, before any body is read.
    int lengths = 0, encodings = 0;
    std::string length;
    for (const auto& [name, value] : q.headers) {
      if (name == "content-length") lengths++, length = value;
      if (name == "transfer-encoding") encodings++;
      for (const char ch : value)
        if (ch == '\r' || ch == '\n' || ch == '\0')
          return refuse(x, 400, "control byte in the value of header " + name.substr(0, 40));
    }
    if (lengths > 1) return refuse(x, 400, "more than one Content-Length");
    if (encodings > 1) return refuse(x, 400, "more than one Transfer-Encoding");
    if (lengths && encodings) return refuse(x, 400, "both Content-Length and Transfer-Encoding");
    if (encodings && lower(q.header("transfer-encoding")) != "chunked")
      return refuse(x, 501, "unsupported transfer encoding");
    if (lengths) {
      if (length.empty() || length.size() > 15 ||
          length.find_first_not_of("0123456789") != std::string::npos)
        return refuse(x, 400, "bad Content-Length '" + length.substr(0, 20) + "'");
      const size_t size = std::stoull(length);
      if (size > options.max_body)
        return refuse(x, 413,
                      "request body larger than " + std::to_string(options.max_body) + " bytes");
      if (!reserve(x, size))
        return refuse(x, 503, "request bodies in progress over the server's budget");
      q.body.reserve(size);
    }
    return MHD_YES;
  }

  // A piece of the body: kept (within the bounds) or, past them, dropped until the end.
  void take_body(exchange_t& x, const char* data, size_t size) {
    if (x.refuse_status) {
      x.dropped += size;
      return;
    }
    std::string& body = x.request.body;
    if (body.size() + size > options.max_body) {
      x.refuse_status = 413;
      x.refuse_reason = "request body larger than " + std::to_string(options.max_body) + " bytes";
    } else if (body.size() + size > x.reserved &&
               !reserve(x, std::max(body.size() + size, 2 * body.capacity()) - x.reserved)) {
      x.refuse_status = 503;
      x.refuse_reason = "request bodies in progress over the server's budget";
    }
    if (x.refuse_status) {
      body.clear();
      body.shrink_to_fit();
      release(x);
      return;
    }
    body.append(data, size);
  }

  MHD_Result on_request(MHD_Connection* c, const char* method, const char* version,
                        const char* upload, size_t* upload_size, void** context) {
    auto* x = static_cast<exchange_t*>(*context);
    if (!x) return MHD_NO;  // the URI callback makes one for every request
    switch (x->at) {
      case exchange_t::stage_t::fresh:
        return begin(*x, c, method, version);
      case exchange_t::stage_t::reading:
        if (*upload_size) {
          take_body(*x, upload, *upload_size);
          // A refused body is read on to its end for the answer to be read, but not forever.
          if (x->dropped > max_dropped) return MHD_NO;
          *upload_size = 0;
          return MHD_YES;
        }
        if (x->refuse_status) return refuse(*x, x->refuse_status, x->refuse_reason);
        if (options.immediate && options.immediate(x->request)) {
          // Cheap routes answer here, never queued behind the workers' answers.
          x->request.start_seconds = now_seconds();
          try {
            handle(x->request, x->response);
          } catch (...) {
            x->response = http_response_t{};
            x->response.status = 500;
            x->response.body = std::string("{\"error\":\"internal error\",\"status\":500}");
          }
          return queue(*x);
        }
        {
          std::lock_guard<std::mutex> lock(mutex);
          if (stopping) return refuse(*x, 503, "the server is stopping");
          x->at = exchange_t::stage_t::working;
          x->request.start_seconds = now_seconds();
          MHD_suspend_connection(c);
          jobs.push_back(x);
        }
        work.notify_one();
        return MHD_YES;
      case exchange_t::stage_t::answered:
        return queue(*x);
      default:
        return MHD_NO;
    }
  }

  void worker() {
    for (;;) {
      exchange_t* x = nullptr;
      {
        std::unique_lock<std::mutex> lock(mutex);
        work.wait(lock, [&] { return stopping || !jobs.empty(); });
        if (jobs.empty()) return;
        x = jobs.front();
        jobs.pop_front();
        active++;
      }
      http_response_t& res = x->response;
      try {
        handle(x->request, res);
      } catch (...) {
        res = http_response_t{};
        res.status = 500;
        res.body = std::string("{\"error\":\"internal error\",\"status\":500}");
      }
      {
        std::lock_guard<std::mutex> lock(mutex);
        if (stopping) res.close = true;
        x->at = exchange_t::stage_t::answered;
        MHD_resume_connection(x->connection);
        active--;
      }
      stopped.notify_all();
    }
  }

  // After the response is sent, or the connection ended without one: log and free.
  void completed(MHD_Connection* c, exchange_t* x, MHD_RequestTerminationCode why) {
    if (!x) return;
    if (x->request.remote_addr.empty()) x->request.remote_addr = address_of(c);
    if (x->at == exchange_t::stage_t::fresh)
      if (auto* seen = static_cast<connection_state_t*>(
              MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT)->socket_context))
        seen->requests++;
    if (x->at != exchange_t::stage_t::queued) {
      // The client left or timed out before a response, or the library refused the request.
      x->response = http_response_t{};
      x->response.status = why == MHD_REQUEST_TERMINATED_TIMEOUT_REACHED ? 408
                           : why == MHD_REQUEST_TERMINATED_CLIENT_ABORT  ? 499
                                                                         : 400;
      x->request.malformed = why == MHD_REQUEST_TERMINATED_TIMEOUT_REACHED
                                 ? "connection idle past the timeout, closed"
                             : why == MHD_REQUEST_TERMINATED_CLIENT_ABORT
                                 ? "the client closed the connection before the response"
                                 : "request refused by the HTTP parser";
      if (x->at == exchange_t::stage_t::fresh && x->request.method.empty())
        x->request.method = "MALFORMED";
    }
    if (x->at != exchange_t::stage_t::fresh || why != MHD_REQUEST_TERMINATED_CLIENT_ABORT ||
        !x->request.target.empty())
      log(x->request, x->response);
    release(*x);
    delete x;
  }

  // A connection opens or closes. One that closes without a request line the library accepted
  // (one it refused, or none sent at all) is logged as malformed.
  void connection_event(MHD_Connection* c, void** context, MHD_ConnectionNotificationCode what) {
    if (what == MHD_CONNECTION_NOTIFY_STARTED) {
      auto* seen = new connection_state_t;
      seen->remote = address_of(c);
      seen->opened = now_seconds();
      *context = seen;
      return;
    }
    auto* seen = static_cast<connection_state_t*>(*context);
    *context = nullptr;
    if (!seen) return;
    if (!seen->requests) {
      http_request_t q;
      q.method = "MALFORMED";
      q.remote_addr = seen->remote;
      q.start_seconds = seen->opened;
      q.malformed = "connection closed without a request the HTTP parser accepted";
      http_response_t res;
      res.status = 400;
      res.body.clear();
      log(q, res);
    }
    delete seen;
  }

  bool run() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (stopping) return true;
    }
    for (int i = 0; i < options.threads; i++) workers.emplace_back([this] { worker(); });
    const unsigned timeout = unsigned(std::max(1.0, std::ceil(options.timeout_s)));
    daemon = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME, 0, nullptr,
        nullptr,
        [](void* cls, MHD_Connection* c, const char*, const char* method, const char* version,
           const char* upload, size_t* upload_size, void** context) {
          return static_cast<impl_t*>(cls)->on_request(c, method, version, upload, upload_size,
                                                       context);
        },
        this, MHD_OPTION_LISTEN_SOCKET, listen_fd, MHD_OPTION_CONNECTION_LIMIT,
        unsigned(options.max_connections), MHD_OPTION_PER_IP_CONNECTION_LIMIT,
        unsigned(options.max_per_client), MHD_OPTION_CONNECTION_TIMEOUT, timeout,
        MHD_OPTION_STRICT_FOR_CLIENT, 1, MHD_OPTION_SIGPIPE_HANDLED_BY_APP, 1,
        MHD_OPTION_URI_LOG_CALLBACK,
        +[](void*, const char* uri, MHD_Connection*) -> void* {
          auto* x = new exchange_t;
          x->request.target = uri ? uri : "";
          x->request.start_seconds = now_seconds();
          return x;
        },
        nullptr, MHD_OPTION_NOTIFY_COMPLETED,
        +[](void* cls, MHD_Connection* c, void** context, MHD_RequestTerminationCode why) {
          static_cast<impl_t*>(cls)->completed(c, static_cast<exchange_t*>(*context), why);
          *context = nullptr;
        },
        this, MHD_OPTION_NOTIFY_CONNECTION,
        +[](void* cls, MHD_Connection* c, void** context, MHD_ConnectionNotificationCode what) {
          static_cast<impl_t*>(cls)->connection_event(c, context, what);
        },
        this, MHD_OPTION_END);
    if (!daemon) {
      stop_workers();
      throw pentago_error_t("cannot start the HTTP server (libmicrohttpd)");
    }
    std::unique_lock<std::mutex> lock(mutex);
    stopped.wait(lock, [&] { return stopping; });
    // Requests not started are answered 503; the responses under way get a short grace (a long
    // midgame solve does not hold the stop).
    for (exchange_t* x : jobs) {
      x->response = http_response_t{};
      x->response.status = 503;
      x->response.close = true;
      x->request.malformed = "the server is stopping";
      try {
        handle(x->request, x->response);
      } catch (...) {
      }
      x->at = exchange_t::stage_t::answered;
      MHD_resume_connection(x->connection);
    }
    jobs.clear();
    const bool finished = stopped.wait_for(lock, std::chrono::duration<double>(stop_grace_s),
                                           [&] { return active == 0; });
    lock.unlock();
    if (!finished) return false;
    // A moment for the last responses to be written, then every connection closes.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    MHD_stop_daemon(daemon);
    daemon = nullptr;
    listen_fd = -1;  // closed by the library
    stop_workers();
    return true;
  }
};

http_server_t::http_server_t(const http_server_options_t& options, handler_t handle, logger_t log)
    : impl_(std::make_unique<impl_t>(options, std::move(handle), std::move(log))) {
  if (options.threads < 1) throw usage_error_t("HTTP threads must be at least 1");
}

http_server_t::~http_server_t() = default;

int http_server_t::bind() {
  const auto& o = impl_->options;
  const std::string where = o.bind + ":" + std::to_string(o.port);
  addrinfo hints{}, *found = nullptr;
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICHOST | AI_NUMERICSERV;
  if (getaddrinfo(o.bind.c_str(), std::to_string(o.port).c_str(), &hints, &found) || !found)
    throw pentago_error_t("cannot listen on " + where + ": not a numeric IPv4 or IPv6 address");
  const int fd = ::socket(found->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int yes = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  const bool ok =
      fd >= 0 && ::bind(fd, found->ai_addr, found->ai_addrlen) == 0 && ::listen(fd, 1024) == 0;
  const int saved = errno;
  freeaddrinfo(found);
  if (!ok) {
    if (fd >= 0) ::close(fd);
    throw pentago_error_t("cannot listen on " + where + ": " + std::strerror(saved));
  }
  impl_->listen_fd = fd;
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  return addr.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port)
                                    : ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
}

bool http_server_t::run() {
  if (impl_->listen_fd < 0) throw pentago_error_t("http_server::run before bind");
  return impl_->run();
}

void http_server_t::stop() {
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->stopping = true;
  }
  impl_->stopped.notify_all();
}

}  // namespace pentago
