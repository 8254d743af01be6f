// pentago-serve over real HTTP: starts the executable on a free loopback port and checks every
// route and error status against the in-process query engine and the rules of the game.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>
#include <sstream>
#include <thread>

#include "pentago/base/board.h"
#include "pentago/query/query.h"

extern char** environ;

namespace pentago {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

const std::string data_dir = PENTAGO_SHARED_DATA;
const std::string serve_exe = std::string(PENTAGO_BINARY_DIR) + "/bin/pentago-serve";

// A running pentago-serve: started with --port 0, its port read from its first stdout line.
class server_process_t {
 public:
  // Starts the server; `expect_listening` false: it must exit instead (exit_status() tells).
  explicit server_process_t(std::vector<std::string> args, bool expect_listening = true) {
    dir_ = fs::path(PENTAGO_BINARY_DIR) / "test-runs" /
           ("serve-api-" + std::to_string(getpid()) + "-" + std::to_string(counter_++));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    log_path = (dir_ / "access.log").string();
    args.insert(args.begin(), {serve_exe, "--port", "0", "--log", log_path});
    int out[2];
    if (pipe(out)) throw std::runtime_error("pipe failed");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    if (posix_spawn(&pid_, serve_exe.c_str(), &actions, nullptr, argv.data(), environ))
      throw std::runtime_error("cannot start " + serve_exe);
    posix_spawn_file_actions_destroy(&actions);
    close(out[1]);
    stdout_ = fdopen(out[0], "r");
    char line[512];
    if (!std::fgets(line, sizeof line, stdout_)) {
      if (!expect_listening) return;
      throw std::runtime_error("pentago-serve exited before listening");
    }
    std::smatch match;
    const std::string text = line;
    if (!std::regex_search(text, match, std::regex(R"(http://127\.0\.0\.1:(\d+)/)")))
      throw std::runtime_error("unexpected first line: " + text);
    port = std::stoi(match[1]);
  }
  ~server_process_t() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (stdout_) std::fclose(stdout_);
    fs::remove_all(dir_);
  }
  // Sends `signal` and returns the exit status (-1 unless it exited by itself within 10 s).
  int stop(int signal, std::string* rest_of_stdout) {
    kill(pid_, signal);
    for (int i = 0; i < 1000; i++) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        char line[512];
        while (std::fgets(line, sizeof line, stdout_)) *rest_of_stdout += line;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return -1;
  }
  // The exit status once it has exited by itself (-1 if it is still running after 30 s).
  int exit_status() {
    for (int i = 0; i < 3000; i++) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return -1;
  }
  httplib::Client client() const {
    httplib::Client c("127.0.0.1", port);
    c.set_read_timeout(120, 0);
    return c;
  }

  pid_t pid() const { return pid_; }
  // The server's resident set in MiB (/proc/PID/status).
  double rss_mib() const {
    std::ifstream in("/proc/" + std::to_string(pid_) + "/status");
    for (std::string line; std::getline(in, line);)
      if (line.rfind("VmRSS:", 0) == 0) return std::stod(line.substr(6)) / 1024;
    return -1;
  }
  // The server's CPU seconds so far (user and system, /proc/PID/stat).
  double cpu_seconds() const {
    std::ifstream in("/proc/" + std::to_string(pid_) + "/stat");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::istringstream fields(text.substr(text.rfind(')') + 2));
    std::string field;
    double ticks = 0;
    for (int i = 3; i <= 15 && fields >> field; i++)
      if (i == 14 || i == 15) ticks += std::stod(field);
    return ticks / double(sysconf(_SC_CLK_TCK));
  }

  int port = 0;
  std::string log_path;

 private:
  static inline int counter_ = 0;
  fs::path dir_;
  pid_t pid_ = -1;
  FILE* stdout_ = nullptr;
};

json parse_json(const httplib::Result& res) {
  EXPECT_TRUE(res) << "no response";
  if (!res) return json();
  EXPECT_EQ(res->get_header_value("Content-Type"), "application/json");
  return json::parse(res->body);
}

// An answer without its timing (the only field that differs between two correct answers).
json timeless(json answer) {
  answer.erase("elapsed_ms");
  return answer;
}

int value_rank(const std::string& value) {
  if (value == "win") return 1;
  if (value == "loss") return -1;
  EXPECT_EQ(value, "tie");
  return 0;
}

// A legal position with `stones` stones, none in a row of five, from seeded random placements.
board_t random_board(int stones, unsigned seed) {
  std::mt19937 random(seed);
  for (;;) {
    side_t sides[2] = {0, 0};
    std::vector<int> cells(36);
    for (int i = 0; i < 36; i++) cells[i] = i;
    std::shuffle(cells.begin(), cells.end(), random);
    for (int k = 0; k < stones; k++) sides[k & 1] |= cell_bit(cells[k] / 6, cells[k] % 6);
    if (!won(sides[0]) && !won(sides[1])) return pack(sides[0], sides[1]);
  }
}

