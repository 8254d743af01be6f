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
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

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
    "  --threads N         requests answered at once (default 32); idle, slow and\n"
    "                      never-reading clients hold none of them\n"
    "  --max-connections N connections open at once (default 1024; more are closed at once)\n"
    "  --max-per-client N  connections open at once from one client address (default 64)\n"
    "  --cache SIZE        decompressed database blocks held in memory (default 128M)\n"
    "  --answer-cache N    answers remembered by board (default 4096)\n"
    "  --solver-threads N  threads of one midgame solve (default 0: all cores)\n"
    "  --midgame-slots N   midgame solves at once (default 0: one per core)\n"
    "  --midgame-per-client N  midgame solves one client address may run or queue at once\n"
    "                      (default 2; more get 429 with Retry-After)\n"
    "  --trusted-proxy ADDR  requests from this address (a reverse proxy such as nginx) are\n"
    "                      counted for the client the last X-Forwarded-For entry names\n"
    "  --midgame-memory SIZE  largest workspace of one midgame solve (default: 3/4 of the\n"
    "                      memory shared by the slots; 15 stones need 11.2G, 17 need 1.4G)\n"
    "  --gpu               midgame solves on the GPU (one at a time) when this build has CUDA\n"
    "                      and a device is present; otherwise one line on stderr at startup\n"
    "                      says why and the CPU solver answers\n"
    "  --queue N           requests waiting for a midgame slot; more get 503 (default 64; at\n"
    "                      most threads-1-slots, so that other requests always find a thread)\n"
    "  --timeout SECONDS   longest a connection may stay idle (nothing received or sent; it\n"
    "                      is then closed), to wait for a midgame slot, and of one remote\n"
    "                      database read (default 30)\n"
    "  --max-body SIZE     largest request body (default 1M; larger gets 413); the bodies held\n"
    "                      at once take at most 64M, or one --max-body if larger (past it: 503)\n"
    "  --max-batch N       positions per POST /api/v1/positions (default 64; more gets 413)\n"
    "  --log FILE          append the access log to FILE (default: stdout)\n"
    "  --help              this text\n"
    "A client that disconnects stops its midgame solves. SIGINT or SIGTERM stops the server\n"
    "cleanly (exit 0).\n";

namespace {

using clock_type_t = std::chrono::steady_clock;
using nlohmann::json;
using nlohmann::ordered_json;

double ms_since(clock_type_t::time_point start) {
  return std::chrono::duration<double, std::milli>(clock_type_t::now() - start).count();
}

// Keeps a reason on one line (the contract of every error body).
std::string one_line(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  std::replace(text.begin(), text.end(), '\r', ' ');
  return text;
}

// An HTTP failure with its status and one-line reason (and Retry-After seconds for 429, 503).
struct http_failure_t {
  int status;
  std::string reason;
  int retry_after = 0;
};

// The access log: one line per request, flushed, from any thread.
class access_log_t {
 public:
  explicit access_log_t(const std::string& path) {
    if (path.empty()) {
      file_ = stdout;
      return;
    }
    file_ = std::fopen(path.c_str(), "a");
    if (!file_) throw pentago_error_t("cannot open log file " + path + " for appending");
    owned_ = true;
  }
  ~access_log_t() {
    if (owned_) std::fclose(file_);
  }
  // Every field is escaped (log_field): a line never holds a raw control byte or a space
  // inside a field. A request that could not be read is logged as MALFORMED with its reason.
  void line(const http_request_t& req, const http_response_t& res, double ms) {
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
                 method.c_str(), target.c_str(), res.status, ms,
                 std::max(res.body.size(), res.body_bytes));
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
    case 429:
      return "too many midgame solves from this client";
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

// How many midgame solves each client address runs or waits for; a client past its limit is
// refused (429) so that one client cannot take every slot.
class client_limit_t {
 public:
  explicit client_limit_t(int limit) : limit_(limit) {}
  bool take(const std::string& client) {
    std::lock_guard<std::mutex> lock(mutex_);
    int& n = held_[client];
    if (n >= limit_) return false;
    n++;
    return true;
  }
  void give(const std::string& client) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (--held_[client] <= 0) held_.erase(client);
  }
  int limit() const { return limit_; }

