// The shared command line of the solver programs: parsing, validation, usage, run requests.
#include "pentago/end/engine_options.h"

#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "pentago/data/compress.h"
#include "pentago/util/error.h"

namespace pentago {
namespace {

bool is(engine_program_t p, std::initializer_list<engine_program_t> programs) {
  for (const auto q : programs)
    if (p == q) return true;
  return false;
}

constexpr auto endgame = engine_program_t::endgame, local = engine_program_t::local,
               predict = engine_program_t::predict;

// The one positional ROOT: parses the cursor's word into root, with a usage_error on a second.
void take_root(const argument_cursor_t& args, section_t& root, bool& have_root) {
  if (have_root) throw usage_error_t("more than one root section given: " + args.arg());
  root = section_t::parse(args.arg());
  have_root = true;
}

}  // namespace

uint64_t physical_memory() {
  return uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGE_SIZE));
}

const char* engine_program_name(engine_program_t program) {
  switch (program) {
    case engine_program_t::endgame:
      return "pentago-endgame";
    case engine_program_t::local:
      return "pentago-endgame-local";
    case engine_program_t::predict:
      return "pentago-predict";
  }
  return "?";
}

engine_options_t::engine_options_t(engine_program_t p)
    : program(p), threads(p == engine_program_t::local ? 2 : 6) {}

bool take_engine_option(argument_cursor_t& args, engine_options_t& o, bool& have_root) {
  const std::string& arg = args.arg();
  const engine_program_t p = o.program;
  const bool mpi = is(p, {endgame, predict});  // options of MPI runs
  if (arg == "--help" || arg == "-h")
    o.help = true;
  else if (arg == "--threads")
    o.threads = int(args.int_value(p == local ? 1 : 2, 1024));
  else if (arg == "--dir" && p != predict)
    o.dir = args.value();
  else if (arg == "--save")
    o.save = int(args.int_value(-1, 35));
  else if (arg == "--level")
    o.level = int(args.int_value(0, 9));
  else if (arg == "--memory")
    o.memory = args.memory_value();
  else if (arg == "--codec") {
    const std::string name = args.value();
    o.codec_auto = name == "auto";
    o.codec = o.codec_auto ? block_codec_t::snappy : parse_block_codec(name);
  } else if (arg == "--recompute-34")
    o.recompute_34 = true;
  else if (arg == "--huge-pages" && p != predict) {
    const std::string m = args.value();
    if (m == "on")
      o.pages = page_size_t::huge;
    else if (m == "off")
      o.pages = page_size_t::base;
    else if (m == "auto")
      o.pages.reset();
    else
      throw usage_error_t("--huge-pages: expected auto, on or off, got '" + m + "'");
  } else if (arg == "--samples")
    o.samples = int(args.int_value(0, 1 << 20));
  else if (arg == "--stop-after")
    o.stop_after = int(args.int_value(0, 35));
  else if (arg == "--meaningless")
    o.meaningless = int(args.int_value(1, 35));
  else if (arg == "--quiet" && p == local)
    o.echo = false;
  else if (arg == "--ranks" && p == predict)
    o.ranks = int(args.int_value(1, 1 << 24));
  else if (arg == "--gather-limit" && p == endgame)
    o.gather_limit = int(args.int_value(1, 64));
  else if (arg == "--line-limit" && mpi)
    o.line_limit = int(args.int_value(2, 4096));
  else if (arg == "--randomize" && mpi)
    o.randomize = uint64_t(args.int_value(0, INT64_MAX));
  else if (arg == "--restart" && p == endgame)
    o.restart = args.value();
  else if (arg == "--restart" && p == predict)
    o.restart_slice = int(args.int_value(0, 35));
  else if (arg == "--checkpoint-every" && p == endgame)
    o.checkpoint_every = int(args.int_value(0, 36));
  else if (arg == "--trace" && p == endgame)
    o.trace = args.value();
  else if (arg == "--shared-memory" && mpi) {
    const std::string m = args.value();
    if (m != "on" && m != "off")
      throw usage_error_t("--shared-memory: expected on or off, got '" + m + "'");
    o.shared_memory = m == "on";
  } else if (arg == "--thread-mode" && p == endgame) {
    const std::string m = args.value();
    if (m == "funneled")
      o.mode = thread_mode_t::funneled;
    else if (m == "multiple")
      o.mode = thread_mode_t::multiple;
    else
      throw usage_error_t("--thread-mode: expected funneled or multiple, got '" + m + "'");
  } else if (arg == "--log-all" && p == endgame)
    o.log_all = true;
  else if (arg == "--per-rank-times" && p == endgame)
    o.per_rank_times = true;
  else if (arg == "--test-fail" && p == endgame) {
    // test only: RANK:SLICE
    const std::string v = args.value();
    const auto colon = v.find(':');
    if (colon == std::string::npos) throw usage_error_t("--test-fail: expected RANK:SLICE");
    o.test_fail_rank = int(parse_int_option(arg, v.substr(0, colon), 0, 1 << 30));
    o.test_fail_slice = int(parse_int_option(arg, v.substr(colon + 1), 0, 35));
  } else if (arg == "--test-slow-merge" && p == endgame) {
    // test only: RANK:MILLISECONDS per merged output block
    const std::string v = args.value();
    const auto colon = v.find(':');
    if (colon == std::string::npos) throw usage_error_t("--test-slow-merge: expected RANK:MS");
    o.test_slow_merge_rank = int(parse_int_option(arg, v.substr(0, colon), 0, 1 << 30));
    o.test_slow_merge_ms = int(parse_int_option(arg, v.substr(colon + 1), 0, 1000));
  } else if (arg == "--test-unshared-rank" && p == endgame) {
    // test only: this rank maps no other rank's shared memory slots
    o.test_unshared_rank = int(args.int_value(0, 1 << 30));
  } else if (args.is_option())
    return false;
  else
    take_root(args, o.root, have_root);
  return true;
}