class ServeApi : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server = new server_process_t({"--db", data_dir, "--max-batch", "8", "--max-body", "64K"});
    query_options_t options;
    options.databases = {data_dir};
    engine = new query_engine_t(options);
  }
  static void TearDownTestSuite() {
    delete server;
    delete engine;
  }

  static json get(const std::string& path, int expected_status = 200) {
    auto res = server->client().Get(path.c_str());
    EXPECT_TRUE(res) << path;
    if (!res) return json();
    EXPECT_EQ(res->status, expected_status) << path << ": " << res->body;
    return parse_json(res);
  }
  // The engine's own answer, as JSON.
  static json expected(const std::string& code) {
    return timeless(json::parse(answer_json(engine->answer(parse_position(code)))));
  }
  // Checks the rules every answer obeys: sorted best first, the value is the best move's, and
  // (for a few moves) a move's value agrees with the answer served for its child.
  static void check_consistent(const json& answer, size_t children_to_check) {
    const auto& moves = answer["moves"];
    if (moves.empty()) return;
    int best = -2, previous = 2;
    for (const auto& m : moves) {
      const int v = value_rank(m["value"]);
      EXPECT_LE(v, previous) << "moves not sorted best first at " << m["move"];
      previous = v;
      best = std::max(best, v);
    }
    EXPECT_EQ(value_rank(answer["value"]), best) << answer["board"];
    for (size_t i = 0; i < moves.size() && i < children_to_check; i++) {
      const size_t index = i * (moves.size() - 1) / std::max<size_t>(1, children_to_check - 1);
      const json& m = moves[index];
      const json child = get("/api/v1/position/" + m["child"].get<std::string>());
      const int sign = child["to_move"] == answer["to_move"] ? 1 : -1;
      EXPECT_EQ(value_rank(m["value"]), sign * value_rank(child["value"]))
          << answer["board"] << " move " << m["move"];
    }
  }

  static inline server_process_t* server = nullptr;
  static inline query_engine_t* engine = nullptr;
};

TEST_F(ServeApi, Health) {
  const json health = get("/api/v1/health");
  EXPECT_EQ(health["status"], "ok");
  EXPECT_EQ(health["databases"], json::array({data_dir}));
}

TEST_F(ServeApi, DatabasePositionsMatchTheEngine) {
  const json root = get("/api/v1/position/0");
  EXPECT_EQ(timeless(root), expected("0"));
  EXPECT_EQ(root["stones"], 0);
  EXPECT_EQ(root["phase"], "place");
  ASSERT_FALSE(root["moves"].empty());
  // A placement (to rotate), one of its rotations (1 stone) and a 2-stone position below it.
  const std::string placed = root["moves"][0]["child"];
  ASSERT_EQ(placed.back(), 'm');
  const json to_rotate = get("/api/v1/position/" + placed);
  EXPECT_EQ(timeless(to_rotate), expected(placed));
  EXPECT_EQ(to_rotate["phase"], "rotate");
  const std::string one = to_rotate["moves"].back()["child"];
  const json one_stone = get("/api/v1/position/" + one);
  EXPECT_EQ(timeless(one_stone), expected(one));
  // Two stones to rotate: its children are in slice 2 (slice 3 is not in the test data).
  const std::string two = one_stone["moves"].back()["child"];
  ASSERT_EQ(two.back(), 'm');
  const json two_stones = get("/api/v1/position/" + two);
  EXPECT_EQ(timeless(two_stones), expected(two));
  check_consistent(root, 4);
  check_consistent(to_rotate, 8);
  check_consistent(one_stone, 4);
  check_consistent(two_stones, 0);  // its children (2 stones to place) need slice 3
}

TEST_F(ServeApi, CompactTextFormAndCaching) {
  const board_t board = random_board(1, 7);
  const std::string code = position_code({board, false});
  auto res = server->client().Get(("/api/v1/position/" + compact_board(board)).c_str());
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(json::parse(res->body)["board"], code);
  EXPECT_NE(res->get_header_value("Cache-Control").find("max-age="), std::string::npos);
  EXPECT_EQ(res->get_header_value("Access-Control-Allow-Origin"), "*");
}

TEST_F(ServeApi, MidgamePositionsMatchTheEngine) {
  for (const int stones : {24, 27}) {
    const std::string code = position_code({random_board(stones, 100 + stones), false});
    const json answer = get("/api/v1/position/" + code);
    EXPECT_EQ(answer["stones"], stones);
    EXPECT_EQ(timeless(answer), expected(code));
    check_consistent(answer, 3);
  }
}

TEST_F(ServeApi, BestLineEndsTheGame) {
  const std::string code = position_code({random_board(26, 5), false});
  const json reply = get("/api/v1/position/" + code + "/line");
  const json& line = reply["line"];
  ASSERT_FALSE(line.empty());
  EXPECT_EQ(line[0]["board"], code);
  for (size_t i = 0; i + 1 < line.size(); i++) {
    // The next position is the child of a best move of this one.
    bool found = false;
    for (const auto& m : line[i]["moves"])
      if (m["child"] == line[i + 1]["board"]) {
        found = true;
        EXPECT_EQ(m["value"], line[i]["value"]) << "not a best move at step " << i;
      }
    EXPECT_TRUE(found) << "step " << i << " is not a move";
  }
  EXPECT_TRUE(line.back()["moves"].empty()) << "the line stops before the end of the game";
}

