// pentago-serve: routes of the JSON API (docs/api.md), the embedded page, limits (midgame
// slots and queue, batch size), JSON errors and the access log, over the HTTP transport of
// http_server.h.
#include "pentago/serve/server.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "pentago/mid/midgame.h"
#include "pentago/serve/assets.h"
#include "pentago/serve/http_server.h"
#include "pentago/serve/midgame_gate.h"
#include "pentago/util/error.h"
#include "pentago/util/options.h"

namespace pentago {

const char serve_usage[] =
    "usage: pentago-serve --db DIR|URL [--db DIR|URL...] [options]\n"
    "Serves the value of any position and of its moves as JSON (docs/api.md) and the web\n"
    "explorer at /. Positions with up to 17 stones come from the databases' slice-N.pentago\n"
    "files (a directory or an http(s):// base URL), positions with 15 or more stones from the\n"
    "midgame solver.\n"
    "  --port N            TCP port (default 8080; 0 picks a free one); printed on stdout\n"
    "  --bind ADDR         address to listen on (default 127.0.0.1)\n"
    "  --threads N         requests answered at once (default 32); idle and slow clients hold\n"
    "                      none of them\n"
    "  --cache SIZE        decompressed database blocks held in memory (default 128M)\n"
    "  --answer-cache N    answers remembered by board (default 4096)\n"
    "  --solver-threads N  threads of one midgame solve (default 0: all cores)\n"
    "  --midgame-slots N   midgame solves at once (default 0: one per core)\n"
    "  --midgame-memory SIZE  largest workspace of one midgame solve (default: 3/4 of the\n"
    "                      memory shared by the slots; 15 stones need 11.2G, 17 need 1.4G)\n"
    "  --queue N           requests waiting for a midgame slot; more get 503 (default 64; at\n"
    "                      most threads-1-slots, so that other requests always find a thread)\n"
    "  --timeout SECONDS   longest time to receive a request (else 408), to send a response,\n"
    "                      to wait for a midgame slot, and of one remote database read\n"
    "                      (default 30)\n"
    "  --max-body SIZE     largest request body (default 1M; larger gets 413)\n"
    "  --max-batch N       positions per POST /api/v1/positions (default 64; more gets 413)\n"
    "  --log FILE          append the access log to FILE (default: stdout)\n"
    "  --help              this text\n"
    "SIGINT or SIGTERM stops the server cleanly (exit 0).\n";

namespace {

using clock_type = std::chrono::steady_clock;
using nlohmann::json;

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
  // Every field is escaped (log_field): a line never holds a raw control byte or a space
  // inside a field. A request that could not be read is logged as MALFORMED with its reason.
  void line(const http_request& req, const http_response& res, double ms) {
    char stamp[32];
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
    const bool malformed = !req.malformed.empty();
    const std::string method = malformed ? "MALFORMED" : log_field(req.method, 16);
    const std::string target = log_field(malformed ? req.malformed : req.path);
    std::lock_guard<std::mutex> lock(mutex_);
    std::fprintf(file_, "%s %s %s %s %d %.2fms %zuB\n", stamp, log_field(req.remote_addr).c_str(),
                 method.c_str(), target.c_str(), res.status, ms, res.body.size());
    std::fflush(file_);
  }

