// Ten lines against an installed pentago: prints the JSON answer for a board and databases.
#include <cstdio>

#include "pentago/query/query.h"

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  pentago::query_options_t options;
  for (int i = 2; i < argc; i++) options.databases.push_back(argv[i]);
  pentago::query_engine_t engine(options);
  std::printf("%s\n", answer_json(engine.answer(pentago::parse_position(argv[1]))).c_str());
}
