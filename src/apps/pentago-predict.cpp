// pentago-predict: memory, load, output and time of an MPI run, and whether it fits.
#include <cstdio>
#include <cstring>

#include "pentago/db/predict.h"
#include "pentago/util/error.h"

int main(int argc, char** argv) {
  using namespace pentago;
  for (int i = 1; i < argc; i++)
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::fputs(predict_usage().c_str(), stdout);
      return 0;
    }
  try {
    const predict_options options = parse_predict_options(argc, argv);
    const prediction p = predict(options);
    std::fputs(format_prediction(options, p).c_str(), stdout);
    if (!p.fits) {
      std::fflush(stdout);
      std::fprintf(stderr, "pentago-predict: does not fit: %s\n", p.reason.c_str());
      return 1;
    }
    return 0;
  } catch (const usage_error& e) {
    std::fprintf(stderr, "pentago-predict: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pentago-predict: error: %s\n", e.what());
    return 1;
  }
}