 private:
  FILE* file_ = nullptr;
  bool owned_ = false;
  std::mutex mutex_;
};

const char* default_reason(int status) {
  switch (status) {
    case 400:
      return "malformed request";
    case 404:
      return "no such route";
    case 408:
      return "request not received in time";
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
  argument_cursor args(argc, argv);
  while (args.next()) {
    const std::string& arg = args.arg();
    if (arg == "--db")
      options.query.databases.push_back(args.value());
    else if (arg == "--port")
      options.port = int(args.int_value(0, 65535));
    else if (arg == "--bind") {
      options.bind = args.value();
      if (options.bind.empty()) throw usage_error("--bind needs an address");
    } else if (arg == "--threads")
      options.http_threads = int(args.int_value(1, 4096));
    else if (arg == "--cache")
      options.query.block_cache_bytes = args.memory_value();
    else if (arg == "--answer-cache")
      options.query.answer_cache_entries = size_t(args.int_value(0, 1 << 30));
    else if (arg == "--solver-threads")
      options.query.threads = int(args.int_value(0, 1024));
    else if (arg == "--midgame-slots")
      options.midgame_slots = int(args.int_value(0, 1024));
    else if (arg == "--midgame-memory")
      options.query.midgame_memory = args.memory_value();
    else if (arg == "--queue")
      options.midgame_queue = int(args.int_value(0, 1 << 20));
    else if (arg == "--timeout")
      options.request_timeout_s = parse_timeout_option(arg, args.value());
    else if (arg == "--max-body")
      options.max_body_bytes = size_t(args.memory_value());
    else if (arg == "--max-batch")
      options.max_batch = size_t(args.int_value(1, 1 << 20));
    else if (arg == "--log") {
      options.log_path = args.value();
      if (options.log_path.empty()) throw usage_error("--log needs a file name");
    } else if (args.is_option())
      args.unknown();
    else
      throw usage_error("unexpected argument " + arg + " (databases are given with --db)");
  }
  if (options.query.databases.empty()) throw usage_error("missing --db DIR|URL");
  if (options.max_body_bytes == 0) throw usage_error("--max-body must be positive");
  // A remote database read is bounded by the same timeout as the request that needs it.
  options.query.fetch_timeout_seconds = options.request_timeout_s;
  return options;
}

struct server::impl {
  serve_options options;
  query_engine engine;
  midgame_gate gate;
  access_log log;
  std::unique_ptr<http_server> http;
  const clock_type::time_point started = clock_type::now();
  std::atomic<uint64_t> requests{0}, ok_2xx{0}, client_4xx{0}, server_5xx{0};
  std::mutex timing_mutex;
  double midgame_mean_s = 1;  // moving average of slot hold times, for Retry-After

  // Solves running and waiting hold HTTP threads: together they leave one free (when there
  // are two or more), so that health, stats and database answers never wait behind solves.
  static int slots_for(const serve_options& options) {
    int slots = options.midgame_slots > 0 ? options.midgame_slots
                                          : int(std::max(1u, std::thread::hardware_concurrency()));
    if (options.http_threads > 1) slots = std::min(slots, options.http_threads - 1);
    return std::max(1, slots);
  }
  // Concurrent solves share the machine's memory: by default each slot's workspace bound is
  // its share of the solver's default bound, so that slots of 15-stone solves cannot together
  // exhaust memory (a solve over its bound is refused with 422 naming its need).
  static serve_options with_workspace_share(serve_options o) {
    if (!o.query.midgame_memory)
      o.query.midgame_memory = midgame_default_workspace_limit() / uint64_t(slots_for(o));
    return o;
  }
  static int queue_for(const serve_options& options) {
    return std::clamp(options.http_threads - 1 - slots_for(options), 0, options.midgame_queue);
  }

  explicit impl(const serve_options& o)
      : options(with_workspace_share(o)),
        engine(options.query),
        gate(slots_for(o), queue_for(o)),
        log(o.log_path) {
    http_server_options h;
    h.bind = o.bind;
    h.port = o.port;
    h.threads = o.http_threads;
    h.timeout_s = o.request_timeout_s;
    h.max_body = o.max_body_bytes;
    http = std::make_unique<http_server>(
        h, [this](const http_request& req, http_response& res) { route(req, res); },
        [this](const http_request& req, const http_response& res) { logged(req, res); });
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
    if (outcome == midgame_gate::outcome::closed)
      throw http_failure{503, "the server is stopping", 1};
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
  void guarded(http_response& res, Handler&& handler) {
    try {
      handler();
      res.headers.push_back(
          {"Cache-Control", "public, max-age=" + std::to_string(options.max_age_s)});
      return;
    } catch (const http_failure& f) {
      fail(res, f.status, f.reason);
      if (f.retry_after) res.headers.push_back({"Retry-After", std::to_string(f.retry_after)});
    } catch (const usage_error& e) {
      fail(res, 400, std::string("bad board: ") + e.what());
    } catch (const error& e) {
      fail(res, 422, std::string("cannot answer: ") + e.what());
    } catch (const std::exception& e) {
      fail(res, 500, std::string("internal error: ") + e.what());
    }
  }

  static void fail(http_response& res, int status, const std::string& reason) {
    res.status = status;
    res.content_type = "application/json";
    res.body = json{{"error", one_line(reason)}, {"status", status}}.dump();
    res.headers.push_back({"Cache-Control", "no-store"});
  }

  static void json_reply(http_response& res, std::string body) {
    res.body = std::move(body);
    res.content_type = "application/json";
  }

  void on_position(const std::string& code, http_response& res) {
    const auto start = clock_type::now();
    guarded(res, [&] { json_reply(res, answer_text(parse(code), start)); });
  }

  void on_line(const std::string& code, http_response& res) {
    const auto start = clock_type::now();
    guarded(res, [&] {
      const position_t position = parse(code);
      // A line runs the midgame solver once it reaches 18 stones: it always holds a slot.
      const auto line = gated(true, [&] { return engine.best_line(position); });
      std::string body = "{\"board\":\"" + position_code(position) + "\",\"line\":[";
      for (size_t i = 0; i < line.size(); i++) body += (i ? "," : "") + answer_json(line[i]);
      char tail[64];
      std::snprintf(tail, sizeof tail, "],\"elapsed_ms\":%.3f}", ms_since(start));
      json_reply(res, body + tail);
    });
  }

  void on_batch(const http_request& req, http_response& res) {
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
      json_reply(res, body + tail);
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

  void logged(const http_request& req, const http_response& res) {
    const double ms =
        req.start_seconds > 0
            ? 1000 * (std::chrono::duration<double>(clock_type::now().time_since_epoch()).count() -
                      req.start_seconds)
            : 0.0;
    requests++;
    (res.status < 400 ? ok_2xx : res.status < 500 ? client_4xx : server_5xx)++;
    log.line(req, res, ms);
  }

  // Routes a request (on a worker; for a malformed request, fills its error body).
  void route(const http_request& req, http_response& res) {
    if (!req.malformed.empty()) {
      fail(res, res.status, std::string(default_reason(res.status)) + ": " + req.malformed);
      return;
    }
    res.headers.push_back({"Access-Control-Allow-Origin", "*"});
    const std::string& path = req.path;
    const bool get = req.method == "GET" || req.method == "HEAD";
    const auto method_not_allowed = [&](const char* allowed) {
      fail(res, 405, std::string(default_reason(405)) + ": " + req.method + " " + path);
      res.headers.push_back({"Allow", allowed});
    };
    static const std::string position_prefix = "/api/v1/position/";
    if (path.rfind(position_prefix, 0) == 0) {
      std::string code = path.substr(position_prefix.size());
      const bool line = code.size() > 5 && code.compare(code.size() - 5, 5, "/line") == 0;
      if (line) code.resize(code.size() - 5);
      if (!code.empty() && code.find('/') == std::string::npos) {
        if (!get) return method_not_allowed("GET, HEAD");
        return line ? on_line(code, res) : on_position(code, res);
      }
    } else if (path == "/api/v1/positions") {
      if (req.method != "POST") return method_not_allowed("POST");
      return on_batch(req, res);
    } else if (path == "/api/v1/health" || path == "/api/v1/stats") {
      if (!get) return method_not_allowed("GET, HEAD");
      json_reply(res, path == "/api/v1/stats" ? stats_json().dump()
                                              : json{{"status", "ok"},
                                                     {"uptime_s", ms_since(started) / 1000},
                                                     {"databases", options.query.databases}}
                                                    .dump());
      res.headers.push_back({"Cache-Control", "no-store"});
      return;
    } else {
      const std::string wanted = path == "/" ? "/index.html" : path;
      for (const web_asset& asset : web_assets())
        if (asset.path == wanted) {
          if (!get) return method_not_allowed("GET, HEAD");
          res.body.assign(reinterpret_cast<const char*>(asset.data), asset.size);
          res.content_type = content_type_of(asset.path);
          res.headers.push_back({"Cache-Control", "no-cache"});
          return;
        }
    }
    fail(res, 404, std::string(default_reason(404)) + ": " + req.method + " " + path);
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

int server::bind() { return impl_->http->bind(); }

bool server::run() { return impl_->http->run(); }

void server::stop() {
  impl_->gate.close();
  impl_->http->stop();
}

}  // namespace pentago