 private:
  const int limit_;
  std::mutex mutex_;
  std::map<std::string, int> held_;
};

// A strong entity tag for an answer's content: FNV-1a over its JSON with the request's own
// elapsed_ms left out (the one field that differs between two answers of a position).
std::string entity_tag(const std::string& content) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (const unsigned char c : content) h = (h ^ c) * 0x100000001b3ull;
  char text[24];
  std::snprintf(text, sizeof text, "\"%016llx\"", (unsigned long long)h);
  return text;
}

// Whether an If-None-Match header names `tag` (or is "*"); weak tags compare by their opaque
// part, as RFC 9110 asks for this header.
bool none_match(const std::string& header, const std::string& tag) {
  size_t at = 0;
  while (at < header.size()) {
    size_t end = header.find(',', at);
    if (end == std::string::npos) end = header.size();
    std::string item = header.substr(at, end - at);
    const size_t a = item.find_first_not_of(" \t"), b = item.find_last_not_of(" \t");
    item = a == std::string::npos ? "" : item.substr(a, b - a + 1);
    if (item.rfind("W/", 0) == 0) item = item.substr(2);
    if (item == "*" || item == tag) return true;
    at = end + 1;
  }
  return false;
}

// The path's segments ("/api/v1/position/0" -> api, v1, position, 0).
std::vector<std::string> segments(const std::string& path) {
  std::vector<std::string> out;
  size_t at = 1;
  for (;;) {
    const size_t slash = path.find('/', at);
    out.push_back(path.substr(at, slash == std::string::npos ? std::string::npos : slash - at));
    if (slash == std::string::npos) return out;
    at = slash + 1;
  }
}

}  // namespace

serve_options_t parse_serve_options(int argc, char** argv) {
  serve_options_t options;
  argument_cursor_t args(argc, argv);
  while (args.next()) {
    const std::string& arg = args.arg();
    if (arg == "--db")
      options.query.databases.push_back(args.value());
    else if (arg == "--port")
      options.port = int(args.int_value(0, 65535));
    else if (arg == "--bind") {
      options.bind = args.value();
      if (options.bind.empty()) throw usage_error_t("--bind needs an address");
    } else if (arg == "--threads")
      options.http_threads = int(args.int_value(1, 4096));
    else if (arg == "--cache")
      options.query.block_cache_bytes = args.memory_value();
    else if (arg == "--answer-cache")
      options.query.answer_cache_entries = size_t(args.int_value(0, 1 << 30));
    else if (arg == "--solver-threads")
      options.query.threads = int(args.int_value(0, 1024));
    else if (arg == "--max-connections")
      options.max_connections = int(args.int_value(1, 1 << 20));
    else if (arg == "--max-per-client")
      options.max_per_client = int(args.int_value(1, 1 << 20));
    else if (arg == "--trusted-proxy") {
      options.trusted_proxy = args.value();
      if (options.trusted_proxy.empty()) throw usage_error_t("--trusted-proxy needs an address");
    } else if (arg == "--midgame-per-client")
      options.midgame_per_client = int(args.int_value(1, 1 << 20));
    else if (arg == "--midgame-slots")
      options.midgame_slots = int(args.int_value(0, 1024));
    else if (arg == "--midgame-memory")
      options.query.midgame_memory = args.memory_value();
    else if (arg == "--gpu")
      options.query.gpu = true;
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
      if (options.log_path.empty()) throw usage_error_t("--log needs a file name");
    } else if (args.is_option())
      args.unknown();
    else
      throw usage_error_t("unexpected argument " + arg + " (databases are given with --db)");
  }
  if (options.query.databases.empty()) throw usage_error_t("missing --db DIR|URL");
  if (options.max_body_bytes == 0) throw usage_error_t("--max-body must be positive");
  // A remote database read is bounded by the same timeout as the request that needs it.
  options.query.fetch_timeout_seconds = options.request_timeout_s;
  return options;
}