void validate_engine_options(const engine_options_t& o, bool have_root) {
  if (!have_root)
    throw usage_error_t("missing ROOT section (e.g. 44444554; 00000000 is the full game)");
  if (o.program != engine_program_t::predict && o.dir.empty())
    throw usage_error_t("missing --dir DIR");
  if (o.program == engine_program_t::predict) {
    if (o.ranks < 1) throw usage_error_t("--ranks must be given (at least 1)");
    if (o.memory == 0) throw usage_error_t("--memory must be given");
  }
  // The slices of the run (root, --meaningless, --stop-after, a predicted restart slice).
  validate_run(
      make_run_request(o, std::max(o.ranks, 1), std::max<uint64_t>(o.memory, 1), o.restart_slice));
}

engine_options_t parse_engine_options(engine_program_t program, int argc, char** argv) {
  engine_options_t o(program);
  for (int i = 0; i < argc; i++) o.arguments.push_back(argv[i]);
  argument_cursor_t args(argc, argv);
  bool have_root = false;
  while (args.next())
    if (!take_engine_option(args, o, have_root)) args.unknown();
  if (o.help) return o;
  validate_engine_options(o, have_root);
  return o;
}

// --codec's lines, from the codec table (data/compress.h), wrapped under the option's column.
static std::string codec_usage() {
  std::string text = "in-core block codec: ";
  const auto rows = block_codecs();
  for (size_t i = 0; i < rows.size(); i++)
    text += std::string(rows[i].name) + " (" + rows[i].summary + ")" +
            (i + 1 < rows.size() ? ", " : "");
  std::vector<const block_codec_row_t*> order;
  for (const block_codec_row_t& row : rows)
    if (row.auto_place > 0) order.push_back(&row);
  std::sort(order.begin(), order.end(),
            [](const auto* a, const auto* b) { return a->auto_place < b->auto_place; });
  text += " or auto (the default: the first of";
  for (size_t i = 0; i < order.size(); i++) text += (i ? ", " : " ") + std::string(order[i]->name);
  text += " whose plan fits)";
  const std::string indent(23, ' ');
  std::string out = "  --codec NAME" + std::string(9, ' '), line;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    if (!line.empty() && indent.size() + line.size() + 1 + word.size() > 92) {
      out += line + "\n" + indent;
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    start = end + 1;
  }
  return out + line + "\n";
}

