// pentago-serve: routes of the JSON API (docs/api.md), the embedded page, limits (midgame
// slots and queue, timeouts, body and batch size), JSON errors and the access log.
#include "pentago/serve/server.h"

#include <httplib.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "pentago/serve/assets.h"
#include "pentago/serve/midgame_gate.h"
#include "pentago/util/error.h"
#include "pentago/util/options.h"

namespace pentago {

const char serve_usage[] =
    "usage: pentago-serve --db DIR|URL [--db DIR|URL...] [options]\n"
    "Serves the value of any position and of its moves as JSON (docs/api.md) and the web\n"
    "explorer at /. Positions with up to 17 stones come from the databases' slice-N.pentago\n"
    "files (a directory or an http(s):// base URL), positions with 18 or more stones from the\n"
    "midgame solver.\n"
    "  --port N            TCP port (default 8080; 0 picks a free one); printed on stdout\n"
    "  --bind ADDR         address to listen on (default 127.0.0.1)\n"
    "  --threads N         HTTP connections served at once (default 32)\n"
    "  --cache SIZE        decompressed database blocks held in memory (default 128M)\n"
    "  --answer-cache N    answers remembered by board (default 4096)\n"
    "  --solver-threads N  threads of one midgame solve (default 0: all cores)\n"
    "  --midgame-slots N   midgame solves at once (default 0: one per core)\n"
    "  --queue N           requests waiting for a midgame slot; more get 503 (default 64)\n"
    "  --timeout SECONDS   socket read/write timeout and longest wait for a slot (default 30)\n"
    "  --max-body SIZE     largest request body (default 1M; larger gets 413)\n"
    "  --max-batch N       positions per POST /api/v1/positions (default 64; more gets 413)\n"
    "  --log FILE          append the access log to FILE (default: stdout)\n"
    "  --help              this text\n"
    "SIGINT or SIGTERM stops the server cleanly (exit 0).\n";

namespace {

using clock_type = std::chrono::steady_clock;
using nlohmann::json;

double parse_seconds_option(const std::string& option, const std::string& value) {
  char* end = nullptr;
  const double seconds = std::strtod(value.c_str(), &end);
  if (value.empty() || *end || !(seconds > 0) || seconds > 86400)
    throw usage_error(option + " must be a number of seconds in (0, 86400], not '" + value + "'");
  return seconds;
}

double ms_since(clock_type::time_point start) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - start).count();
}

// Keeps a reason on one line (the contract of every error body).
std::string one_line(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  std::replace(text.begin(), text.end(), '\r', ' ');
  return text;
}

// An HTTP failure with its status and one-line reason (and Retry-After seconds for 503).
struct http_failure {
  int status;
  std::string reason;
  int retry_after = 0;
};

// The access log: one line per request, flushed, from any thread.
class access_log {
 public:
  explicit access_log(const std::string& path) {
    if (path.empty()) {
      file_ = stdout;
      return;
    }
    file_ = std::fopen(path.c_str(), "a");
    if (!file_) throw error("cannot open log file " + path + " for appending");
    owned_ = true;
  }
  ~access_log() {
    if (owned_) std::fclose(file_);
  }
  void line(const httplib::Request& req, const httplib::Response& res, double ms) {
    char stamp[32];
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
    std::string target = req.path;
    if (target.size() > 200) target = target.substr(0, 200) + "...";
    target = one_line(target);
    std::lock_guard<std::mutex> lock(mutex_);
    std::fprintf(file_, "%s %s %s %s %d %.2fms %zuB\n", stamp, req.remote_addr.c_str(),
                 req.method.c_str(), target.c_str(), res.status, ms, res.body.size());
    std::fflush(file_);
  }

 private:
  FILE* file_ = nullptr;
  bool owned_ = false;
  std::mutex mutex_;
};

// Start of the request being handled by this thread (set before routing, read by the logger,
// which httplib calls on the same thread once the response is written).
thread_local clock_type::time_point request_start;
thread_local bool request_timed = false;

const char* default_reason(int status) {
  switch (status) {
    case 400:
      return "malformed request";
    case 404:
      return "no such route";
    case 405:
      return "method not allowed";
    case 413:
      return "request body too large";
    case 414:
      return "request URI too long";
    case 500:
      return "internal server error";
    case 503:
      return "server busy";
    default:
      return "request failed";
  }
}

}  // namespace