TEST_F(ServeApi, BatchEqualsSingleAnswers) {
  const std::vector<std::string> codes = {"0", position_code({random_board(1, 3), false}),
                                          position_code({random_board(2, 4), true}),
                                          position_code({random_board(25, 9), false})};
  auto res = server->client().Post("/api/v1/positions", json{{"positions", codes}}.dump(),
                                   "application/json");
  const json batch = parse_json(res);
  ASSERT_EQ(res->status, 200) << res->body;
  ASSERT_EQ(batch["results"].size(), codes.size());
  for (size_t i = 0; i < codes.size(); i++)
    EXPECT_EQ(timeless(batch["results"][i]), timeless(get("/api/v1/position/" + codes[i])));
  // A bare array is accepted too.
  res = server->client().Post("/api/v1/positions", json(codes).dump(), "application/json");
  EXPECT_EQ(parse_json(res)["results"].size(), codes.size());
}

// Every error is JSON with a one-line reason and is never cached.
void expect_error(const httplib::Result& res, int status, const std::string& reason_part = "") {
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, status) << res->body;
  const json body = json::parse(res->body);
  ASSERT_TRUE(body["error"].is_string()) << res->body;
  const std::string reason = body["error"];
  EXPECT_FALSE(reason.empty());
  EXPECT_EQ(reason.find('\n'), std::string::npos);
  EXPECT_NE(reason.find(reason_part), std::string::npos) << reason;
  EXPECT_EQ(res->get_header_value("Cache-Control"), "no-store");
}

TEST_F(ServeApi, ErrorStatuses) {
  auto c = server->client();
  expect_error(c.Get("/api/v1/position/12x"), 400);
  expect_error(c.Get("/api/v1/position/12x/line"), 400);
  // White cannot have more stones than black.
  const std::string impossible = std::to_string(pack(0, cell_bit(2, 2)));
  expect_error(c.Get(("/api/v1/position/" + impossible).c_str()), 400);
  expect_error(c.Get("/api/v1/nope"), 404);
  expect_error(c.Get("/api/v1/position/"), 404);
  expect_error(c.Post("/api/v1/positions", "{not json", "application/json"), 400);
  expect_error(c.Post("/api/v1/positions", R"({"positions": [0]})", "application/json"), 400);
  expect_error(c.Post("/api/v1/positions", R"({"positions": ["0", "12x"]})", "application/json"),
               400, "positions[1]");
  // Over the batch limit (8 in this server), and over the body limit (64K).
  expect_error(c.Post("/api/v1/positions", json(std::vector<std::string>(9, "0")).dump(),
                      "application/json"),
               413);
  expect_error(c.Post("/api/v1/positions", std::string(100000, ' '), "application/json"), 413);
  // Three stones to rotate: its moves need slice 3, which is not in the test data.
  expect_error(c.Get(("/api/v1/position/" + position_code({random_board(3, 1), true})).c_str()),
               422, "slice-3.pentago");
  // Two stones to place: a partial answer, its value from slice 2 and no moves.
  auto partial = c.Get(("/api/v1/position/" + position_code({random_board(2, 1), false})).c_str());
  ASSERT_TRUE(partial);
  EXPECT_EQ(partial->status, 200);
  const auto j = json::parse(partial->body);
  EXPECT_TRUE(j["moves"].is_null());
  EXPECT_NE(j["moves_unknown"].get<std::string>().find("slice-3.pentago"), std::string::npos);
}

TEST_F(ServeApi, StaticPageIsTheEmbeddedWebFolder) {
  auto c = server->client();
  for (const std::string name : {"index.html", "app.js", "style.css"}) {
    std::ifstream in(std::string(PENTAGO_SOURCE_DIR) + "/web/" + name, std::ios::binary);
    std::stringstream file;
    file << in.rdbuf();
    auto res = c.Get(("/" + name).c_str());
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 200);
    EXPECT_EQ(res->body, file.str()) << name;
  }
  auto res = c.Get("/");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_NE(res->body.find("id=\"board\""), std::string::npos);
}

TEST_F(ServeApi, StatsCountQueriesAndCacheHits) {
  const std::string code = position_code({random_board(1, 11), false});
  get("/api/v1/position/" + code);
  const json before = get("/api/v1/stats");
  get("/api/v1/position/" + code);
  const json after = get("/api/v1/stats");
  EXPECT_EQ(after["queries"].get<uint64_t>(), before["queries"].get<uint64_t>() + 1);
  EXPECT_EQ(after["answer_cache_hits"].get<uint64_t>(),
            before["answer_cache_hits"].get<uint64_t>() + 1);
  for (const char* field : {"answer_cache_hit_rate", "block_cache_hit_rate", "queue_length",
                            "solves_in_flight", "midgame_slots", "requests"})
    EXPECT_TRUE(after.contains(field)) << field;
}