std::string engine_usage(engine_program_t p) {
  std::string s;
  auto add = [&](std::initializer_list<engine_program_t> programs, const char* text) {
    if (is(p, programs)) s += text;
  };
  add({endgame, predict},
      "  --threads T          threads per rank: 1 communication + T-1 workers (default 6, >= 2)\n");
  add({local}, "  --threads N          worker threads (default 2)\n");
  add({endgame, local},
      "  --dir DIR            new output directory (required; never overwritten)\n");
  add({endgame, local, predict},
      "  --save N             write slice-N.pentago (and its .index) for slices <= N\n"
      "                       (default 18 in every solver program; -1 none)\n");
  add({endgame, local, predict},
      "  --level P            xz preset of slice files, 0..9 (default 6, as published)\n");
  add({endgame},
      "  --memory SIZE        memory per rank, e.g. 7G (default: half this node's share)\n");
  add({local}, "  --memory SIZE        memory limit, e.g. 4G (default: half of physical memory)\n");
  add({predict},
      "  --ranks R            MPI ranks (required)\n"
      "  --memory SIZE        memory per rank, e.g. 7G (required)\n");
  add({endgame}, "  --gather-limit N     lines gathering inputs at once (default 16, 1..64)\n");
  add({endgame, predict},
      "  --line-limit N       lines allocated at once per rank (default 32, >= 2)\n");
  add({endgame, local, predict},
      "  --samples K          sparse samples per section (default 256)\n");
  if (is(p, {endgame, local, predict})) s += codec_usage();
  add({endgame, local, predict},
      "  --recompute-34       do not store slice 34: slice 33 computes each block it reads\n"
      "                       again from slice 35 (where 33 is computed and 34 not saved)\n");
  add({endgame, local},
      "  --huge-pages MODE    the arena and partial blocks on transparent huge pages: on, off\n"
      "                       or auto (the default: where their first touch costs less)\n");
  add({endgame, predict},
      "  --shared-memory MODE on (default): blocks between the ranks of one node pass through\n"
      "                       shared memory (16 MiB mapped per rank); off: inside MPI messages\n");
  add({endgame, predict},
      "  --randomize KEY      partition key (default 17; 0 = simple deterministic partition)\n");
  add({endgame, local, predict},
      "  --stop-after S       lowest slice to compute (default: the root's slice)\n");
  add({endgame},
      "  --restart FILE       resume from a saved slice file (any rank count and key)\n"
      "  --checkpoint-every K write a restart file every K slices (also on SIGUSR1/SIGTERM;\n"
      "                       not of a slice the one below recomputes: 35, or 34 with\n"
      "                       --recompute-34)\n");
  add({predict}, "  --restart N          the run restarts from a slice-N file\n");
  add({endgame, local, predict},
      "  --meaningless K      synthesize slice K pseudorandomly and solve below it (test mode)\n");
  add({endgame},
      "  --thread-mode MODE   funneled (only the communication thread calls MPI; default)\n"
      "                       or multiple (workers send outputs themselves)\n"
      "  --log-all            every rank writes DIR/log-<rank>\n"
      "  --per-rank-times     per-rank activity times in the slice reports\n"
      "  --trace FILE         write a Chrome trace (open in Perfetto or chrome://tracing)\n");
  add({local}, "  --quiet              write progress only to DIR/log\n");
  return s;
}

int engine_workers(const engine_options_t& o) {
  return o.program == engine_program_t::local ? o.threads : o.threads - 1;
}

run_request_t make_run_request(const engine_options_t& o, int ranks, uint64_t memory,
                               int restart_slice) {
  run_request_t r;
  r.root = o.root;
  r.ranks = ranks;
  r.workers = engine_workers(o);
  r.memory = memory;
  r.meaningless = o.meaningless;
  r.stop_after = o.stop_after;
  r.restart_slice = restart_slice;
  r.samples = o.samples;
  r.codec = o.codec;
  r.codec_auto = o.codec_auto;
  r.recompute_34 = o.recompute_34;
  r.shared_memory = o.shared_memory;
  // In one process every worker computes one line at a time.
  r.line_limit = o.program == engine_program_t::local ? o.threads : o.line_limit;
  r.save = o.save;
  r.level = o.level;
  // pentago-endgame-local writes in batches; pentago-endgame (and its prediction) holds the
  // rank's compressed part of the file until the collective write.
  r.holds_file = o.program != engine_program_t::local;
  return r;
}

}  // namespace pentago