serve_options parse_serve_options(int argc, char** argv) {
  serve_options options;
  for (int i = 1; i < argc; i++) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw usage_error(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--db")
      options.query.databases.push_back(value());
    else if (arg == "--port")
      options.port = int(parse_int_option(arg, value(), 0, 65535));
    else if (arg == "--bind") {
      options.bind = value();
      if (options.bind.empty()) throw usage_error("--bind needs an address");
    } else if (arg == "--threads")
      options.http_threads = int(parse_int_option(arg, value(), 1, 4096));
    else if (arg == "--cache")
      options.query.block_cache_bytes = parse_memory_option(arg, value());
    else if (arg == "--answer-cache")
      options.query.answer_cache_entries = size_t(parse_int_option(arg, value(), 0, 1 << 30));
    else if (arg == "--solver-threads")
      options.query.threads = int(parse_int_option(arg, value(), 0, 1024));
    else if (arg == "--midgame-slots")
      options.midgame_slots = int(parse_int_option(arg, value(), 0, 1024));
    else if (arg == "--queue")
      options.midgame_queue = int(parse_int_option(arg, value(), 0, 1 << 20));
    else if (arg == "--timeout")
      options.request_timeout_s = parse_seconds_option(arg, value());
    else if (arg == "--max-body")
      options.max_body_bytes = size_t(parse_memory_option(arg, value()));
    else if (arg == "--max-batch")
      options.max_batch = size_t(parse_int_option(arg, value(), 1, 1 << 20));
    else if (arg == "--log") {
      options.log_path = value();
      if (options.log_path.empty()) throw usage_error("--log needs a file name");
    } else if (arg.size() > 1 && arg[0] == '-')
      throw usage_error("unknown option " + arg);
    else
      throw usage_error("unexpected argument " + arg + " (databases are given with --db)");
  }
  if (options.query.databases.empty()) throw usage_error("missing --db DIR|URL");
  if (options.max_body_bytes == 0) throw usage_error("--max-body must be positive");
  return options;
}

struct server::impl {
  serve_options options;
  query_engine engine;
  midgame_gate gate;
  access_log log;
  httplib::Server http;
  const clock_type::time_point started = clock_type::now();
  std::atomic<uint64_t> requests{0}, ok_2xx{0}, client_4xx{0}, server_5xx{0};
  std::mutex timing_mutex;
  double midgame_mean_s = 1;  // moving average of slot hold times, for Retry-After

  static int slots_for(const serve_options& options) {
    if (options.midgame_slots > 0) return options.midgame_slots;
    return int(std::max(1u, std::thread::hardware_concurrency()));
  }

  explicit impl(const serve_options& o)
      : options(o), engine(o.query), gate(slots_for(o), o.midgame_queue), log(o.log_path) {
    setup();
  }

  int retry_after_s() {
    const auto counts = gate.snapshot();
    std::lock_guard<std::mutex> lock(timing_mutex);
    const double wait = midgame_mean_s * (counts.waiting + 1) / gate.slots();
    return std::clamp(int(std::ceil(wait)), 1, 3600);
  }

  void note_solve(double seconds) {
    std::lock_guard<std::mutex> lock(timing_mutex);
    midgame_mean_s = 0.8 * midgame_mean_s + 0.2 * seconds;
  }

  // Runs `work` holding a midgame slot when `gated`; a full queue or a long wait is a 503.
  template <class Work>
  auto gated(bool is_gated, Work&& work) -> decltype(work()) {
    if (!is_gated) return work();
    const auto outcome = gate.enter(std::chrono::duration<double>(options.request_timeout_s));
    if (outcome == midgame_gate::outcome::queue_full)
      throw http_failure{
          503, "midgame queue full (" + std::to_string(gate.queue()) + " waiting): retry later",
          retry_after_s()};
    if (outcome == midgame_gate::outcome::timed_out)
      throw http_failure{503, "no midgame slot free within the request timeout: retry later",
                         retry_after_s()};
    gate_slot slot(gate);
    const auto start = clock_type::now();
    auto result = work();
    note_solve(ms_since(start) / 1000);
    return result;
  }

  static position_t parse(const std::string& text) {
    try {
      return parse_position(text);
    } catch (const usage_error& e) {
      throw http_failure{400, std::string("bad board: ") + e.what()};
    }
  }

  std::string answer_text(position_t position, clock_type::time_point start) {
    position_answer answer =
        gated(engine.needs_midgame(position), [&] { return engine.answer(position); });
    answer.elapsed_ms = ms_since(start);
    return answer_json(answer);
  }