TEST_F(ServeApi, AccessLogHasOneLinePerRequest) {
  const auto lines_now = [] {
    std::ifstream in(server->log_path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
  };
  // A line is written right after its response, from the connection's thread: wait for each
  // before the next request, so that the two lines cannot swap.
  std::vector<std::string> lines;
  const auto wait_for = [&](size_t count) {
    for (int i = 0; i < 200 && (lines = lines_now()).size() < count; i++)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
  };
  const size_t before = lines_now().size();
  get("/api/v1/health");
  wait_for(before + 1);
  ASSERT_EQ(lines.size(), before + 1);
  get("/api/v1/nope", 404);
  wait_for(before + 2);
  ASSERT_EQ(lines.size(), before + 2);
  const std::regex shape(R"(^\S+ 127\.0\.0\.1 GET (\S+) (\d{3}) [0-9.]+ms \d+B$)");
  std::smatch m;
  ASSERT_TRUE(std::regex_match(lines[before], m, shape)) << lines[before];
  EXPECT_EQ(m[1], "/api/v1/health");
  EXPECT_EQ(m[2], "200");
  ASSERT_TRUE(std::regex_match(lines[before + 1], m, shape)) << lines[before + 1];
  EXPECT_EQ(m[2], "404");
}

TEST(ServeLimits, FullMidgameQueueAnswers503WithRetryAfter) {
  server_process_t busy({"--db", data_dir, "--midgame-slots", "1", "--queue", "0"});
  // An 18-stone solve holds the only slot for a second or more.
  const std::string slow = position_code({random_board(18, 21), false});
  int first_status = 0;
  std::string first_body;
  std::thread holder([&] {
    auto first = busy.client().Get(("/api/v1/position/" + slow).c_str());
    if (first) first_status = first->status, first_body = first->body;
  });
  bool in_use = false;
  for (int i = 0; i < 2000 && !in_use; i++) {
    auto stats = busy.client().Get("/api/v1/stats");
    in_use = stats && json::parse(stats->body)["slots_in_use"] == 1;
    if (!in_use) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ASSERT_TRUE(in_use) << "the 18-stone solve never held the slot";
  auto res = busy.client().Get(
      ("/api/v1/position/" + position_code({random_board(24, 22), false})).c_str());
  holder.join();
  expect_error(res, 503, "queue");
  EXPECT_GE(std::stoi(res->get_header_value("Retry-After")), 1);
  EXPECT_EQ(first_status, 200) << first_body;
  auto stats = busy.client().Get("/api/v1/stats");
  ASSERT_TRUE(stats);
  EXPECT_GE(json::parse(stats->body)["rejected_busy"].get<int>(), 1);
}

TEST(ServeLimits, SigtermStopsCleanly) {
  for (const int signal : {SIGTERM, SIGINT}) {
    server_process_t s({"--db", data_dir});
    auto res = s.client().Get("/api/v1/health");
    ASSERT_TRUE(res);
    std::string rest;
    EXPECT_EQ(s.stop(signal, &rest), 0);
    EXPECT_NE(rest.find("stopped"), std::string::npos) << rest;
  }
}

// ---- The transport, over raw sockets --------------------------------------------------------

using test_clock_t = std::chrono::steady_clock;

double seconds_since(test_clock_t::time_point start) {
  return std::chrono::duration<double>(test_clock_t::now() - start).count();
}

// A raw client connection (loopback), for what HTTP libraries never send.
class raw_connection_t {
 public:
  // `from`: the client's own loopback address (another client to the server's per-address
  // limits); `receive_buffer`: a small kernel receive buffer (a client that reads slowly).
  explicit raw_connection_t(int port, const char* from = nullptr, int receive_buffer = 0) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    if (receive_buffer)
      setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof receive_buffer);
    if (from) {
      sockaddr_in local{};
      local.sin_family = AF_INET;
      inet_pton(AF_INET, from, &local.sin_addr);
      if (::bind(fd_, reinterpret_cast<sockaddr*>(&local), sizeof local))
        throw std::runtime_error("cannot bind the client to " + std::string(from));
    }
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(uint16_t(port));
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a))
      throw std::runtime_error("cannot connect");
  }
  ~raw_connection_t() { ::close(fd_); }
  bool send(const std::string& data) {
    return ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL) == ssize_t(data.size());
  }
  // Reads until the peer closes, `until` appears `count` times, or `seconds` pass.
  std::string read(double seconds, const std::string& until = "", int count = 1) {
    const auto start = test_clock_t::now();
    std::string got;
    closed = false;
    while (seconds_since(start) < seconds) {
      if (!until.empty()) {
        int found = 0;
        for (size_t at = got.find(until); at != std::string::npos; at = got.find(until, at + 1))
          found++;
        if (found >= count) break;
      }
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      char buffer[65536];
      const ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
      if (n <= 0) {
        closed = true;
        break;
      }
      got.append(buffer, size_t(n));
    }
    return got;
  }
  bool closed = false;

 private:
  int fd_ = -1;
};

int count_of(const std::string& text, const std::string& part) {
  int n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) n++;
  return n;
}

TEST(ServeTransport, OptionsTakeEqualsValues) {
  server_process_t s({"--db=" + data_dir, "--threads=2", "--timeout=5"});
  auto res = s.client().Get("/api/v1/health");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
}

