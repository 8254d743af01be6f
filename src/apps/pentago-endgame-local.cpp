// pentago-endgame-local: the in-process (threads only) backward solver.
#include "cli.h"
#include "pentago/end/local_driver.h"

int main(int argc, char** argv) {
  using namespace pentago;
  return cli::run_main("pentago-endgame-local", local_usage(), argc, argv,
                       [](int argc, char** argv) {
                         run_local(parse_local_options(argc, argv));
                         return 0;
                       });
}
