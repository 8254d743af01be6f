// Tests of remote databases against a real HTTP server: Debian's nginx, started by the test on
// a free loopback port with a temporary configuration, serving the published slices. Answers
// equal the local ones; concurrent queries fetch each block once; an unreachable host, a
// missing database and a corrupted copy are clear errors.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include "pentago/data/supertensor.h"
#include "pentago/query/query.h"
#include "pentago/util/error.h"
#include "test_support.h"

using namespace pentago;
namespace fs = std::filesystem;

namespace {

const std::string published = PENTAGO_SHARED_DATA;
const char nginx_path[] = "/usr/sbin/nginx";

// A loopback port nobody listens on right now.
int free_port() {
  const int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(a);
  if (s < 0 || ::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof(a)) ||
      ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len))
    throw std::runtime_error("cannot find a free port");
  ::close(s);
  return ntohs(a.sin_port);
}

bool accepts(int port) {
  const int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(uint16_t(port));
  const bool ok = ::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0;
  ::close(s);
  return ok;
}

// nginx serving `root` (in the foreground, one process) until destroyed.
class nginx_server_t {
 public:
  explicit nginx_server_t(const std::string& root) {
    dir_ = fs::path(PENTAGO_BINARY_DIR) / "test-runs" / ("nginx-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "tmp");
    port_ = free_port();
    const std::string d = dir_.string();
    std::ofstream(dir_ / "nginx.conf")
        << "daemon off;\nmaster_process off;\nworker_processes 1;\npid " << d
        << "/nginx.pid;\nerror_log " << d << "/error.log;\nevents { worker_connections 64; }\n"
        << "http {\n  access_log off;\n  client_body_temp_path " << d << "/tmp;\n"
        << "  proxy_temp_path " << d << "/tmp;\n  fastcgi_temp_path " << d << "/tmp;\n"
        << "  uwsgi_temp_path " << d << "/tmp;\n  scgi_temp_path " << d << "/tmp;\n"
        << "  server {\n    listen 127.0.0.1:" << port_ << ";\n    root " << root << ";\n  }\n}\n";
    pid_ = ::fork();
    if (pid_ == 0) {
      const int null = ::open("/dev/null", O_WRONLY);
      ::dup2(null, 1), ::dup2(null, 2);
      ::execl(nginx_path, "nginx", "-p", d.c_str(), "-e", (d + "/error.log").c_str(), "-c",
              (d + "/nginx.conf").c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    for (int i = 0; i < 500 && !accepts(port_); i++) {
      int status;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  ~nginx_server_t() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, nullptr, 0);
    }
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  bool running() const { return pid_ > 0 && accepts(port_); }
  std::string url(const std::string& path = "") const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }
  std::string log() const {
    std::ifstream in(dir_ / "error.log");
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

 private:
  fs::path dir_;
  int port_ = 0;
  pid_t pid_ = -1;
};

// Swaps two 12-byte records of a sidecar: blocks of equal compressed size, so that both still
// decode (to each other's values).
void swap_sidecar_records(const fs::path& sidecar) {
  std::fstream f(sidecar, std::ios::in | std::ios::out | std::ios::binary);
  const auto record = [&](int k) {
    std::string r(slice_index_entry_size, '\0');
    f.seekg(std::streamoff(slice_index_header_size + slice_index_entry_size * k));
    f.read(r.data(), std::streamsize(r.size()));
    return r;
  };
  int first = -1, second = -1;
  for (int a = 0; a < 5 && second < 0; a++)
    for (int b = a + 1; b < 5 && second < 0; b++)
      if (record(a).substr(8) == record(b).substr(8)) first = a, second = b;
  if (second < 0) throw std::runtime_error("no two blocks of equal size in " + sidecar.string());
  const std::string ra = record(first), rb = record(second);
  f.seekp(std::streamoff(slice_index_header_size + slice_index_entry_size * first));
  f.write(rb.data(), std::streamsize(rb.size()));
  f.seekp(std::streamoff(slice_index_header_size + slice_index_entry_size * second));
  f.write(ra.data(), std::streamsize(ra.size()));
}

// The directory served: the published slices, a corrupted copy of slice 1 under bad/, and under
// swapped/ the published slices with two records of slice 2's sidecar swapped.
struct served_tree_t {
  fs::path root;
  served_tree_t() {
    root = fs::path(PENTAGO_BINARY_DIR) / "test-runs" / ("served-" + std::to_string(getpid()));
    fs::remove_all(root);
    fs::create_directories(root / "bad");
    fs::create_directories(root / "empty");
    fs::create_directories(root / "swapped");
    for (const char* name : {"slice-0.pentago", "slice-0.pentago.index", "slice-1.pentago",
                             "slice-1.pentago.index", "slice-2.pentago", "slice-2.pentago.index"})
      fs::copy_file(fs::path(published) / name, root / "swapped" / name);
    fs::permissions(root / "swapped" / "slice-2.pentago.index", fs::perms::owner_write,
                    fs::perm_options::add);
    swap_sidecar_records(root / "swapped" / "slice-2.pentago.index");
    fs::create_directory_symlink(published, root / "data");
    for (const char* name : {"slice-1.pentago", "slice-1.pentago.index"})
      fs::copy_file(fs::path(published) / name, root / "bad" / name);
    const std::string path = (root / "bad" / "slice-1.pentago").string();
    test::corrupt_first_block(path);
  }
  ~served_tree_t() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
};

class remote : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (::access(nginx_path, X_OK)) return;
    tree_ = new served_tree_t;
    server_ = new nginx_server_t(tree_->root.string());
  }
  static void TearDownTestSuite() {
    delete server_;
    delete tree_;
    server_ = nullptr, tree_ = nullptr;
  }
  void SetUp() override {
    if (!server_) GTEST_SKIP() << "SKIPPED: " << nginx_path << " is not installed (nginx-light)";
    ASSERT_TRUE(server_->running()) << "nginx did not start: " << server_->log();
  }
  static query_options_t options(const std::string& db) {
    query_options_t o;
    o.databases = {db};
    return o;
  }
  static served_tree_t* tree_;
  static nginx_server_t* server_;
};
served_tree_t* remote::tree_ = nullptr;
nginx_server_t* remote::server_ = nullptr;

std::vector<position_t> sample_positions() {
  std::vector<position_t> result = {{0, false}};
  for (int c = 0; c < 36; c += 5) {
    const board_t one = pack(cell_bit(c / 6, c % 6), 0);
    result.push_back({one, false});
    result.push_back({one, true});
    result.push_back({pack(cell_bit(c / 6, c % 6), cell_bit((c + 7) % 6, (c / 6 + 3) % 6)), true});
  }
  return result;
}

}  // namespace

