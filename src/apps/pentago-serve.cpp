// pentago-serve: the JSON API and web explorer over the query path (docs/api.md).
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <thread>

#include "pentago/serve/server.h"
#include "pentago/util/error.h"

namespace {

int run(int argc, char** argv) {
  const pentago::serve_options options = pentago::parse_serve_options(argc, argv);
  // SIGINT and SIGTERM are taken by one waiting thread (blocked everywhere else, including the
  // server's threads created below), which stops the server: no work in a signal handler.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);

  pentago::server server(options);
  const int port = server.bind();
  std::printf("pentago-serve: listening on http://%s:%d/\n", options.bind.c_str(), port);
  std::fflush(stdout);
  std::atomic<bool> finished{false};
  std::thread waiter([&] {
    int signal = 0;
    sigwait(&stop_signals, &signal);
    // A signal that comes before run() starts listening would be lost: repeat until it ends.
    while (!finished) {
      server.stop();
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  const bool ok = server.run();
  finished = true;
  // Wakes the waiter if the server ended by itself (its signal is then taken by sigwait).
  pthread_kill(waiter.native_handle(), SIGTERM);
  waiter.join();
  if (!ok) throw pentago::error("the server stopped listening unexpectedly");
  std::printf("pentago-serve: stopped\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; i++)
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::fputs(pentago::serve_usage, stdout);
      return 0;
    }
  try {
    return run(argc, argv);
  } catch (const pentago::usage_error& e) {
    std::fprintf(stderr, "pentago-serve: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pentago-serve: error: %s\n", e.what());
    return 1;
  }
}