struct server_t::impl_t {
  // A route: its path pattern (segments; "{board}" takes any non-empty segment), the methods
  // it answers (HEAD goes with GET), and its handler.
  using route_handler_t = void (impl_t::*)(const http_request_t&, const std::string& board,
                                           http_response_t&);
  struct route_entry_t {
    std::vector<std::string> pattern;
    const char* allow;  // "GET, HEAD" or "POST"
    route_handler_t run;
  };
  static const std::vector<route_entry_t>& routes() {
    static const std::vector<route_entry_t> table = {
        {{"api", "v1", "position", "{board}"}, "GET, HEAD", &impl_t::on_position},
        {{"api", "v1", "position", "{board}", "line"}, "GET, HEAD", &impl_t::on_line},
        {{"api", "v1", "positions"}, "POST", &impl_t::on_batch},
        {{"api", "v1", "health"}, "GET, HEAD", &impl_t::on_health},
        {{"api", "v1", "stats"}, "GET, HEAD", &impl_t::on_stats},
    };
    return table;
  }

  serve_options_t options;
  query_engine_t engine;
  midgame_gate_t gate;
  client_limit_t per_client;
  access_log_t log;
  std::unique_ptr<http_server_t> http;
  const clock_type_t::time_point started = clock_type_t::now();
  std::atomic<uint64_t> requests{0}, ok_2xx{0}, client_4xx{0}, server_5xx{0};
  std::atomic<uint64_t> not_modified{0}, cancelled_solves{0}, rejected_client{0};
  std::mutex timing_mutex;
  double midgame_mean_s = 1;  // moving average of slot hold times, for Retry-After

  // Solves running and waiting hold HTTP threads: together they leave one free (when there
  // are two or more), so that health, stats and database answers never wait behind solves.
  static int slots_for(const serve_options_t& options) {
    int slots = options.midgame_slots > 0 ? options.midgame_slots
                                          : int(std::max(1u, std::thread::hardware_concurrency()));
    if (options.http_threads > 1) slots = std::min(slots, options.http_threads - 1);
    return std::max(1, slots);
  }
  // Concurrent solves share the machine's memory: by default each slot's workspace bound is
  // its share of the solver's default bound, so that slots of 15-stone solves cannot together
  // exhaust memory (a solve over its bound is refused with 422 naming its need).
  static serve_options_t with_workspace_share(serve_options_t o) {
    if (!o.query.midgame_memory)
      o.query.midgame_memory = midgame_default_workspace_limit() / uint64_t(slots_for(o));
    return o;
  }
  static int queue_for(const serve_options_t& options) {
    return std::clamp(options.http_threads - 1 - slots_for(options), 0, options.midgame_queue);
  }