TEST_F(remote, answers_equal_the_local_ones) {
  query_engine_t local(options(published));
  query_engine_t far(options(server_->url("/data/")));
  EXPECT_EQ(far.slices(), local.slices());
  for (const position_t p : sample_positions()) {
    const position_answer_t a = local.answer(p), b = far.answer(p);
    EXPECT_EQ(b.value, a.value) << position_code(p);
    EXPECT_EQ(b.slice, a.slice);
    ASSERT_EQ(b.moves.size(), a.moves.size());
    for (size_t i = 0; i < a.moves.size(); i++) {
      EXPECT_EQ(b.moves[i].move, a.moves[i].move);
      EXPECT_EQ(b.moves[i].value, a.moves[i].value);
      ASSERT_EQ(b.moves[i].rotations.size(), a.moves[i].rotations.size());
      for (size_t r = 0; r < a.moves[i].rotations.size(); r++)
        EXPECT_EQ(b.moves[i].rotations[r].value, a.moves[i].rotations[r].value);
    }
    // The JSON differs only in the time taken.
    position_answer_t a0 = a, b0 = b;
    a0.elapsed_ms = b0.elapsed_ms = 0;
    EXPECT_EQ(answer_json(a0), answer_json(b0));
  }
  EXPECT_GT(far.stats().http_requests, 0u);
}

