// pentago-serve: the JSON API and web explorer over the query path (docs/api.md).
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "cli.h"
#include "pentago/serve/server.h"

namespace {

int run(int argc, char** argv) {
  const pentago::serve_options_t options = pentago::parse_serve_options(argc, argv);
  // SIGINT and SIGTERM are taken by one waiting thread (blocked everywhere else, including the
  // server's threads created below), which stops the server: no work in a signal handler.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);

  pentago::server_t server(options);
  const std::string no_gpu = server.midgame_gpu_unavailable();
  if (!no_gpu.empty())
    std::fprintf(stderr, "pentago-serve: --gpu: %s; the CPU midgame solver answers\n",
                 no_gpu.c_str());
  const int port = server.bind();
  std::printf("pentago-serve: listening on http://%s:%d/\n", options.bind.c_str(), port);
  std::fflush(stdout);
  std::atomic<bool> finished{false};
  std::thread waiter([&] {
    int signal = 0;
    sigwait(&stop_signals, &signal);
    if (!finished) server.stop();  // also before run() starts: run() then returns at once
  });
  bool finished_cleanly = true;
  try {
    finished_cleanly = server.run();
  } catch (...) {
    finished = true;
    pthread_kill(waiter.native_handle(), SIGTERM);
    waiter.join();
    throw;
  }
  finished = true;
  // Wakes the waiter if the server ended by itself (its signal is then taken by sigwait).
  pthread_kill(waiter.native_handle(), SIGTERM);
  waiter.join();
  if (!finished_cleanly) {
    // A midgame solve is still under way: its answer has no one to go to; end now.
    std::printf("pentago-serve: stopped (abandoning the solves under way)\n");
    std::fflush(nullptr);
    std::_Exit(0);
  }
  std::printf("pentago-serve: stopped\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return pentago::cli::run_main("pentago-serve", pentago::serve_usage, argc, argv, run);
}
