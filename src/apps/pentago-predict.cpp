// pentago-predict: memory, load, output and time of an MPI run, and whether it fits.
#include <cstdio>

#include "cli.h"
#include "pentago/db/predict.h"

int main(int argc, char** argv) {
  using namespace pentago;
  return cli::run_main("pentago-predict", predict_usage(), argc, argv, [](int argc, char** argv) {
    const predict_options options = parse_predict_options(argc, argv);
    const prediction p = predict(options);
    std::fputs(format_prediction(options, p).c_str(), stdout);
    if (!p.fits) throw error("does not fit: " + p.reason);
    return 0;
  });
}