  // Maps exceptions of a handler to JSON errors (answers are cacheable, errors are not).
  template <class Handler>
  void guarded(httplib::Response& res, Handler&& handler) {
    try {
      handler();
      res.set_header("Cache-Control", "public, max-age=" + std::to_string(options.max_age_s));
      return;
    } catch (const http_failure& f) {
      fail(res, f.status, f.reason);
      if (f.retry_after) res.set_header("Retry-After", std::to_string(f.retry_after));
    } catch (const usage_error& e) {
      fail(res, 400, std::string("bad board: ") + e.what());
    } catch (const error& e) {
      fail(res, 422, std::string("cannot answer: ") + e.what());
    } catch (const std::exception& e) {
      fail(res, 500, std::string("internal error: ") + e.what());
    }
  }

  static void fail(httplib::Response& res, int status, const std::string& reason) {
    res.status = status;
    res.set_content(json{{"error", one_line(reason)}, {"status", status}}.dump(),
                    "application/json");
    res.set_header("Cache-Control", "no-store");
  }

  void on_position(const httplib::Request& req, httplib::Response& res) {
    const auto start = clock_type::now();
    guarded(res, [&] {
      res.set_content(answer_text(parse(req.matches[1]), start), "application/json");
    });
  }

  void on_line(const httplib::Request& req, httplib::Response& res) {
    const auto start = clock_type::now();
    guarded(res, [&] {
      const position_t position = parse(req.matches[1]);
      // A line runs the midgame solver once it reaches 18 stones: it always holds a slot.
      const auto line = gated(true, [&] { return engine.best_line(position); });
      std::string body = "{\"board\":\"" + position_code(position) + "\",\"line\":[";
      for (size_t i = 0; i < line.size(); i++) body += (i ? "," : "") + answer_json(line[i]);
      char tail[64];
      std::snprintf(tail, sizeof tail, "],\"elapsed_ms\":%.3f}", ms_since(start));
      res.set_content(body + tail, "application/json");
    });
  }

  void on_batch(const httplib::Request& req, httplib::Response& res) {
    const auto start = clock_type::now();
    guarded(res, [&] {
      const json request = json::parse(req.body, nullptr, false);
      if (request.is_discarded()) throw http_failure{400, "body is not valid JSON"};
      const json* list = &request;
      if (request.is_object()) {
        const auto it = request.find("positions");
        if (it == request.end()) throw http_failure{400, "body needs a \"positions\" array"};
        list = &*it;
      }
      if (!list->is_array()) throw http_failure{400, "positions must be an array of board strings"};
      if (list->size() > options.max_batch)
        throw http_failure{413, "batch of " + std::to_string(list->size()) +
                                    " positions is over the limit of " +
                                    std::to_string(options.max_batch)};
      std::vector<position_t> positions;
      for (size_t i = 0; i < list->size(); i++) {
        const json& item = (*list)[i];
        if (!item.is_string())
          throw http_failure{400, "positions[" + std::to_string(i) + "] is not a string"};
        try {
          positions.push_back(parse_position(item.get<std::string>()));
        } catch (const usage_error& e) {
          throw http_failure{400, "positions[" + std::to_string(i) + "]: bad board: " + e.what()};
        }
      }
      std::string body = "{\"results\":[";
      for (size_t i = 0; i < positions.size(); i++)
        body += (i ? "," : "") + answer_text(positions[i], clock_type::now());
      char tail[64];
      std::snprintf(tail, sizeof tail, "],\"elapsed_ms\":%.3f}", ms_since(start));
      res.set_content(body + tail, "application/json");
    });
  }

  json stats_json() const {
    const query_stats q = engine.stats();
    const auto g = gate.snapshot();
    const auto rate = [](uint64_t hits, uint64_t total) {
      return total ? double(hits) / double(total) : 0.0;
    };
    const uint64_t block_lookups = q.block_cache_hits + q.block_cache_misses;
    return json{{"uptime_s", ms_since(started) / 1000},
                {"requests", requests.load()},
                {"responses",
                 {{"2xx", ok_2xx.load()}, {"4xx", client_4xx.load()}, {"5xx", server_5xx.load()}}},
                {"queries", q.queries},
                {"answer_cache_hits", q.answer_cache_hits},
                {"answer_cache_hit_rate", rate(q.answer_cache_hits, q.queries)},
                {"block_cache_hits", q.block_cache_hits},
                {"block_cache_misses", q.block_cache_misses},
                {"block_cache_hit_rate", rate(q.block_cache_hits, block_lookups)},
                {"block_cache_bytes", q.block_cache_bytes},
                {"block_cache_limit_bytes", options.query.block_cache_bytes},
                {"midgame_solves", q.midgame_solves},
                {"solves_in_flight", q.midgame_in_flight},
                {"slots_in_use", g.running},
                {"midgame_slots", gate.slots()},
                {"queue_length", g.waiting},
                {"queue_limit", gate.queue()},
                {"rejected_busy", g.rejected + g.timed_out}};
  }