TEST(ServeTransport, ChunkedBodiesObeyMaxBody) {
  server_process_t s({"--db", data_dir, "--max-body", "64K"});
  raw_connection_t c(s.port);
  c.send("POST /api/v1/positions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n");
  const std::string chunk(16384, ' ');
  char size_line[32];
  std::snprintf(size_line, sizeof size_line, "%zx\r\n", chunk.size());
  for (int i = 0; i < 8 && c.send(size_line + chunk + "\r\n"); i++) {
  }
  c.send("0\r\n\r\n");
  const std::string reply = c.read(10, "\r\n\r\n");
  EXPECT_EQ(reply.rfind("HTTP/1.1 413", 0), 0u) << reply;
  // Within the limit, a chunked body is read whole.
  raw_connection_t small(s.port);
  small.send(
      "POST /api/v1/positions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
      "Connection: close\r\n\r\n5\r\n[\"0\",\r\n4\r\n\"0\"]\r\n0\r\n\r\n");
  const std::string ok = small.read(10);
  EXPECT_EQ(ok.rfind("HTTP/1.1 200", 0), 0u) << ok;
  EXPECT_EQ(count_of(ok, "\"board\":\"0\""), 2) << ok;
}

TEST(ServeTransport, PipelinedRequestsAreAllAnswered) {
  server_process_t s({"--db", data_dir});
  raw_connection_t c(s.port);
  c.send(
      "GET /api/v1/health HTTP/1.1\r\nHost: x\r\n\r\nGET /api/v1/stats HTTP/1.1\r\nHost: x\r\n"
      "Connection: close\r\n\r\n");
  const auto start = test_clock_t::now();
  const std::string reply = c.read(10);
  EXPECT_TRUE(c.closed);
  EXPECT_LT(seconds_since(start), 2.0);
  EXPECT_EQ(count_of(reply, "HTTP/1.1 200"), 2) << reply;
  EXPECT_NE(reply.find("\"status\":\"ok\""), std::string::npos);
  EXPECT_NE(reply.find("\"uptime_s\""), reply.rfind("\"uptime_s\""));  // health and stats
}

TEST(ServeTransport, ABadRequestGetsItsAnswerAndTheSocketCloses) {
  server_process_t s({"--db", data_dir});
  raw_connection_t c(s.port);
  c.send("GET /api/v1/health HTTP/1.1\r\nHost: x\r\nX: a\rb\r\n\r\n");
  const auto start = test_clock_t::now();
  const std::string reply = c.read(10);
  EXPECT_EQ(reply.rfind("HTTP/1.1 400", 0), 0u) << reply;
  EXPECT_TRUE(c.closed);
  EXPECT_LT(seconds_since(start), 2.0);
}

TEST(ServeTransport, SlowAndIdleClientsHoldNoThread) {
  server_process_t s({"--db", data_dir, "--threads", "2", "--timeout", "2"});
  // Two clients trickling a header, and nine idle ones (three after a first request).
  std::vector<std::unique_ptr<raw_connection_t>> slow, idle;
  for (int i = 0; i < 2; i++) slow.push_back(std::make_unique<raw_connection_t>(s.port));
  for (int i = 0; i < 9; i++) idle.push_back(std::make_unique<raw_connection_t>(s.port));
  for (int i = 0; i < 3; i++) {
    idle[size_t(i)]->send("GET /api/v1/health HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_EQ(idle[size_t(i)]->read(5, "}").rfind("HTTP/1.1 200", 0), 0u);
  }
  const std::string header = "GET /api/v1/health HTTP/1.1\r\nHost: x\r\n";
  const auto start = test_clock_t::now();
  for (size_t k = 0; k < 8; k++) {
    for (auto& c : slow) c->send(header.substr(k, 1));
    auto res = s.client().Get("/api/v1/health");
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 200);
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  const double answered = seconds_since(start);
  // A connection idle past the timeout is closed (the trickling clients send a byte every
  // quarter second until they stop; two seconds later they lose the connection).
  for (auto& c : slow) {
    const std::string reply = c->read(5);
    EXPECT_EQ(reply, "");
    EXPECT_TRUE(c->closed);
  }
  EXPECT_LT(seconds_since(start), 6.0);
  EXPECT_LT(answered, 4.0);
  // SIGTERM with idle connections open stops the server at once.
  const auto stopping = test_clock_t::now();
  std::string rest;
  EXPECT_EQ(s.stop(SIGTERM, &rest), 0);
  EXPECT_LT(seconds_since(stopping), 3.0);
}

TEST(ServeTransport, WaitingSolvesLeaveThreadsForOtherRequests) {
  server_process_t s(
      {"--db", data_dir, "--threads", "4", "--midgame-slots", "1", "--midgame-per-client", "99"});
  std::vector<std::thread> solves;
  std::atomic<int> busy{0};
  // Eight solves of under a second each: at least three are refused even if one or two of
  // them finish before the last arrive (a loaded machine).
  for (int i = 0; i < 8; i++)
    solves.emplace_back([&, i] {
      auto res = s.client().Get(
          ("/api/v1/position/" + position_code({random_board(18, 300 + unsigned(i)), false}))
              .c_str());
      if (res && res->status == 503) busy++;
    });
  // Wait until a solve holds the slot, then time the health route.
  bool in_use = false;
  for (int i = 0; i < 2000 && !in_use; i++) {
    auto stats = s.client().Get("/api/v1/stats");
    in_use = stats && json::parse(stats->body)["slots_in_use"] == 1;
    if (!in_use) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  double slowest = 0;
  for (int i = 0; i < 5; i++) {
    const auto start = test_clock_t::now();
    auto res = s.client().Get("/api/v1/health");
    slowest = std::max(slowest, seconds_since(start));
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 200);
  }
  // One solves, two wait (threads - 1 - slots), the others are refused at once.
  for (int i = 0; i < 500 && busy < 3; i++)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  auto stats = s.client().Get("/api/v1/stats");
  ASSERT_TRUE(stats);
  EXPECT_LE(json::parse(stats->body)["queue_limit"].get<int>(), 2);
  std::string rest;
  s.stop(SIGKILL, &rest);  // no need to wait for the solves
  for (auto& t : solves) t.join();
  EXPECT_TRUE(in_use);
  EXPECT_LT(slowest, 1.0);
  EXPECT_GE(busy.load(), 3) << "requests queued for one slot were not refused";
}

