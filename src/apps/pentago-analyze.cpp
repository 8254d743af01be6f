// pentago-analyze: the paper's counting numbers (boards up to symmetry, layout sizes, overcount
// and branching factor) as plain tables or JSON.
#include <cstdio>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "cli.h"
#include "pentago/layout/counting.h"
#include "pentago/layout/section.h"
#include "pentago/util/error.h"

using namespace pentago;

namespace {

const char* const usage_text =
    "usage: pentago-analyze <command> [options]\n"
    "\n"
    "Counting numbers of the pentago solution (Irving 2014, section III).\n"
    "\n"
    "commands:\n"
    "  counts        boards per slice: all, up to the 8 global symmetries, up to all 2048\n"
    "  sizes [ROOT]  standardized sections, nodes, blocks and block lines per slice\n"
    "  ratio         overcount of the data layout (rotation abstraction and sections)\n"
    "  branch        average branching factor without and with quadrant rotations\n"
    "\n"
    "options (every command):\n"
    "  --json        print the same data as one JSON object\n"
    "  --help        describe the command\n";

const char* const counts_help =
    "usage: pentago-analyze counts [--json]\n"
    "\n"
    "For each slice n = 0..36 (ceil(n/2) black and floor(n/2) white stones): the number of\n"
    "boards C(36,n)*C(n,floor(n/2)); the number up to the 8 global symmetries (D4); and the\n"
    "number up to the 2048-element group of global symmetries and local quadrant rotations.\n"
    "Both reduced columns use Burnside's lemma over the cell permutations of the group.\n"
    "The last row holds the totals.\n";

const char* const sizes_help =
    "usage: pentago-analyze sizes [ROOT] [--json]\n"
    "\n"
    "Layout sizes per slice of the standardized sections descending from ROOT (8 digits\n"
    "b0w0b1w1b2w2b3w3 or <n>-<8 digits>; default 00000000, the whole game, slices 0..36):\n"
    "sections, nodes (sum of section shape products), blocks (sum of prod ceil(shape/8)),\n"
    "block lines along all 4 dimensions, and lines computed (along non-full quadrants only).\n"
    "Slice 36 holds the standardized children of slice 35. The last row holds the totals.\n";

const char* const ratio_help =
    "usage: pentago-analyze ratio [--json]\n"
    "\n"
    "Overcount of the data layout relative to one entry per position up to D4, slices 0..36:\n"
    "rotation abstraction 256 * sum(count2048) / sum(count8), sections sum(nodes) /\n"
    "sum(count2048), and their product.\n";

const char* const branch_help =
    "usage: pentago-analyze branch [--json]\n"
    "\n"
    "Average branching factor over all positions up to D4 (slices 0..36):\n"
    "sum((36-n) * count8(n)) / sum(count8(n)) stone placements, times 8 with the quadrant\n"
    "rotation that follows each placement.\n";

// A plain-text table: the first column left-aligned, the others right-aligned.
void print_table(const std::vector<std::string>& header,
                 const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> widths(header.size());
  for (size_t c = 0; c < header.size(); c++) widths[c] = header[c].size();
  for (const auto& row : rows)
    for (size_t c = 0; c < row.size(); c++) widths[c] = std::max(widths[c], row[c].size());
  auto print_row = [&](const std::vector<std::string>& row) {
    std::string line;
    for (size_t c = 0; c < row.size(); c++) {
      if (c) line += "  ";
      const std::string pad(widths[c] - row[c].size(), ' ');
      line += c ? pad + row[c] : row[c] + pad;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    std::cout << line << '\n';
  };
  print_row(header);
  for (const auto& row : rows) print_row(row);
}

std::string fixed(double x, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*f", digits, x);
  return buffer;
}

std::string percent(double ratio) { return fixed(100 * (ratio - 1), 1) + "%"; }

void run_counts(bool json) {
  uint64_t total_all = 0, total8 = 0, total2048 = 0;
  std::vector<std::vector<std::string>> rows;
  std::ostringstream slices;
  for (int n = 0; n <= board_cells; n++) {
    const uint64_t all = all_boards(n), d4 = count_boards(n, 8), full = count_boards(n, 2048);
    total_all += all, total8 += d4, total2048 += full;
    rows.push_back(
        {std::to_string(n), std::to_string(all), std::to_string(d4), std::to_string(full)});
    slices << (n ? ",\n    " : "") << "{\"n\": " << n << ", \"boards\": " << all
           << ", \"boards8\": " << d4 << ", \"boards2048\": " << full << "}";
  }
  if (json) {
    std::cout << "{\n  \"slices\": [\n    " << slices.str()
              << "\n  ],\n  \"total\": {\"boards\": " << total_all << ", \"boards8\": " << total8
              << ", \"boards2048\": " << total2048 << "}\n}\n";
    return;
  }
  rows.push_back(
      {"all", std::to_string(total_all), std::to_string(total8), std::to_string(total2048)});
  print_table({"n", "boards", "up to 8", "up to 2048"}, rows);
}

void run_sizes(const section_t& root, bool json) {
  const auto sizes = descendant_sizes(root);
  slice_sizes_t total;
  std::vector<std::vector<std::string>> rows;
  auto row = [](const std::string& n, const slice_sizes_t& s) {
    return std::vector<std::string>{n,
                                    std::to_string(s.sections),
                                    std::to_string(s.nodes),
                                    std::to_string(s.blocks),
                                    std::to_string(s.lines),
                                    std::to_string(s.lines_computed)};
  };
  auto object = [](const slice_sizes_t& s) {
    std::ostringstream o;
    o << "\"sections\": " << s.sections << ", \"nodes\": " << s.nodes
      << ", \"blocks\": " << s.blocks << ", \"lines\": " << s.lines
      << ", \"lines_computed\": " << s.lines_computed;
    return o.str();
  };
  std::ostringstream slices;
  for (const auto& s : sizes) {
    total += s;
    rows.push_back(row(std::to_string(s.slice), s));
    slices << (s.slice == root.sum() ? "" : ",\n    ") << "{\"n\": " << s.slice << ", " << object(s)
           << "}";
  }
  if (json) {
    std::cout << "{\n  \"root\": \"" << root.str() << "\",\n  \"slices\": [\n    " << slices.str()
              << "\n  ],\n  \"total\": {" << object(total) << "}\n}\n";
    return;
  }
  rows.push_back(row("all", total));
  print_table({"n", "sections", "nodes", "blocks", "lines", "lines computed"}, rows);
}

void run_ratio(bool json) {
  const overcount_t o = overcount();
  if (json) {
    std::cout << "{\"boards8\": " << o.boards8 << ", \"boards2048\": " << o.boards2048
              << ", \"nodes\": " << o.nodes << ", \"rotation\": " << fixed(o.rotation(), 7)
              << ", \"sections\": " << fixed(o.sections(), 7)
              << ", \"total\": " << fixed(o.total(), 7) << "}\n";
    return;
  }
  print_table({"overcount", "numerator", "denominator", "ratio", "excess"},
              {{"rotation abstraction", "256 * " + std::to_string(o.boards2048),
                std::to_string(o.boards8), fixed(o.rotation(), 7), percent(o.rotation())},
               {"sections", std::to_string(o.nodes), std::to_string(o.boards2048),
                fixed(o.sections(), 7), percent(o.sections())},
               {"total", "", "", fixed(o.total(), 7), percent(o.total())}});
}

void run_branch(bool json) {
  const double without = branching_factor(), with = 8 * without;
  if (json) {
    std::cout << "{\"without_rotations\": " << fixed(without, 6)
              << ", \"with_rotations\": " << fixed(with, 6) << "}\n";
    return;
  }
  print_table({"branching factor", "average", "rounded"},
              {{"without rotations", fixed(without, 6), fixed(without, 1)},
               {"with rotations", fixed(with, 6), fixed(with, 1)}});
}

int run(int argc, char** argv) {
  if (argc < 2) throw usage_error_t("missing command (counts, sizes, ratio or branch); see --help");
  const std::string command = argv[1];
  if (command == "--help" || command == "-h") {
    std::cout << usage_text;
    return 0;
  }
  const char* help = command == "counts"   ? counts_help
                     : command == "sizes"  ? sizes_help
                     : command == "ratio"  ? ratio_help
                     : command == "branch" ? branch_help
                                           : nullptr;
  if (!help) throw usage_error_t("unknown command '" + command + "'; see --help");
  bool json = false;
  std::vector<std::string> positional;
  argument_cursor_t args(argc - 1, argv + 1);  // the words after the command
  while (args.next()) {
    if (args.arg() == "--help" || args.arg() == "-h") {
      std::cout << help;
      return 0;
    } else if (args.arg() == "--json") {
      json = true;
    } else if (args.is_option()) {
      throw usage_error_t(command + ": unknown option '" + args.arg() + "' (see --help)");
    } else {
      positional.push_back(args.arg());
    }
  }
  const size_t max_positional = command == "sizes" ? 1 : 0;
  if (positional.size() > max_positional)
    throw usage_error_t(command + ": unexpected argument '" + positional[max_positional] + "'");
  if (command == "counts") run_counts(json);
  if (command == "sizes")
    run_sizes(positional.empty() ? section_t() : section_t::parse(positional[0]), json);
  if (command == "ratio") run_ratio(json);
  if (command == "branch") run_branch(json);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // Help is per command, so run() handles --help itself.
  return cli::run_main("pentago-analyze", "", argc, argv, run);
}
