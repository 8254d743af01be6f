// pentago-serve's HTTP/1.1 transport (see http_server.h): the reading thread (poll over the
// listening socket and every connection between responses, request framing, deadlines) and
// the workers (handler, response writing, keep-alive hand-back).
#include "pentago/serve/http_server.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

#include "pentago/util/error.h"

namespace pentago {

namespace {

using clock_type = std::chrono::steady_clock;

// How long stopping waits for the responses under way.
constexpr double stop_grace_s = 2;

double now_seconds() {
  return std::chrono::duration<double>(clock_type::now().time_since_epoch()).count();
}

const char* status_text(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 413:
      return "Content Too Large";
    case 414:
      return "URI Too Long";
    case 422:
      return "Unprocessable Content";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 501:
      return "Not Implemented";
    case 503:
      return "Service Unavailable";
    default:
      return "Status";
  }
}

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower((unsigned char)c));
  return s;
}

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

bool is_token(const std::string& s) {
  if (s.empty()) return false;
  for (const char c : s)
    if (c <= 0x20 || c >= 0x7f || std::strchr("()<>@,;:\\\"/[]?={}", c)) return false;
  return true;
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

void set_nonblocking(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

// Sends every byte before `deadline` (seconds on the steady clock); false if it cannot.
bool send_all(int fd, const std::string& data, double deadline) {
  size_t sent = 0;
  while (sent < data.size()) {
    const ssize_t n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += size_t(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      const double left = deadline - now_seconds();
      if (left <= 0) return false;
      pollfd p{fd, POLLOUT, 0};
      if (::poll(&p, 1, int(std::min(left, 1.0) * 1000) + 1) < 0 && errno != EINTR) return false;
      continue;
    }
    return false;
  }
  return true;
}

// One client connection, owned by the reading thread or by one worker at a time.
struct connection {
  int fd = -1;
  std::string remote;
  std::string in;            // received bytes not yet framed into requests
  double request_start = 0;  // first byte of the request being received (0: none yet)
  double idle_since = 0;
  bool continue_sent = false;
  ~connection() {
    if (fd >= 0) ::close(fd);
  }
};

// The outcome of framing the buffered bytes of a connection.
struct frame_result {
  enum kind_t { incomplete, complete, failed } kind = incomplete;
  http_request request;
  int status = 0;  // for failed
  bool keep_alive = true;
};

}  // namespace

std::string http_request::header(const std::string& name) const {
  for (const auto& [n, v] : headers)
    if (n == name) return v;
  return "";
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

struct http_server::impl {
  http_server_options options;
  handler handle;
  logger log;
  int listen_fd = -1;
  int wake[2] = {-1, -1};
  std::atomic<bool> stopping{false};
  std::atomic<int> active{0};  // workers producing a response

  // Jobs for the workers: a connection with its framed request.
  struct job {
    std::unique_ptr<connection> conn;
    http_request request;
    bool keep_alive = true;
  };
  std::mutex mutex;
  std::condition_variable work;
  std::deque<job> jobs;
  std::vector<std::unique_ptr<connection>> returned;  // keep-alive connections handed back
  std::vector<std::thread> workers;

  impl(const http_server_options& o, handler h, logger l)
      : options(o), handle(std::move(h)), log(std::move(l)) {
    if (::pipe(wake)) throw error("cannot create a pipe: " + std::string(std::strerror(errno)));
    set_nonblocking(wake[0]);
    set_nonblocking(wake[1]);
  }
  ~impl() {
    stop_workers();
    for (const int fd : {listen_fd, wake[0], wake[1]})
      if (fd >= 0) ::close(fd);
  }

  void poke() {
    const char c = 1;
    [[maybe_unused]] const ssize_t n = ::write(wake[1], &c, 1);
  }

  void stop_workers() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stopping = true;
      jobs.clear();  // requests not started: their connections close
    }
    work.notify_all();
    for (auto& w : workers)
      if (w.joinable()) w.join();
    workers.clear();
  }

  // Frames the next request of `c.in` (consuming its bytes when complete).
  frame_result frame(connection& c) {
    frame_result r;
    // Empty lines before a request line are ignored (RFC 9112 §2.2).
    size_t start = 0;
    while (c.in.compare(start, 2, "\r\n") == 0) start += 2;
    if (start) c.in.erase(0, start);
    const auto fail = [&](int status, const std::string& why) {
      r.kind = frame_result::failed;
      r.status = status;
      r.request.malformed = why;
      r.keep_alive = false;
      return r;
    };
    const size_t end = c.in.find("\r\n\r\n");
    if (end == std::string::npos) {
      if (c.in.size() > options.max_header)
        return fail(431,
                    "request header larger than " + std::to_string(options.max_header) + " bytes");
      const size_t line_end = c.in.find("\r\n");
      if ((line_end == std::string::npos ? c.in.size() : line_end) > options.max_target + 32)
        return fail(414, "request URI too long");
      return r;
    }
    if (end > options.max_header)
      return fail(431,
                  "request header larger than " + std::to_string(options.max_header) + " bytes");
    http_request& q = r.request;
    q.remote_addr = c.remote;
    q.start_seconds = c.request_start;
    const size_t line_end = c.in.find("\r\n");
    const std::string line = c.in.substr(0, line_end);
    const size_t s1 = line.find(' '), s2 = s1 == std::string::npos ? s1 : line.find(' ', s1 + 1);
    if (s2 == std::string::npos || line.find(' ', s2 + 1) != std::string::npos)
      return fail(400, "malformed request line '" + line.substr(0, 200) + "'");
    q.method = line.substr(0, s1);
    q.target = line.substr(s1 + 1, s2 - s1 - 1);
    q.version = line.substr(s2 + 1);
    if (!is_token(q.method))
      return fail(400, "malformed request line '" + line.substr(0, 200) + "'");
    if (q.version != "HTTP/1.1" && q.version != "HTTP/1.0")
      return fail(400, "unsupported protocol version '" + q.version.substr(0, 40) + "'");
    if (q.target.size() > options.max_target) return fail(414, "request URI too long");
    if (q.target.empty() || q.target[0] != '/')
      return fail(400, "request target must start with '/'");
    for (const char ch : q.target)
      if ((unsigned char)ch <= 0x20 || ch == 0x7f)
        return fail(400, "control byte in request target");
    const std::string raw_path = q.target.substr(0, q.target.find('?'));
    if (!percent_decode(raw_path, q.path)) return fail(400, "bad percent escape in request target");
    for (size_t at = line_end + 2; at < end;) {
      const size_t next = c.in.find("\r\n", at);
      const std::string h = c.in.substr(at, next - at);
      at = next + 2;
      const size_t colon = h.find(':');
      if (colon == std::string::npos || !is_token(h.substr(0, colon)))
        return fail(400, "malformed header line '" + h.substr(0, 100) + "'");
      q.headers.push_back({lower(h.substr(0, colon)), trim(h.substr(colon + 1))});
    }
    if (q.method != "GET" && q.method != "HEAD" && q.method != "POST")
      return fail(400, "unsupported method " + q.method.substr(0, 40));
    const std::string connection_header = lower(q.header("connection"));
    r.keep_alive =
        q.version == "HTTP/1.1" ? connection_header != "close" : connection_header == "keep-alive";
    // The body.
    const std::string te = lower(q.header("transfer-encoding")), cl = q.header("content-length");
    size_t pos = end + 4;
    const bool expects_continue = lower(q.header("expect")) == "100-continue";
    const auto want_more = [&] {
      if (expects_continue && !c.continue_sent && q.version == "HTTP/1.1") {
        c.continue_sent = true;
        send_all(c.fd, "HTTP/1.1 100 Continue\r\n\r\n", now_seconds() + 1);
      }
      frame_result more;
      return more;
    };
    if (!te.empty()) {
      if (te != "chunked") return fail(501, "unsupported transfer encoding '" + te + "'");
      if (!cl.empty()) return fail(400, "both Content-Length and Transfer-Encoding");
      std::string body;
      for (;;) {
        const size_t eol = c.in.find("\r\n", pos);
        if (eol == std::string::npos) {
          if (c.in.size() - pos > 64) return fail(400, "malformed chunk size line");
          return want_more();
        }
        const std::string size_text = c.in.substr(pos, c.in.find_first_of(";\r", pos) - pos);
        if (size_text.empty() || size_text.size() > 15 ||
            size_text.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
          return fail(400, "malformed chunk size '" + size_text.substr(0, 20) + "'");
        const size_t size = std::stoull(size_text, nullptr, 16);
        if (body.size() + size > options.max_body)
          return fail(413,
                      "request body larger than " + std::to_string(options.max_body) + " bytes");
        pos = eol + 2;
        if (size == 0) {
          // Trailers, up to an empty line.
          for (;;) {
            const size_t t = c.in.find("\r\n", pos);
            if (t == std::string::npos) {
              if (c.in.size() - pos > options.max_header) return fail(431, "trailers too large");
              return want_more();
            }
            const bool last = t == pos;
            pos = t + 2;
            if (last) break;
          }
          break;
        }
        if (c.in.size() < pos + size + 2) return want_more();
        if (c.in.compare(pos + size, 2, "\r\n")) return fail(400, "chunk not followed by CRLF");
        body.append(c.in, pos, size);
        pos += size + 2;
      }
      q.body = std::move(body);
    } else if (!cl.empty()) {
      if (cl.size() > 15 || cl.find_first_not_of("0123456789") != std::string::npos)
        return fail(400, "bad Content-Length '" + cl.substr(0, 20) + "'");
      const size_t size = std::stoull(cl);
      if (size > options.max_body)
        return fail(413, "request body larger than " + std::to_string(options.max_body) + " bytes");
      if (c.in.size() < pos + size) return want_more();
      q.body = c.in.substr(pos, size);
      pos += size;
    }
    c.in.erase(0, pos);
    c.continue_sent = false;
    r.kind = frame_result::complete;
    return r;
  }

  std::string serialize(const http_request& q, const http_response& res, bool keep_alive) const {
    std::string out = "HTTP/1.1 " + std::to_string(res.status) + " " + status_text(res.status) +
                      "\r\nContent-Type: " + res.content_type +
                      "\r\nContent-Length: " + std::to_string(res.body.size()) +
                      "\r\nConnection: " + (keep_alive ? "keep-alive" : "close") + "\r\n";
    for (const auto& [name, value] : res.headers) out += name + ": " + value + "\r\n";
    out += "\r\n";
    if (q.method != "HEAD") out += res.body;
    return out;
  }

  // Answers a request that could not be framed, from the reading thread, and closes.
  void refuse(connection& c, frame_result& r) {
    http_response res;
    res.status = r.status;
    res.close = true;
    if (r.request.remote_addr.empty()) r.request.remote_addr = c.remote;
    if (r.request.start_seconds == 0) r.request.start_seconds = c.request_start;
    try {
      handle(r.request, res);
    } catch (...) {
    }
    send_all(c.fd, serialize(r.request, res, false), now_seconds() + 1);
    ::shutdown(c.fd, SHUT_WR);
    log(r.request, res);
  }

  void worker() {
    for (;;) {
      job j;
      {
        std::unique_lock<std::mutex> lock(mutex);
        work.wait(lock, [&] { return stopping || !jobs.empty(); });
        if (stopping && jobs.empty()) return;
        j = std::move(jobs.front());
        jobs.pop_front();
        active++;
      }
      struct done_t {
        std::atomic<int>& active;
        ~done_t() { active--; }
      } done{active};
      http_response res;
      try {
        handle(j.request, res);
      } catch (...) {
        res = http_response{};
        res.status = 500;
        res.body = std::string("{\"error\":\"internal error\",\"status\":500}");
      }
      const bool keep = j.keep_alive && !res.close && !stopping;
      res.close = !keep;
      const bool sent =
          send_all(j.conn->fd, serialize(j.request, res, keep), now_seconds() + options.timeout_s);
      log(j.request, res);
      if (!keep || !sent) continue;  // the connection closes
      {
        std::lock_guard<std::mutex> lock(mutex);
        j.conn->idle_since = now_seconds();
        j.conn->request_start = 0;
        returned.push_back(std::move(j.conn));
      }
      poke();
    }
  }

  // Frames a connection's buffered requests: a complete one goes to the workers (the
  // connection with it), a malformed one is refused. Returns the connection if it stays here.
  std::unique_ptr<connection> advance(std::unique_ptr<connection> c) {
    if (c->in.empty()) return c;
    if (c->request_start == 0) c->request_start = now_seconds();
    frame_result r = frame(*c);
    if (r.kind == frame_result::incomplete) return c;
    if (r.kind == frame_result::failed) {
      refuse(*c, r);
      return nullptr;
    }
    {
      std::lock_guard<std::mutex> lock(mutex);
      jobs.push_back(job{std::move(c), std::move(r.request), r.keep_alive});
    }
    work.notify_one();
    return nullptr;
  }

  void accept_all(std::map<int, std::unique_ptr<connection>>& open) {
    for (;;) {
      sockaddr_storage addr{};
      socklen_t len = sizeof addr;
      const int fd = ::accept(listen_fd, reinterpret_cast<sockaddr*>(&addr), &len);
      if (fd < 0) return;
      set_nonblocking(fd);
      const int yes = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
      auto c = std::make_unique<connection>();
      c->fd = fd;
      char host[NI_MAXHOST] = "?";
      getnameinfo(reinterpret_cast<sockaddr*>(&addr), len, host, sizeof host, nullptr, 0,
                  NI_NUMERICHOST);
      c->remote = host;
      c->idle_since = now_seconds();
      open[fd] = std::move(c);
    }
  }

  bool run() {
    for (int i = 0; i < options.threads; i++) workers.emplace_back([this] { worker(); });
    std::map<int, std::unique_ptr<connection>> open;  // connections this thread reads
    size_t busy = 0;                                  // connections with the workers (approx.)
    std::vector<pollfd> fds;
    while (!stopping) {
      {
        std::vector<std::unique_ptr<connection>> back;
        {
          std::lock_guard<std::mutex> lock(mutex);
          back.swap(returned);
          busy = jobs.size();
        }
        for (auto& c : back) {
          const int fd = c->fd;
          if (auto kept = advance(std::move(c))) open[fd] = std::move(kept);
        }
      }
      fds.clear();
      fds.push_back({wake[0], POLLIN, 0});
      const bool accepting = open.size() + busy < options.max_connections;
      fds.push_back({accepting ? listen_fd : -1, POLLIN, 0});
      for (const auto& [fd, c] : open) fds.push_back({fd, POLLIN, 0});
      // Sleep until the nearest deadline (a request's whole time, or an idle connection's).
      const double now = now_seconds();
      double next = now + 1;
      for (const auto& [fd, c] : open)
        next = std::min(next,
                        (c->request_start ? c->request_start : c->idle_since) + options.timeout_s);
      const int wait_ms = std::max(0, int((next - now) * 1000) + 1);
      if (::poll(fds.data(), fds.size(), wait_ms) < 0 && errno != EINTR)
        throw error("poll failed: " + std::string(std::strerror(errno)));
      if (fds[0].revents) {
        char drain[256];
        while (::read(wake[0], drain, sizeof drain) > 0) {
        }
      }
      if (fds[1].revents) accept_all(open);
      for (size_t i = 2; i < fds.size(); i++) {
        if (!fds[i].revents) continue;
        const auto it = open.find(fds[i].fd);
        if (it == open.end()) continue;
        connection& c = *it->second;
        bool closed = false;
        char buffer[65536];
        for (;;) {
          const ssize_t n = ::recv(c.fd, buffer, sizeof buffer, 0);
          if (n > 0) {
            if (c.in.empty() && c.request_start == 0) c.request_start = now_seconds();
            c.in.append(buffer, size_t(n));
            // Bound what one connection buffers: a request, its body and some pipelining.
            if (c.in.size() > options.max_header + options.max_body + 65536) break;
            continue;
          }
          if (n < 0 && errno == EINTR) continue;
          closed = n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK);
          break;
        }
        if (closed && c.in.empty()) {
          open.erase(it);
          continue;
        }
        auto conn = std::move(it->second);
        open.erase(it);
        auto kept = advance(std::move(conn));
        // Bytes that frame no request within the buffer bound: not a client of this server.
        const bool overfull = kept && kept->in.size() > options.max_header + options.max_body;
        if (kept && !closed && !overfull) open[kept->fd] = std::move(kept);
      }
      // Deadlines: a request not whole in time gets 408; an idle connection closes.
      const double later = now_seconds();
      for (auto it = open.begin(); it != open.end();) {
        connection& c = *it->second;
        if (c.request_start && later > c.request_start + options.timeout_s) {
          frame_result r;
          r.status = 408;
          r.request.malformed = "request not received whole within " +
                                std::to_string(int(std::ceil(options.timeout_s))) + " s";
          refuse(c, r);
          it = open.erase(it);
        } else if (!c.request_start && later > c.idle_since + options.timeout_s) {
          it = open.erase(it);
        } else {
          ++it;
        }
      }
    }
    open.clear();
    {
      std::lock_guard<std::mutex> lock(mutex);
      jobs.clear();  // requests not started: their connections close
      returned.clear();
    }
    work.notify_all();
    // Responses under way get a short grace; a long midgame solve does not hold the stop.
    const double until = now_seconds() + stop_grace_s;
    while (active > 0 && now_seconds() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (active > 0) return false;
    stop_workers();
    return true;
  }
};

http_server::http_server(const http_server_options& options, handler handle, logger log)
    : impl_(std::make_unique<impl>(options, std::move(handle), std::move(log))) {
  if (options.threads < 1) throw usage_error("HTTP threads must be at least 1");
}

http_server::~http_server() = default;

int http_server::bind() {
  const auto& o = impl_->options;
  const std::string where = o.bind + ":" + std::to_string(o.port);
  addrinfo hints{}, *found = nullptr;
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICHOST | AI_NUMERICSERV;
  if (getaddrinfo(o.bind.c_str(), std::to_string(o.port).c_str(), &hints, &found) || !found)
    throw error("cannot listen on " + where + ": not a numeric IPv4 or IPv6 address");
  const int fd = ::socket(found->ai_family, SOCK_STREAM, 0);
  const int yes = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  const bool ok =
      fd >= 0 && ::bind(fd, found->ai_addr, found->ai_addrlen) == 0 && ::listen(fd, 1024) == 0;
  const int saved = errno;
  freeaddrinfo(found);
  if (!ok) {
    if (fd >= 0) ::close(fd);
    throw error("cannot listen on " + where + ": " + std::strerror(saved));
  }
  set_nonblocking(fd);
  impl_->listen_fd = fd;
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  return addr.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port)
                                    : ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
}

bool http_server::run() {
  if (impl_->listen_fd < 0) throw error("http_server::run before bind");
  return impl_->run();
}

void http_server::stop() {
  impl_->stopping = true;
  impl_->work.notify_all();
  impl_->poke();
}

}  // namespace pentago
