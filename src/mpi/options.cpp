// Parsing and validation of pentago-endgame's options.
#include "pentago/mpi/options.h"

#include "pentago/end/run_options.h"
#include "pentago/util/error.h"

namespace pentago {

std::string endgame_usage() {
  return "usage: mpirun -n RANKS pentago-endgame [options] --dir DIR ROOT\n"
         "Strongly solves every descendant section of ROOT (8 digits b0w0b1w1b2w2b3w3; the full\n"
         "game is 00000000) by parallel retrograde analysis from slice 35 down.\n"
         "  --threads T          threads per rank: 1 communication + T-1 workers (default 6, >= "
         "2)\n"
         "  --dir DIR            new output directory (required; never overwritten)\n"
         "  --save N             write slice-N.pentago for slices <= N (default 18; -1 none)\n"
         "  --level P            xz preset of slice files, 0..9 (default 6, as published)\n"
         "  --memory SIZE        memory per rank, e.g. 7G (default: half this node's share)\n"
         "  --gather-limit N     lines gathering inputs at once (default 4, 1..64)\n"
         "  --line-limit N       lines allocated at once (default 8, >= 2)\n"
         "  --samples K          sparse samples per section (default 256)\n"
         "  --randomize KEY      partition key (default 17; 0 = simple deterministic partition)\n"
         "  --stop-after S       lowest slice to compute (default: the root's slice)\n"
         "  --restart FILE       resume from a saved slice file (any rank count and key)\n"
         "  --checkpoint-every K write a restart file every K slices (also on SIGUSR1/SIGTERM)\n"
         "  --meaningless K      synthesize slice K pseudorandomly and solve below it (test mode)\n"
         "  --thread-mode MODE   funneled (only the communication thread calls MPI; default)\n"
         "                       or multiple (workers send outputs themselves)\n"
         "  --log-all            every rank writes DIR/log-<rank>\n"
         "  --per-rank-times     per-rank activity times in the slice reports\n"
         "  --trace FILE         write a Chrome trace (open in Perfetto or chrome://tracing)\n"
         "  --help               this text\n";
}

endgame_options parse_endgame_options(int argc, char** argv) {
  endgame_options o;
  argument_cursor args(argc, argv);
  bool have_root = false;
  while (args.next()) {
    const std::string& arg = args.arg();
    auto value = [&] { return args.value(); };
    if (arg == "--help" || arg == "-h")
      o.help = true;
    else if (arg == "--threads")
      o.threads = int(parse_int_option(arg, value(), 2, 1024));
    else if (arg == "--dir")
      o.dir = value();
    else if (arg == "--save")
      o.save = int(parse_int_option(arg, value(), -1, 35));
    else if (arg == "--level")
      o.level = int(parse_int_option(arg, value(), 0, 9));
    else if (arg == "--memory")
      o.memory = parse_memory_option(arg, value());
    else if (arg == "--gather-limit")
      o.gather_limit = int(parse_int_option(arg, value(), 1, 64));
    else if (arg == "--line-limit")
      o.line_limit = int(parse_int_option(arg, value(), 2, 4096));
    else if (arg == "--samples")
      o.samples = int(parse_int_option(arg, value(), 0, 1 << 20));
    else if (arg == "--randomize")
      o.randomize = uint64_t(parse_int_option(arg, value(), 0, INT64_MAX));
    else if (arg == "--stop-after")
      o.stop_after = int(parse_int_option(arg, value(), 0, 35));
    else if (arg == "--restart")
      o.restart = value();
    else if (arg == "--checkpoint-every")
      o.checkpoint_every = int(parse_int_option(arg, value(), 0, 36));
    else if (arg == "--meaningless")
      o.meaningless = int(parse_int_option(arg, value(), 1, 35));
    else if (arg == "--thread-mode") {
      const std::string m = value();
      if (m == "funneled")
        o.mode = thread_mode::funneled;
      else if (m == "multiple")
        o.mode = thread_mode::multiple;
      else
        throw usage_error("--thread-mode: expected funneled or multiple, got '" + m + "'");
    } else if (arg == "--log-all")
      o.log_all = true;
    else if (arg == "--per-rank-times")
      o.per_rank_times = true;
    else if (arg == "--trace")
      o.trace = value();
    else if (arg == "--test-fail") {
      // test only: RANK:SLICE
      const std::string v = value();
      const auto colon = v.find(':');
      if (colon == std::string::npos) throw usage_error("--test-fail: expected RANK:SLICE");
      o.test_fail_rank = int(parse_int_option(arg, v.substr(0, colon), 0, 1 << 30));
      o.test_fail_slice = int(parse_int_option(arg, v.substr(colon + 1), 0, 35));
    } else if (args.is_option())
      args.unknown();
    else
      take_root(args, o.root, have_root);
  }
  if (o.help) return o;
  if (!have_root)
    throw usage_error("missing ROOT section (e.g. 44444554; 00000000 is the full game)");
  if (o.dir.empty()) throw usage_error("missing --dir DIR");
  if (o.root.sum() >= 36) throw usage_error("root " + o.root.str() + " has no empty cell");
  const int root_slice = o.root.sum();
  if (o.meaningless && o.meaningless < root_slice)
    throw usage_error("--meaningless " + std::to_string(o.meaningless) +
                      " is below the root's slice " + std::to_string(root_slice));
  if (o.stop_after >= 0 && o.stop_after < root_slice)
    throw usage_error("--stop-after " + std::to_string(o.stop_after) +
                      " is below the root's slice " + std::to_string(root_slice));
  const int top = o.meaningless ? o.meaningless - 1 : 35;
  if (o.stop_after > top)
    throw usage_error("--stop-after " + std::to_string(o.stop_after) +
                      " leaves nothing to compute");
  return o;
}

}  // namespace pentago
