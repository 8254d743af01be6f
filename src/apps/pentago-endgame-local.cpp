// pentago-endgame-local: the in-process (threads only) backward solver.
#include <cstdio>
#include <cstring>

#include "pentago/end/local_driver.h"
#include "pentago/util/error.h"

int main(int argc, char** argv) {
  using namespace pentago;
  for (int i = 1; i < argc; i++)
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::fputs(local_usage().c_str(), stdout);
      return 0;
    }
  try {
    run_local(parse_local_options(argc, argv));
    return 0;
  } catch (const usage_error& e) {
    std::fprintf(stderr, "pentago-endgame-local: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pentago-endgame-local: error: %s\n", e.what());
    return 1;
  }
}
