// pentago-predict: memory, load, output and time of an MPI run, and whether it fits.
#include <cstdio>

#include "cli.h"
#include "pentago/plan/predict.h"
#include "pentago/plan/stages.h"

int main(int argc, char** argv) {
  using namespace pentago;
  // --stages: the staged plan of a run over jobs of their own node counts (pentago/plan/stages.h).
  if (stages_requested(argc, argv))
    return cli::run_main("pentago-predict", stages_usage(), argc, argv, [](int argc, char** argv) {
      const stage_options_t options = parse_stage_options(argc, argv);
      const stage_plan_t plan = plan_stages(options);
      std::fputs(format_stage_plan(options, plan).c_str(), stdout);
      if (!plan.fits) throw pentago_error_t("does not fit: " + plan.reason);
      return 0;
    });
  return cli::run_main("pentago-predict", predict_usage(), argc, argv, [](int argc, char** argv) {
    const predict_options_t options = parse_predict_options(argc, argv);
    const prediction_t p = predict(options);
    std::fputs(format_prediction(options, p).c_str(), stdout);
    if (!p.fits) throw pentago_error_t("does not fit: " + p.reason);
    return 0;
  });
}