  explicit impl_t(const serve_options_t& o)
      : options(with_workspace_share(o)),
        engine(options.query),
        gate(slots_for(o), queue_for(o)),
        per_client(o.midgame_per_client),
        log(o.log_path) {
    http_server_options_t h;
    h.bind = o.bind;
    h.port = o.port;
    h.threads = o.http_threads;
    h.timeout_s = o.request_timeout_s;
    h.max_body = o.max_body_bytes;
    h.max_connections = size_t(o.max_connections);
    h.max_per_client = size_t(o.max_per_client);
    h.trusted_proxy = o.trusted_proxy;
    h.body_budget = std::max(o.max_body_bytes, size_t(64) << 20);
    // Health, stats and the page's files never queue behind answers.
    h.immediate = [](const http_request_t& req) {
      if (req.path == "/api/v1/health" || req.path == "/api/v1/stats" || req.path == "/")
        return true;
      for (const web_asset_t& asset : web_assets())
        if (asset.path == req.path) return true;
      return false;
    };
    http = std::make_unique<http_server_t>(
        h, [this](const http_request_t& req, http_response_t& res) { route(req, res); },
        [this](const http_request_t& req, const http_response_t& res) { logged(req, res); });
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

  // Runs `work(cancelled)` holding a midgame slot when `is_gated`: past the client's own limit
  // a 429, a full queue or a long wait a 503. The solve stops once the client has gone.
  template <class Work>
  auto gated(const http_request_t& req, bool is_gated, Work&& work) {
    const std::function<bool()> gone = [&req] { return req.client_gone(); };
    if (!is_gated) return work(gone);
    if (!per_client.take(req.remote_addr)) {
      rejected_client++;
      throw http_failure_t{429,
                           "this client already runs or waits for " +
                               std::to_string(per_client.limit()) +
                               " midgame solves (the limit per client): retry later",
                           retry_after_s()};
    }
    struct give_t {
      client_limit_t& limit;
      const std::string& client;
      ~give_t() { limit.give(client); }
    } give{per_client, req.remote_addr};
    const auto outcome = gate.enter(std::chrono::duration<double>(options.request_timeout_s), gone);
    if (outcome == midgame_gate_t::outcome_t::queue_full)
      throw http_failure_t{
          503, "midgame queue full (" + std::to_string(gate.queue()) + " waiting): retry later",
          retry_after_s()};
    if (outcome == midgame_gate_t::outcome_t::timed_out)
      throw http_failure_t{503, "no midgame slot free within the request timeout: retry later",
                           retry_after_s()};
    if (outcome == midgame_gate_t::outcome_t::closed)
      throw http_failure_t{503, "the server is stopping", 1};
    if (outcome == midgame_gate_t::outcome_t::cancelled)
      throw http_failure_t{499, "the client closed the connection while waiting"};
    gate_slot_t slot(gate);
    const auto start = clock_type_t::now();
    try {
      auto result = work(gone);
      note_solve(ms_since(start) / 1000);
      return result;
    } catch (const midgame_cancelled_t&) {
      if (!gone()) {
        // Another request's client left a solve this one waited for: solve it again.
        auto result = work(gone);
        note_solve(ms_since(start) / 1000);
        return result;
      }
      cancelled_solves++;
      throw http_failure_t{499, "the client closed the connection during the solve"};
    }
  }

  static position_t parse(const std::string& text) {
    try {
      return parse_position(text);
    } catch (const usage_error_t& e) {
      throw http_failure_t{400, std::string("bad board: ") + e.what()};
    }
  }

  position_answer_t answer(const http_request_t& req, position_t position,
                           clock_type_t::time_point start) {
    // One routing: the slot is held by it, and the answer follows it.
    const query_route_t route = engine.route(position);
    position_answer_t a = gated(req, route.needs_midgame(),
                                [&](const auto& gone) { return engine.answer(route, gone); });
    a.elapsed_ms = ms_since(start);
    return a;
  }

  // Maps exceptions of a handler to JSON errors (errors are never cached).
  template <class Handler>
  void guarded(http_response_t& res, Handler&& handler) {
    try {
      handler();
      return;
    } catch (const http_failure_t& f) {
      fail(res, f.status, f.reason);
      if (f.retry_after) res.headers.push_back({"Retry-After", std::to_string(f.retry_after)});
    } catch (const usage_error_t& e) {
      fail(res, 400, std::string("bad board: ") + e.what());
    } catch (const pentago_error_t& e) {
      fail(res, 422, std::string("cannot answer: ") + e.what());
    } catch (const std::exception& e) {
      fail(res, 500, std::string("internal error: ") + e.what());
    }
  }

  static void fail(http_response_t& res, int status, const std::string& reason) {
    res.status = status;
    res.content_type = "application/json";
    res.body = json{{"error", one_line(reason)}, {"status", status}}.dump();
    res.headers.push_back({"Cache-Control", "no-store"});
  }

  static void json_reply(http_response_t& res, std::string body, const char* cache_control) {
    res.body = std::move(body);
    res.content_type = "application/json";
    res.headers.push_back({"Cache-Control", cache_control});
  }

  std::string immutable() const {
    return "public, max-age=" + std::to_string(options.max_age_s) + ", immutable";
  }

  // A position's answer never changes: a complete one carries a strong ETag and may be kept
  // by any cache for good; If-None-Match with its tag gets 304. A partial answer (a slice
  // missing) may become complete with more data: caches revalidate it.
  void on_position(const http_request_t& req, const std::string& code, http_response_t& res) {
    const auto start = clock_type_t::now();
    guarded(res, [&] {
      const position_answer_t a = answer(req, parse(code), start);
      const bool complete = a.moves_unknown.empty();
      std::string body = answer_json(a);
      // The tag covers everything before the trailing elapsed_ms (the answer's last field).
      const size_t timing = body.rfind(",\"elapsed_ms\":");
      const std::string tag = entity_tag(body.substr(0, timing));
      const std::string cache_control = complete ? immutable() : std::string("no-cache");
      res.headers.push_back({"ETag", tag});
      if (none_match(req.header("if-none-match"), tag)) {
        not_modified++;
        res.status = 304;
        res.headers.push_back({"Cache-Control", cache_control});
        return;
      }
      json_reply(res, std::move(body), cache_control.c_str());
    });
  }

  void on_line(const http_request_t& req, const std::string& code, http_response_t& res) {
    const auto start = clock_type_t::now();
    guarded(res, [&] {
      const position_t position = parse(code);
      // A line runs the midgame solver once it reaches 18 stones: it always holds a slot.
      const auto line =
          gated(req, true, [&](const auto& gone) { return engine.best_line(position, gone); });
      ordered_json body;
      body["board"] = position_code(position);
      body["line"] = ordered_json::array();
      for (const auto& a : line) body["line"].push_back(ordered_json::parse(answer_json(a)));
      body["elapsed_ms"] = ms_since(start);
      json_reply(res, body.dump(), immutable().c_str());
    });
  }

  void on_batch(const http_request_t& req, const std::string&, http_response_t& res) {
    const auto start = clock_type_t::now();
    guarded(res, [&] {
      const json request = json::parse(req.body, nullptr, false);
      if (request.is_discarded()) throw http_failure_t{400, "body is not valid JSON"};
      const json* list = &request;
      if (request.is_object()) {
        const auto it = request.find("positions");
        if (it == request.end()) throw http_failure_t{400, "body needs a \"positions\" array"};
        list = &*it;
      }
      if (!list->is_array())
        throw http_failure_t{400, "positions must be an array of board strings"};
      if (list->size() > options.max_batch)
        throw http_failure_t{413, "batch of " + std::to_string(list->size()) +
                                      " positions is over the limit of " +
                                      std::to_string(options.max_batch)};
      std::vector<position_t> positions;
      for (size_t i = 0; i < list->size(); i++) {
        const json& item = (*list)[i];
        if (!item.is_string())
          throw http_failure_t{400, "positions[" + std::to_string(i) + "] is not a string"};
        try {
          positions.push_back(parse_position(item.get<std::string>()));
        } catch (const usage_error_t& e) {
          throw http_failure_t{400, "positions[" + std::to_string(i) + "]: bad board: " + e.what()};
        }
      }
      ordered_json body;
      body["results"] = ordered_json::array();
      for (const position_t p : positions) {
        if (req.client_gone()) throw http_failure_t{499, "the client closed the connection"};
        body["results"].push_back(
            ordered_json::parse(answer_json(answer(req, p, clock_type_t::now()))));
      }
      body["elapsed_ms"] = ms_since(start);
      json_reply(res, body.dump(), "no-store");
    });
  }

  void on_health(const http_request_t&, const std::string&, http_response_t& res) {
    json_reply(res,
               json{{"status", "ok"},
                    {"uptime_s", ms_since(started) / 1000},
                    {"databases", options.query.databases}}
                   .dump(),
               "no-store");
  }

  void on_stats(const http_request_t&, const std::string&, http_response_t& res) {
    json_reply(res, stats_json().dump(), "no-store");
  }

  json stats_json() const {
    const query_stats_t q = engine.stats();
    const auto g = gate.snapshot();
    const auto rate = [](uint64_t hits, uint64_t total) {
      return total ? double(hits) / double(total) : 0.0;
    };
    const uint64_t block_lookups = q.block_cache_hits + q.block_cache_misses;
    json j{{"uptime_s", ms_since(started) / 1000},
           {"requests", requests.load()},
           {"responses",
            {{"2xx", ok_2xx.load()}, {"4xx", client_4xx.load()}, {"5xx", server_5xx.load()}}},
           {"not_modified", not_modified.load()},
           {"queries", q.queries},
           {"answer_cache_hits", q.answer_cache_hits},
           {"answer_cache_hit_rate", rate(q.answer_cache_hits, q.queries)},
           {"block_cache_hits", q.block_cache_hits},
           {"block_cache_misses", q.block_cache_misses},
           {"block_cache_hit_rate", rate(q.block_cache_hits, block_lookups)},
           {"block_cache_bytes", q.block_cache_bytes},
           {"block_cache_limit_bytes", options.query.block_cache_bytes},
           {"midgame_solves", q.midgame_solves},
           {"midgame_device", q.midgame_device},
           {"solves_in_flight", q.midgame_in_flight},
           {"solves_cancelled", cancelled_solves.load()},
           {"slots_in_use", g.running},
           {"midgame_slots", gate.slots()},
           {"midgame_per_client", per_client.limit()},
           {"queue_length", g.waiting},
           {"queue_limit", gate.queue()},
           {"rejected_busy", g.rejected + g.timed_out},
           {"rejected_per_client", rejected_client.load()}};
    if (!q.midgame_gpu_unavailable.empty())
      j["midgame_gpu_unavailable"] = q.midgame_gpu_unavailable;
    return j;
  }

  void logged(const http_request_t& req, const http_response_t& res) {
    const double ms =
        req.start_seconds > 0
            ? 1000 *
                  (std::chrono::duration<double>(clock_type_t::now().time_since_epoch()).count() -
                   req.start_seconds)
            : 0.0;
    requests++;
    (res.status < 400 ? ok_2xx : res.status < 500 ? client_4xx : server_5xx)++;
    log.line(req, res, ms);
  }

  // Routes a request (on a worker; for a refused request, fills its error body at once).
  void route(const http_request_t& req, http_response_t& res) {
    if (!req.malformed.empty()) {
      fail(res, res.status, std::string(default_reason(res.status)) + ": " + req.malformed);
      if (res.status == 503) res.headers.push_back({"Retry-After", "1"});
      return;
    }
    res.headers.push_back({"Access-Control-Allow-Origin", "*"});
    const bool get = req.method == "GET" || req.method == "HEAD";
    const std::vector<std::string> parts = segments(req.path);
    for (const route_entry_t& r : routes()) {
      if (r.pattern.size() != parts.size()) continue;
      std::string board;
      bool match = true;
      for (size_t i = 0; i < parts.size() && match; i++) {
        if (r.pattern[i] == "{board}")
          match = !parts[i].empty(), board = parts[i];
        else
          match = r.pattern[i] == parts[i];
      }
      if (!match) continue;
      const bool allowed = std::string(r.allow) == "POST" ? req.method == "POST" : get;
      if (!allowed) {
        fail(res, 405, std::string(default_reason(405)) + ": " + req.method + " " + req.path);
        res.headers.push_back({"Allow", r.allow});
        return;
      }
      return (this->*r.run)(req, board, res);
    }
    const std::string wanted = req.path == "/" ? "/index.html" : req.path;
    for (const web_asset_t& asset : web_assets())
      if (asset.path == wanted) {
        if (!get) {
          fail(res, 405, std::string(default_reason(405)) + ": " + req.method + " " + req.path);
          res.headers.push_back({"Allow", "GET, HEAD"});
          return;
        }
        res.body.assign(reinterpret_cast<const char*>(asset.data), asset.size);
        res.content_type = content_type_of(asset.path);
        res.headers.push_back({"Cache-Control", "no-cache"});
        return;
      }
    fail(res, 404, std::string(default_reason(404)) + ": " + req.method + " " + req.path);
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

server_t::server_t(const serve_options_t& options) : impl_(std::make_unique<impl_t>(options)) {}
server_t::~server_t() = default;

int server_t::bind() { return impl_->http->bind(); }

std::string server_t::midgame_gpu_unavailable() const {
  return impl_->engine.stats().midgame_gpu_unavailable;
}

bool server_t::run() { return impl_->http->run(); }

void server_t::stop() {
  impl_->gate.close();
  impl_->http->stop();
}

}  // namespace pentago