TEST(ServeTransport, SigtermDuringASolveStopsWithinSeconds) {
  server_process_t s({"--db", data_dir, "--midgame-slots", "1"});
  std::thread solve([&] {
    (void)s.client().Get(
        ("/api/v1/position/" + position_code({random_board(18, 21), false})).c_str());
  });
  bool in_use = false;
  for (int i = 0; i < 2000 && !in_use; i++) {
    auto stats = s.client().Get("/api/v1/stats");
    in_use = stats && json::parse(stats->body)["slots_in_use"] == 1;
    if (!in_use) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_TRUE(in_use);
  const auto start = test_clock_t::now();
  std::string rest;
  EXPECT_EQ(s.stop(SIGTERM, &rest), 0);
  EXPECT_LT(seconds_since(start), 4.0);
  EXPECT_NE(rest.find("stopped"), std::string::npos) << rest;
  solve.join();
}

TEST(ServeTransport, TheAccessLogEscapesBytesAndNamesMalformedRequests) {
  server_process_t s({"--db", data_dir});
  // A line is written after its response: wait for each before the next request.
  std::vector<std::string> lines;
  const auto wait_for = [&](size_t count) {
    for (int i = 0; i < 200 && lines.size() < count; i++) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      std::ifstream in(s.log_path);
      lines.clear();
      for (std::string line; std::getline(in, line);) lines.push_back(line);
    }
  };
  {
    raw_connection_t c(s.port);
    c.send("GET /api/v1/position/%1b%5b31m%20GET%20/fake%0a HTTP/1.1\r\nHost: x\r\n\r\n");
    c.read(5, "}");
  }
  wait_for(1);
  {
    raw_connection_t c(s.port);
    c.send("GARBAGE\r\n\r\n");
    c.read(5);
  }
  wait_for(2);
  ASSERT_EQ(lines.size(), 2u);
  const std::regex shape(R"(^\S+ 127\.0\.0\.1 (\S+) (\S+) (\d{3}) [0-9.]+ms \d+B$)");
  std::smatch m;
  ASSERT_TRUE(std::regex_match(lines[0], m, shape)) << lines[0];
  EXPECT_EQ(m[1], "GET");
  EXPECT_EQ(m[2], "/api/v1/position/\\x1b[31m\\x20GET\\x20/fake\\x0a");
  EXPECT_EQ(m[3], "404");  // decoded, the path has a '/' more than any route
  ASSERT_TRUE(std::regex_match(lines[1], m, shape)) << lines[1];
  EXPECT_EQ(m[1], "MALFORMED");
  EXPECT_EQ(m[3], "400");
  for (const auto& line : lines)
    for (const char c : line) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << line;
}

TEST(ServeTransport, AStalledRemoteDatabaseFailsStartUpWithinTheTimeout) {
  const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(::listen(listener, 64), 0);  // connections complete; nobody ever answers
  ASSERT_EQ(::getsockname(listener, reinterpret_cast<sockaddr*>(&a), &len), 0);
  const auto start = test_clock_t::now();
  server_process_t s(
      {"--db", "http://127.0.0.1:" + std::to_string(ntohs(a.sin_port)), "--timeout", "1.5"}, false);
  EXPECT_EQ(s.exit_status(), 1);
  EXPECT_LT(seconds_since(start), 4.0);
  ::close(listener);
}

// ---- What a hostile client tried: each of these failed before the transport moved to the
// HTTP library ------------------------------------------------------------------------------