TEST_F(remote, concurrent_queries_fetch_each_block_once) {
  // The one-stone positions, whose children share blocks of slice 2.
  std::vector<position_t> positions;
  for (int c = 0; c < 36; c++) positions.push_back({pack(cell_bit(c / 6, c % 6), 0), false});
  uint64_t alone;
  {
    query_engine_t e(options(server_->url("/data")));
    const uint64_t opening = e.stats().http_requests;
    for (const auto& p : positions) (void)e.answer(p);
    alone = e.stats().http_requests - opening;
    EXPECT_GT(alone, 0u);
  }
  query_engine_t e(options(server_->url("/data")));
  const uint64_t opening = e.stats().http_requests;
  std::vector<std::thread> threads;
  std::atomic<int> next{0};
  for (int t = 0; t < 8; t++)
    threads.emplace_back([&] {
      for (int i; (i = next++) < int(positions.size());) (void)e.answer(positions[size_t(i)]);
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(e.stats().http_requests - opening, alone);
}

TEST_F(remote, an_unreachable_host_is_a_clear_error) {
  query_options_t o = options("http://127.0.0.1:" + std::to_string(free_port()));
  const auto start = std::chrono::steady_clock::now();
  try {
    query_engine_t e(o);
    FAIL() << "opened a database on a closed port";
  } catch (const pentago_error_t& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("cannot fetch http://127.0.0.1:"), std::string::npos) << what;
    EXPECT_NE(what.find("3 attempts"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  // A reachable server without slices.
  EXPECT_THROW(query_engine_t(options(server_->url("/empty"))), pentago_error_t);
}

TEST_F(remote, a_corrupt_block_is_refetched_then_reported) {
  query_engine_t e(options(server_->url("/bad")));
  EXPECT_EQ(e.slices(), std::vector<int>{1});
  const uint64_t opening = e.stats().http_requests;
  try {
    (void)e.answer({0, false});
    FAIL() << "a corrupt block was accepted";
  } catch (const pentago_error_t& err) {
    const std::string what = err.what();
    EXPECT_NE(what.find("/bad/slice-1.pentago"), std::string::npos) << what;
    EXPECT_NE(what.find("corrupt"), std::string::npos) << what;
    EXPECT_NE(what.find("after 3 fetches"), std::string::npos) << what;
  }
  EXPECT_GE(e.stats().http_requests - opening, 3u);
}

// A sidecar whose records disagree with its file's block index gives errors, never values.
TEST_F(remote, a_sidecar_that_disagrees_with_its_file_is_an_error) {
  query_engine_t local(options(published));
  query_engine_t far(options(server_->url("/swapped")));
  int refused = 0;
  for (int c = 0; c < 36; c++) {
    const position_t p{pack(cell_bit(c / 6, c % 6), 0), false};  // its children: slice 2
    const position_answer_t expected = local.answer(p);
    try {
      const position_answer_t a = far.answer(p);
      ASSERT_EQ(a.moves.size(), expected.moves.size());
      for (size_t i = 0; i < a.moves.size(); i++)
        for (size_t r = 0; r < a.moves[i].rotations.size(); r++)
          EXPECT_EQ(a.moves[i].rotations[r].value, expected.moves[i].rotations[r].value)
              << position_code(p) << " " << a.moves[i].move << " " << a.moves[i].rotations[r].move;
    } catch (const pentago_error_t& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("slice-2.pentago.index disagrees with its slice file"), std::string::npos)
          << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
      refused++;
    }
  }
  EXPECT_GT(refused, 0) << "no position read the swapped blocks";
}

// A database's requests, retries included, take at most its timeout: a server that accepts
// connections and never answers fails the opening within that bound.
TEST(remote_timeout, a_stalled_server_fails_within_the_timeout) {
  const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(a);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
  ASSERT_EQ(::listen(listener, 64), 0);  // the kernel completes connections; nobody answers
  ASSERT_EQ(::getsockname(listener, reinterpret_cast<sockaddr*>(&a), &len), 0);
  query_options_t o;
  o.databases = {"http://127.0.0.1:" + std::to_string(ntohs(a.sin_port))};
  o.fetch_timeout_seconds = 1.5;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(query_engine_t{o}, pentago_error_t);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 3.0);
  ::close(listener);
}

namespace {

// A hostile range server: answers every request with `reply(range_first, range_last)` and
// closes; runs until destroyed.
class canned_server_t {
 public:
  explicit canned_server_t(std::function<std::string(uint64_t, uint64_t)> reply)
      : reply_(std::move(reply)) {
    listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(a);
    if (::bind(listener_, reinterpret_cast<sockaddr*>(&a), sizeof(a)) || ::listen(listener_, 64) ||
        ::getsockname(listener_, reinterpret_cast<sockaddr*>(&a), &len))
      throw std::runtime_error("cannot listen");
    port = ntohs(a.sin_port);
    thread_ = std::thread([this] {
      for (;;) {
        const int fd = ::accept(listener_, nullptr, nullptr);
        if (fd < 0 || stop_) break;
        std::string request;
        char buffer[4096];
        while (request.find("\r\n\r\n") == std::string::npos) {
          const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
          if (n <= 0) break;
          request.append(buffer, size_t(n));
        }
        uint64_t first = 0, last = 0;
        const size_t at = request.find("Range: bytes=");
        if (at != std::string::npos)
          std::sscanf(request.c_str() + at, "Range: bytes=%lu-%lu", &first, &last);
        const std::string response = reply_(first, last);
        (void)!::send(fd, response.data(), response.size(), MSG_NOSIGNAL);
        ::close(fd);
      }
    });
  }
  ~canned_server_t() {
    stop_ = true;
    ::shutdown(listener_, SHUT_RDWR);
    ::close(listener_);
    thread_.join();
  }
  int port = 0;

 private:
  std::function<std::string(uint64_t, uint64_t)> reply_;
  int listener_ = -1;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// The reason a database at `url` is refused with (one line expected).
std::string open_failure(const std::string& url) {
  query_options_t o;
  o.databases = {url};
  o.fetch_timeout_seconds = 5;
  o.fetch_attempts = 1;
  try {
    query_engine_t engine(o);
  } catch (const pentago_error_t& e) {
    return e.what();
  }
  return "(opened)";
}

}  // namespace

TEST(remote_hostile, raw_content_range_bytes_never_reach_the_message) {
  canned_server_t server([](uint64_t, uint64_t) {
    return std::string("HTTP/1.1 206 Partial Content\r\nContent-Range: bytes \x1b[2J\x07\x1b]0;x") +
           "\x07 0-3/9\r\nContent-Length: 4\r\nConnection: close\r\n\r\nabcd";
  });
  const std::string why = open_failure("http://127.0.0.1:" + std::to_string(server.port));
  EXPECT_NE(why.find("Content-Range"), std::string::npos) << why;
  for (const char c : why) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << why;
  EXPECT_NE(why.find("\\x1b"), std::string::npos) << why;
}

TEST(remote_hostile, an_encoded_range_is_named_as_such) {
  canned_server_t server([](uint64_t first, uint64_t last) {
    const std::string body(last - first + 6, 'z');  // "compressed" bytes, not the file's
    return "HTTP/1.1 206 Partial Content\r\nContent-Encoding: gzip\r\nContent-Range: bytes " +
           std::to_string(first) + "-" + std::to_string(last) +
           "/1000000\r\nContent-Length: " + std::to_string(body.size()) +
           "\r\nConnection: close\r\n\r\n" + body;
  });
  const std::string why = open_failure("http://127.0.0.1:" + std::to_string(server.port));
  EXPECT_NE(why.find("Content-Encoding 'gzip'"), std::string::npos) << why;
  EXPECT_EQ(why.find("ignores HTTP Range"), std::string::npos) << why;
}
