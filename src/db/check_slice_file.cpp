// pentago-check's slice-file checks: headers, layout, every block decoded (xz checksums, no
// node where both players win), counts recomputed from the blocks, samples looked up in the
// blocks, the .index sidecar; and the headers and blocks of other .pentago files.
#include <algorithm>
#include <atomic>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <vector>

#include "pentago/data/supertensor.h"
#include "pentago/db/check_context.h"
#include "pentago/db/lookup.h"
#include "pentago/end/block_store.h"
#include "pentago/util/parallel_for.h"

namespace pentago::check_detail {
namespace {
namespace fs = std::filesystem;
}  // namespace

void checker_t::check_slice_file(int n, const slice_files_t& paths,
                                 const std::vector<section_t>& sections, const npy_array_t* counts,
                                 std::vector<sample_row_t>& samples, std::string& summary) {
  const std::string where = slice_name(n) + ": " + fs::path(paths.slice).filename().string();
  std::unique_ptr<supertensor_reader_t> reader;
  try {
    reader = std::make_unique<supertensor_reader_t>(paths.slice);
    reader->load_indexes();
  } catch (const std::exception& e) {
    report.fail(where, where + ": " + e.what());
    return;
  }
  result.slice_files++;
  if (reader->slice() != n) {
    report.fail(where, where + ": holds slice " + std::to_string(reader->slice()));
    return;
  }
  const auto& file_sections = reader->sections();
  if (counts && file_sections != sections) {
    std::string diff = std::to_string(file_sections.size()) + " sections, counts have " +
                       std::to_string(sections.size());
    for (size_t i = 0; i < std::min(file_sections.size(), sections.size()); i++)
      if (file_sections[i] != sections[i]) {
        diff += "; first difference at " + std::to_string(i) + ": " + file_sections[i].name() +
                " vs " + sections[i].name();
        break;
      }
    report.fail(where, where + ": sections differ from the counts file: " + diff);
    return;
  }

  // Layout: block and index blobs lie after the headers and do not overlap.
  {
    std::vector<std::pair<uint64_t, uint64_t>> ranges;  // offset, size
    for (int s = 0; s < int(file_sections.size()); s++) {
      const auto& index = reader->headers()[s].index;
      ranges.push_back({index.offset, index.compressed_size});
      for (const auto& blob : reader->block_index(s))
        ranges.push_back({blob.offset, blob.compressed_size});
    }
    std::sort(ranges.begin(), ranges.end());
    for (size_t i = 0; i < ranges.size(); i++) {
      if (ranges[i].first < reader->data_start() ||
          (i + 1 < ranges.size() && ranges[i].first + ranges[i].second > ranges[i + 1].first)) {
        report.fail(where, where + ": compressed data at offset " +
                               std::to_string(ranges[i].first) +
                               " overlaps the headers or another block");
        break;
      }
    }
    // After the last blob only zeros (padding files of this format carry): other bytes there
    // were appended to the file, found with or without a run record to give its size.
    uint64_t end = reader->data_start();
    for (const auto& [offset, size] : ranges) end = std::max(end, offset + size);
    std::error_code ec;
    const uint64_t file_bytes = fs::file_size(paths.slice, ec);
    if (!ec && file_bytes < end) {
      report.fail(where, where + ": " + std::to_string(file_bytes) +
                             " bytes, but its blocks end at " + std::to_string(end) +
                             " (the file is cut short)");
    } else if (!ec && file_bytes > end) {
      std::ifstream in(paths.slice, std::ios::binary);
      in.seekg(std::streamoff(end));
      std::vector<char> chunk(1 << 20);
      for (uint64_t at = end; at < file_bytes && in;) {
        in.read(chunk.data(), std::streamsize(std::min<uint64_t>(chunk.size(), file_bytes - at)));
        const auto got = size_t(in.gcount());
        const auto junk =
            std::find_if(chunk.begin(), chunk.begin() + got, [](char c) { return c; });
        if (junk != chunk.begin() + got) {
          report.fail(where, where + ": bytes appended after the last block (a non-zero byte at " +
                                 std::to_string(at + uint64_t(junk - chunk.begin())) + " of " +
                                 std::to_string(file_bytes) + "; the blocks end at " +
                                 std::to_string(end) + ")");
          break;
        }
        at += got;
        if (!got) break;
      }
    }
  }

  // Samples by block.
  std::map<std::pair<int, uint64_t>, std::vector<size_t>> samples_of_block;
  for (size_t i = 0; i < samples.size(); i++) {
    const auto& row = samples[i];
    if (row.section < 0 || row.section >= int(sections.size())) continue;
    block_t block;
    for (int q = 0; q < 4; q++) block[q] = uint8_t(row.location.index[q] / block_size);
    samples_of_block[{row.section, block_index(sections[row.section], block)}].push_back(i);
  }

  // Every block: decode (xz checksum), no node where both players win, counts, samples.
  const auto blocks = every_block(file_sections);
  std::vector<std::vector<section_counts_t>> worker_counts(
      size_t(threads), std::vector<section_counts_t>(file_sections.size(), {0, 0, 0}));
  std::vector<std::atomic<bool>> section_unreadable(file_sections.size());
  std::atomic<uint64_t> nodes{0}, matched{0};
  const std::string block_kind = where + ": blocks";
  const std::string sample_kind = slice_name(n) + ": samples vs slice file";
  parallel_for(threads, blocks.size(), [&](int worker, uint64_t i) {
    const auto& [s, block] = blocks[i];
    const section_t& section = file_sections[s];
    std::vector<superinfo_t> data;
    try {
      data = reader->read_block(s, block);
    } catch (const std::exception& e) {
      report.fail(block_kind, where + ": " + block_text(section, block) + ": " + e.what());
      section_unreadable[s] = true;
      return;
    }
    nodes += data.size();
    for (size_t k = 0; k < data.size(); k++)
      if (data[k].win & data[k].notlose) {
        report.fail(block_kind, where + ": " + block_text(section, block) + " node " +
                                    std::to_string(k) + ": black and white both win (" +
                                    first_difference(data[k], {}) + ")");
        break;
      }
    const section_counts_t c = count_block(section, block, data);
    for (int j = 0; j < 3; j++) worker_counts[worker][s][j] += c[j];
    const auto it = samples_of_block.find({s, block_index(section, block)});
    if (it == samples_of_block.end()) return;
    const auto shape = block_shape(section, block);
    for (const size_t si : it->second) {
      const auto& row = samples[si];
      int offset = 0;
      for (int q = 0; q < 4; q++) offset = offset * shape[q] + row.location.index[q] % block_size;
      const superinfo_t stored = transform_pair(row.location.symmetry, data[size_t(offset)]);
      if (stored == row.value) {
        matched++;
      } else {
        report.fail(sample_kind, slice_name(n) + ": sparse row " + std::to_string(row.row) +
                                     " (board " + std::to_string(row.board) +
                                     ") differs from the slice file at " +
                                     first_difference(row.value, stored));
      }
    }
  });
  result.blocks += blocks.size();
  result.nodes += nodes;
  summary += "; " + fs::path(paths.slice).filename().string() + ": " +
             std::to_string(blocks.size()) + " blocks, " + std::to_string(nodes.load()) +
             " nodes read";

  // Counts recomputed from the blocks: (popcount(black) >> s, popcount(white) >> s, 256 >> s).
  if (counts) {
    int wrong = 0, skipped = 0;
    for (size_t s = 0; s < file_sections.size(); s++) {
      if (section_unreadable[s]) {
        skipped++;
        continue;
      }
      section_counts_t c{0, 0, 0};
      for (const auto& w : worker_counts)
        for (int j = 0; j < 3; j++) c[j] += w[s][j];
      if (c[0] != (*counts)(s, 1) || c[1] != (*counts)(s, 2) || c[2] != (*counts)(s, 3)) {
        wrong++;
        report.fail(slice_name(n) + ": counts vs slice file",
                    slice_name(n) + ": counts row " + std::to_string(s) + " (section " +
                        file_sections[s].name() + ") is (" + std::to_string((*counts)(s, 1)) +
                        ", " + std::to_string((*counts)(s, 2)) + ", " +
                        std::to_string((*counts)(s, 3)) + ") but the slice file gives (" +
                        std::to_string(c[0]) + ", " + std::to_string(c[1]) + ", " +
                        std::to_string(c[2]) + ")");
      }
    }
    if (!wrong && !skipped) summary += ", counts agree";
    if (skipped)
      summary +=
          ", counts of " + plural(skipped, "section") + " with unreadable blocks not compared";
  }
  if (!samples.empty()) summary += ", " + std::to_string(matched.load()) + " samples agree";

  // The .index sidecar, if any, is what this file gives.
  if (!paths.index.empty()) {
    const std::string iwhere = slice_name(n) + ": " + fs::path(paths.index).filename().string();
    try {
      if (read_file(paths.index) != slice_index_bytes(*reader))
        report.fail(iwhere,
                    iwhere + ": does not match " + fs::path(paths.slice).filename().string());
      else
        summary += ", index sidecar agrees";
    } catch (const std::exception& e) {
      report.fail(iwhere, iwhere + ": " + e.what());
    }
  }
}

void checker_t::check_other_pentago_file(const std::string& path) {
  const std::string name = fs::path(path).filename().string();
  try {
    const supertensor_reader_t reader(path);
    const auto blocks = every_block(reader.sections());
    for (const auto& [s, block] : blocks) reader.read_block(s, block);
    say("  " + name + ": " + std::to_string(reader.sections().size()) + " sections, " +
        std::to_string(blocks.size()) + " blocks read");
    result.blocks += blocks.size();
  } catch (const std::exception& e) {
    report.fail(name, name + ": " + e.what());
  }
}

}  // namespace pentago::check_detail