// Seconds for a GET of /api/v1/health from loopback address `from` (200 expected, else 99).
double timed_health(int port, const char* from) {
  const auto start = test_clock_t::now();
  raw_connection_t c(port, from);
  c.send("GET /api/v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  const std::string reply = c.read(40);
  return reply.rfind("HTTP/1.1 200", 0) == 0 ? seconds_since(start) : 99;
}

TEST(ServeHostile, AmbiguousFramingIsRefusedAndTheBodyNeverRunsAsARequest) {
  server_process_t s({"--db", data_dir});
  const std::string hidden = "GET /api/v1/stats HTTP/1.1\r\nHost: x\r\n\r\n";
  const std::string length = std::to_string(hidden.size());
  for (const std::string& headers :
       {"Content-Length: 0\r\nContent-Length: " + length + "\r\n",
        "Content-Length: " + length + "\r\nContent-Length: 0\r\n",
        std::string("Content-Length:\r\n"),
        std::string("Transfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n"),
        "Content-Length: " + length + "\r\nTransfer-Encoding: chunked\r\n"}) {
    raw_connection_t c(s.port);
    c.send("POST /api/v1/positions HTTP/1.1\r\nHost: x\r\n" + headers + "\r\n" + hidden);
    const std::string reply = c.read(5);
    EXPECT_EQ(reply.rfind("HTTP/1.1 400", 0), 0u) << headers << reply;
    EXPECT_EQ(reply.find("uptime_s"), std::string::npos) << headers << ": the body ran: " << reply;
    EXPECT_TRUE(c.closed) << headers;
  }
}

TEST(ServeHostile, OneClientsIdleSocketsLeaveOthersServed) {
  server_process_t s({"--db", data_dir, "--max-per-client", "16", "--timeout", "30"});
  // One address opens 300 connections and keeps them; the server keeps 16 of them.
  std::vector<std::unique_ptr<raw_connection_t>> idle;
  for (int i = 0; i < 300; i++) idle.push_back(std::make_unique<raw_connection_t>(s.port));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  int open = 0;
  for (auto& c : idle) {
    c->read(0.01);
    open += !c->closed;
  }
  EXPECT_LE(open, 16);
  EXPECT_LT(timed_health(s.port, "127.0.0.2"), 1.0);
}

TEST(ServeHostile, ClientsThatNeverReadHoldNoWorker) {
  server_process_t s({"--db", data_dir, "--threads", "4", "--max-per-client", "64"});
  // Forty connections with a 4 KiB receive buffer, each pipelining 30 requests of a 24 KB
  // answer and reading nothing.
  std::string requests;
  for (int i = 0; i < 30; i++) requests += "GET /api/v1/position/0 HTTP/1.1\r\nHost: x\r\n\r\n";
  std::vector<std::unique_ptr<raw_connection_t>> stuck;
  for (int i = 0; i < 40; i++) {
    stuck.push_back(std::make_unique<raw_connection_t>(s.port, nullptr, 4096));
    stuck.back()->send(requests);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  for (int i = 0; i < 3; i++) EXPECT_LT(timed_health(s.port, "127.0.0.2"), 1.0);
}

TEST(ServeHostile, OutOfFileDescriptorsItWaitsInsteadOfSpinning) {
  server_process_t s({"--db", data_dir, "--max-per-client", "1000", "--max-connections", "1000"});
  const rlimit few{48, 48};
  ASSERT_EQ(prlimit(s.pid(), RLIMIT_NOFILE, &few, nullptr), 0);
  std::vector<std::unique_ptr<raw_connection_t>> held;
  for (int i = 0; i < 100; i++) held.push_back(std::make_unique<raw_connection_t>(s.port));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const double before = s.cpu_seconds();
  std::this_thread::sleep_for(std::chrono::seconds(2));
  EXPECT_LT(s.cpu_seconds() - before, 0.3) << "CPU seconds in 2 s out of descriptors";
  held.clear();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_LT(timed_health(s.port, "127.0.0.2"), 2.0);
}

TEST(ServeHostile, HalfSentBodiesAreBoundedTogether) {
  server_process_t s({"--db", data_dir, "--max-body", "4M"});
  const double base = s.rss_mib();
  // Sixty clients each promise 4 MiB and send 3.5 MiB: 210 MiB if every body were kept.
  const std::string part(size_t(3.5 * (1 << 20)), ' ');
  std::vector<std::unique_ptr<raw_connection_t>> senders;
  int refused = 0;
  for (int i = 0; i < 60; i++) {
    senders.push_back(std::make_unique<raw_connection_t>(s.port));
    senders.back()->send("POST /api/v1/positions HTTP/1.1\r\nHost: x\r\nContent-Length: " +
                         std::to_string(4 << 20) + "\r\n\r\n");
    senders.back()->send(part);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const double peak = s.rss_mib();
  for (auto& c : senders) refused += c->read(0.05).rfind("HTTP/1.1 503", 0) == 0;
  EXPECT_LT(peak - base, 120) << "MiB held by half-sent bodies";
  EXPECT_GE(refused, 30);
}

TEST(ServeHostile, AClientThatLeavesStopsItsSolves) {
  server_process_t s({"--db", data_dir, "--midgame-slots", "1"});
  json batch = json::array();
  for (unsigned i = 0; i < 8; i++)
    batch.push_back(position_code({random_board(18, 40 + i), false}));
  const std::string body = batch.dump();
  {
    raw_connection_t c(s.port);
    c.send(
        "POST /api/v1/positions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        "Content-Length: " +
        std::to_string(body.size()) + "\r\n\r\n" + body);
    bool in_use = false;
    for (int i = 0; i < 2000 && !in_use; i++) {
      auto stats = s.client().Get("/api/v1/stats");
      in_use = stats && json::parse(stats->body)["slots_in_use"] == 1;
      if (!in_use) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    ASSERT_TRUE(in_use);
    // Past the first solve's set-up (a fresh workspace is faulted in before the layers).
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }  // the client leaves
  const auto left = test_clock_t::now();
  bool freed = false;
  json stats;
  while (!freed && seconds_since(left) < 20) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    auto res = s.client().Get("/api/v1/stats");
    ASSERT_TRUE(res);
    stats = json::parse(res->body);
    freed = stats["slots_in_use"] == 0 && stats["solves_in_flight"] == 0;
  }
  EXPECT_TRUE(freed);
  EXPECT_LT(seconds_since(left), 1.5) << "the batch kept solving after its client left";
  EXPECT_LT(stats["midgame_solves"].get<int>(), 8);
}

TEST(ServeHostile, OneClientCannotTakeEveryMidgameSlot) {
  server_process_t s({"--db", data_dir, "--midgame-slots", "2", "--midgame-per-client", "1"});
  const std::string slow = position_code({random_board(18, 51), false});
  std::thread holder([&] { (void)s.client().Get(("/api/v1/position/" + slow).c_str()); });
  bool in_use = false;
  for (int i = 0; i < 2000 && !in_use; i++) {
    auto stats = s.client().Get("/api/v1/stats");
    in_use = stats && json::parse(stats->body)["slots_in_use"] == 1;
    if (!in_use) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ASSERT_TRUE(in_use);
  const std::string other = position_code({random_board(18, 52), false});
  auto res = s.client().Get(("/api/v1/position/" + other).c_str());
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 429) << res->body;
  EXPECT_GE(std::stoi(res->get_header_value("Retry-After")), 1);
  EXPECT_NE(res->body.find("limit per client"), std::string::npos) << res->body;
  // Another client address still gets the second slot.
  raw_connection_t c(s.port, "127.0.0.2");
  c.send("GET /api/v1/position/" + other + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  const std::string reply = c.read(60);
  EXPECT_EQ(reply.rfind("HTTP/1.1 200", 0), 0u) << reply.substr(0, 200);
  holder.join();
}

TEST(ServeHostile, AnswersCarryAStrongETagAndRevalidateTo304) {
  server_process_t s({"--db", data_dir});
  auto first = s.client().Get("/api/v1/position/0");
  ASSERT_TRUE(first);
  const std::string tag = first->get_header_value("ETag");
  ASSERT_EQ(tag.size(), 18u) << tag;
  EXPECT_EQ(tag.front(), '"');  // strong: no W/
  EXPECT_EQ(first->get_header_value("Cache-Control"), "public, max-age=31536000, immutable");
  auto again = s.client().Get("/api/v1/position/0");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->get_header_value("ETag"), tag);
  for (const std::string& condition : {tag, "W/" + tag, "\"x\", " + tag, std::string("*")}) {
    auto res = s.client().Get("/api/v1/position/0", {{"If-None-Match", condition}});
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 304) << condition;
    EXPECT_EQ(res->body, "");
    EXPECT_EQ(res->get_header_value("ETag"), tag);
  }
  auto other = s.client().Get("/api/v1/position/0", {{"If-None-Match", "\"0000000000000000\""}});
  ASSERT_TRUE(other);
  EXPECT_EQ(other->status, 200);
  // A partial answer (slice 3 missing) may complete later: revalidated, not immutable.
  auto partial = s.client().Get(("/api/v1/position/" + std::string(34, '_') + "01").c_str());
  ASSERT_TRUE(partial);
  EXPECT_EQ(partial->get_header_value("Cache-Control"), "no-cache");
  auto error = s.client().Get("/api/v1/position/12x");
  ASSERT_TRUE(error);
  EXPECT_EQ(error->get_header_value("Cache-Control"), "no-store");
  EXPECT_EQ(error->get_header_value("ETag"), "");
}

TEST(ServeHostile, LowFindings) {
  server_process_t s({"--db", data_dir});
  {  // "Connection: close, TE" is a close.
    raw_connection_t c(s.port);
    c.send("GET /api/v1/health HTTP/1.1\r\nHost: x\r\nConnection: close, TE\r\n\r\n");
    const std::string reply = c.read(3);
    EXPECT_EQ(reply.rfind("HTTP/1.1 200", 0), 0u) << reply;
    EXPECT_TRUE(c.closed);
  }
  {  // A 1 MB target: 414.
    raw_connection_t c(s.port);
    c.send("GET /" + std::string(1 << 20, 'a') + " HTTP/1.1\r\nHost: x\r\n\r\n");
    const std::string reply = c.read(5);
    EXPECT_EQ(reply.rfind("HTTP/1.1 414", 0), 0u) << reply.substr(0, 100);
  }
  {  // An absolute-form target is accepted.
    raw_connection_t c(s.port);
    c.send("GET http://x/api/v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    const std::string reply = c.read(3);
    EXPECT_EQ(reply.rfind("HTTP/1.1 200", 0), 0u) << reply;
  }
  for (const std::string& request :
       {std::string("GET /api/v1/health HTTP/1.1\nHost: x\nConnection: close\n\n"),
        std::string("GET /\r\n")}) {
    // Bare LF lines and HTTP/0.9 get an answer at once, not at the timeout.
    const auto start = test_clock_t::now();
    raw_connection_t c(s.port);
    c.send(request);
    const std::string reply = c.read(10);
    EXPECT_EQ(reply.rfind("HTTP/1.1 ", 0), 0u) << request;
    EXPECT_TRUE(c.closed) << request;
    EXPECT_LT(seconds_since(start), 2.0) << request;
  }
}

}  // namespace
}  // namespace pentago