  void setup() {
    http.new_task_queue = [n = options.http_threads] { return new httplib::ThreadPool(n); };
    const auto timeout = std::chrono::duration<double>(options.request_timeout_s);
    const time_t sec = time_t(timeout.count());
    const time_t usec = time_t((timeout.count() - double(sec)) * 1e6);
    http.set_read_timeout(sec, usec);
    http.set_write_timeout(sec, usec);
    http.set_keep_alive_max_count(1000);
    // Headers and body go out in separate writes: without TCP_NODELAY (inherited by accepted
    // sockets from the listening one) Nagle's algorithm and delayed ACKs add 40 ms to replies.
    http.set_socket_options([](socket_t sock) {
      httplib::default_socket_options(sock);
      const int yes = 1;
      setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
    });
    http.set_payload_max_length(options.max_body_bytes);

    http.set_pre_routing_handler([](const httplib::Request&, httplib::Response& res) {
      request_start = clock_type::now();
      request_timed = true;
      res.set_header("Access-Control-Allow-Origin", "*");
      return httplib::Server::HandlerResponse::Unhandled;
    });
    http.set_logger([this](const httplib::Request& req, const httplib::Response& res) {
      const double ms = request_timed ? ms_since(request_start) : 0.0;
      request_timed = false;
      requests++;
      (res.status < 400 ? ok_2xx : res.status < 500 ? client_4xx : server_5xx)++;
      log.line(req, res, ms);
    });
    http.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
      if (!res.body.empty()) return;
      std::string reason = default_reason(res.status);
      if (res.status == 404) reason += ": " + req.method + " " + req.path;
      fail(res, res.status, reason);
    });
    http.set_exception_handler(
        [](const httplib::Request&, httplib::Response& res, std::exception_ptr e) {
          std::string reason = "internal error";
          try {
            if (e) std::rethrow_exception(e);
          } catch (const std::exception& x) {
            reason += std::string(": ") + x.what();
          } catch (...) {
          }
          fail(res, 500, reason);
        });

    http.Get(R"(/api/v1/position/([^/]+))",
             [this](const auto& req, auto& res) { on_position(req, res); });
    http.Get(R"(/api/v1/position/([^/]+)/line)",
             [this](const auto& req, auto& res) { on_line(req, res); });
    http.Post("/api/v1/positions", [this](const auto& req, auto& res) { on_batch(req, res); });
    http.Get("/api/v1/health", [this](const httplib::Request&, httplib::Response& res) {
      json health{{"status", "ok"},
                  {"uptime_s", ms_since(started) / 1000},
                  {"databases", options.query.databases}};
      res.set_content(health.dump(), "application/json");
      res.set_header("Cache-Control", "no-store");
    });
    http.Get("/api/v1/stats", [this](const httplib::Request&, httplib::Response& res) {
      res.set_content(stats_json().dump(), "application/json");
      res.set_header("Cache-Control", "no-store");
    });
    for (const web_asset& asset : web_assets()) {
      const auto serve_asset = [&asset](const httplib::Request&, httplib::Response& res) {
        res.set_content(reinterpret_cast<const char*>(asset.data), asset.size,
                        content_type_of(asset.path));
        res.set_header("Cache-Control", "no-cache");
      };
      http.Get(asset.path, serve_asset);
      if (asset.path == "/index.html") http.Get("/", serve_asset);
    }
  }
};

const char* content_type_of(const std::string& path) {
  const auto ends = [&](const char* suffix) {
    const std::string s = suffix;
    return path.size() >= s.size() && path.compare(path.size() - s.size(), s.size(), s) == 0;
  };
  if (ends(".html")) return "text/html; charset=utf-8";
  if (ends(".css")) return "text/css; charset=utf-8";
  if (ends(".js")) return "text/javascript; charset=utf-8";
  if (ends(".svg")) return "image/svg+xml";
  if (ends(".json")) return "application/json";
  if (ends(".png")) return "image/png";
  return "application/octet-stream";
}

server::server(const serve_options& options) : impl_(std::make_unique<impl>(options)) {}
server::~server() = default;

int server::bind() {
  auto& http = impl_->http;
  const auto& options = impl_->options;
  const std::string where = options.bind + ":" + std::to_string(options.port);
  if (options.port == 0) {
    const int port = http.bind_to_any_port(options.bind);
    if (port <= 0) throw error("cannot listen on " + where);
    return port;
  }
  if (!http.bind_to_port(options.bind, options.port))
    throw error("cannot listen on " + where + " (address in use or not available)");
  return options.port;
}

bool server::run() { return impl_->http.listen_after_bind(); }

void server::stop() { impl_->http.stop(); }

}  // namespace pentago
