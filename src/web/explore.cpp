// The explorer's query path without a server: the routing, move order and JSON of the query
// path (src/query), with slice values from blocks the caller fetched (sidecar header, then the
// block's sidecar record, then the block) and the midgame solver in the same process. Its
// native test checks every answer against the query path itself.
#include "pentago/web/explore.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <list>
#include <optional>
#include <unordered_map>

#include "pentago/layout/blocks.h"
#include "pentago/layout/line_mapping.h"
#include "pentago/layout/section.h"
#include "pentago/mid/midgame.h"
#include "pentago/util/error.h"
#include "pentago/web/xz.h"

namespace pentago {
namespace {

constexpr int midgame_min_stones_floor = midgame_min_stones;
constexpr char sidecar_magic[] = "pentago index      \n";

uint32_t load32(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

// The interleave filter's inverse for one node (64 bytes, little endian): even bits of each
// word are the first super's, odd bits the second's.
superinfo_t uninterleave_node(const uint8_t* bytes) {
  auto gather = [](uint64_t x) {
    x &= 0x5555555555555555ULL;
    x = (x | x >> 1) & 0x3333333333333333ULL;
    x = (x | x >> 2) & 0x0f0f0f0f0f0f0f0fULL;
    x = (x | x >> 4) & 0x00ff00ff00ff00ffULL;
    x = (x | x >> 8) & 0x0000ffff0000ffffULL;
    x = (x | x >> 16) & 0x00000000ffffffffULL;
    return x;
  };
  superinfo_t r;
  for (int w = 0; w < 8; w++) {
    const uint64_t x = uint64_t(load32(bytes + 8 * w)) | uint64_t(load32(bytes + 8 * w + 4)) << 32;
    const int shift = 32 * (w & 1);
    r.win.w[w >> 1] |= gather(x) << shift;
    r.notlose.w[w >> 1] |= gather(x >> 1) << shift;
  }
  return r;
}

// A slice's sections and the first sidecar record of each (cached: slice_sections is slow).
struct slice_layout_t {
  std::vector<section_t> sections;
  std::vector<uint64_t> first;  // per section, then the total
};

const slice_layout_t& layout_of(int slice) {
  static std::map<int, slice_layout_t> layouts;
  auto it = layouts.find(slice);
  if (it != layouts.end()) return it->second;
  slice_layout_t l;
  l.sections = slice_sections(slice);
  uint64_t total = 0;
  for (const auto& s : l.sections) {
    l.first.push_back(total);
    total += section_block_count(s);
  }
  l.first.push_back(total);
  return layouts.emplace(slice, std::move(l)).first->second;
}

// A move or a rotation as the query path's move_answer, with its source's name.
struct move_entry_t {
  std::string move;
  position_t child;
  int value = 0;
  const char* source = "rules";
  int distance = -1;
  std::vector<move_entry_t> rotations;
};

std::string quoted(const std::string& s) {
  std::string r = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') r += '\\';
    r += c;
  }
  return r + "\"";
}

std::string move_json(const move_entry_t& m, bool with_rotations) {
  std::string j = "{\"move\":" + quoted(m.move) + ",\"child\":" + quoted(position_code(m.child)) +
                  ",\"value\":" + quoted(value_word(m.value));
  if (m.distance >= 0) j += ",\"distance\":" + std::to_string(m.distance);
  j += ",\"source\":" + quoted(m.source);
  if (with_rotations) {
    j += ",\"rotations\":[";
    for (size_t i = 0; i < m.rotations.size(); i++)
      j += (i ? "," : "") + move_json(m.rotations[i], false);
    j += "]";
  }
  return j + "}";
}

}  // namespace

uint64_t slice_block_count(int slice) { return layout_of(slice).first.back(); }

slice_spot_t locate_in_slice(board_t board) {
  slice_spot_t spot;
  spot.slice = count_stones(board);
  const slice_layout_t& l = layout_of(spot.slice);
  const board_location_t loc = locate_board(board);
  const auto it = std::find(l.sections.begin(), l.sections.end(), loc.section);
  PENTAGO_CHECK(it != l.sections.end() && *it == loc.section,
                "section of board " + std::to_string(board) + " not in its slice");
  block_t block;
  for (int q = 0; q < 4; q++) block[q] = uint8_t(loc.index[q] / block_size);
  const auto shape = block_shape(loc.section, block);
  uint32_t node = 0;
  for (int q = 0; q < 4; q++)
    node = node * uint32_t(shape[q]) + uint32_t(loc.index[q] % block_size);
  spot.record = l.first[size_t(it - l.sections.begin())] + block_index(loc.section, block);
  spot.block_bytes = 64 * uint64_t(block_nodes(loc.section, block));
  spot.node = node;
  spot.symmetry = loc.symmetry;
  return spot;
}

struct web_explorer_t::impl_t {
  int midgame_min = 18, threads = 1;
  uint64_t cache_limit = 0;
  // Per slice: present (sidecar header checked) or absent.
  std::map<int, bool> slices;
  std::map<std::pair<int, uint64_t>, std::pair<uint64_t, uint32_t>> records;  // offset, size
  // Decoded blocks, least recently used first.
  using block_key_t = std::pair<int, uint64_t>;
  std::list<std::pair<block_key_t, std::vector<uint8_t>>> blocks;
  std::map<block_key_t, decltype(blocks)::iterator> block_index;
  uint64_t block_bytes = 0;
  midgame_workspace_t workspace;

  // The mover's value of a board to place from its slice; nullopt (and `needs` grown) when a
  // fetch must come first.
  std::optional<int> database_value(board_t board, std::vector<web_request_t>& needs) {
    const slice_spot_t spot = locate_in_slice(board);
    const auto r = records.find({spot.slice, spot.record});
    if (r == records.end()) {
      needs.push_back({web_request_t::sidecar_record, spot.slice, spot.record, 0, 0});
      return std::nullopt;
    }
    const auto b = block_index.find({spot.slice, spot.record});
    if (b == block_index.end()) {
      needs.push_back(
          {web_request_t::block, spot.slice, spot.record, r->second.first, r->second.second});
      return std::nullopt;
    }
    blocks.splice(blocks.end(), blocks, b->second);
    const std::vector<uint8_t>& data = b->second->second;
    PENTAGO_CHECK(data.size() == spot.block_bytes, "block size of board " + std::to_string(board));
    const superinfo_t disk = uninterleave_node(data.data() + 64 * size_t(spot.node));
    // The board is symmetry (G, l) of the stored one: bit 0 of its super is bit l of the
    // stored super ((s.C)(x) = C(conj_G^-1(x) + l), base/super.h).
    const bool black = disk.win(spot.symmetry.local);
    const bool white = disk.notlose(spot.symmetry.local);
    if (black && white)
      throw pentago_error_t("slice-" + std::to_string(spot.slice) +
                            ".pentago: both players win board " + std::to_string(board));
    if (!black && !white) return 0;
    return black == (board_turn(board) == 0) ? 1 : -1;
  }

  // Whether slice n is present; nullopt (and a request) while unknown.
  std::optional<bool> slice_present(int n, std::vector<web_request_t>& needs) {
    if (n > 36) return false;
    const auto it = slices.find(n);
    if (it != slices.end()) return it->second;
    needs.push_back({web_request_t::sidecar_header, n, 0, 0, 0});
    return std::nullopt;
  }
};

web_explorer_t::web_explorer_t(int midgame_min_stones, uint64_t block_cache_bytes, int threads)
    : impl_(std::make_unique<impl_t>()) {
  if (threads < 1) throw usage_error_t("a solve needs at least one thread");
  impl_->threads = threads;
  if (midgame_min_stones < midgame_min_stones_floor)
    throw usage_error_t("the midgame solver needs at least " +
                        std::to_string(midgame_min_stones_floor) + " stones");
  impl_->midgame_min = midgame_min_stones;
  impl_->cache_limit = block_cache_bytes;
}

web_explorer_t::~web_explorer_t() = default;

void web_explorer_t::set_slice_absent(int slice) { impl_->slices[slice] = false; }

void web_explorer_t::set_sidecar_header(int slice, std::span<const uint8_t> header,
                                        uint64_t total_size) {
  const std::string name = "slice-" + std::to_string(slice) + ".pentago.index";
  if (header.size() < 24 || std::memcmp(header.data(), sidecar_magic, 20) != 0)
    throw pentago_error_t(name + ": not a pentago index (bad magic)");
  if (load32(header.data() + 20) != uint32_t(slice))
    throw pentago_error_t(name + ": holds slice " + std::to_string(load32(header.data() + 20)));
  const uint64_t expected = 24 + 12 * slice_block_count(slice);
  if (total_size != expected)
    throw pentago_error_t(name + ": " + std::to_string(total_size) + " bytes, not the " +
                          std::to_string(expected) +
                          " of a complete slice (the page reads complete slices only)");
  impl_->slices[slice] = true;
}

void web_explorer_t::set_sidecar_records(int slice, uint64_t record,
                                         std::span<const uint8_t> bytes) {
  if (bytes.size() % 12) throw pentago_error_t("sidecar records: a partial record");
  const uint64_t total = slice_block_count(slice);
  for (size_t k = 0; k * 12 < bytes.size(); k++) {
    if (record + k >= total) throw pentago_error_t("sidecar records past the end of the slice");
    const uint8_t* r = bytes.data() + 12 * k;
    const uint64_t offset = uint64_t(load32(r)) | uint64_t(load32(r + 4)) << 32;
    impl_->records[{slice, record + k}] = {offset, load32(r + 8)};
  }
}

void web_explorer_t::set_block(int slice, uint64_t record, std::span<const uint8_t> compressed) {
  const slice_layout_t& l = layout_of(slice);
  if (record >= l.first.back()) throw pentago_error_t("block record past the end of the slice");
  const size_t s =
      size_t(std::upper_bound(l.first.begin(), l.first.end(), record) - l.first.begin()) - 1;
  const section_t& section = l.sections[s];
  const block_t block = block_from_index(section, record - l.first[s]);
  const uint64_t bytes = 64 * uint64_t(block_nodes(section, block));
  const std::string what = "slice-" + std::to_string(slice) + ".pentago: section " + section.str() +
                           " block " + std::to_string(record - l.first[s]);
  std::vector<uint8_t> data = xz_decode(compressed, bytes, what);
  const impl_t::block_key_t key{slice, record};
  if (const auto it = impl_->block_index.find(key); it != impl_->block_index.end()) {
    impl_->block_bytes -= it->second->second.size();
    impl_->blocks.erase(it->second);
    impl_->block_index.erase(it);
  }
  impl_->block_bytes += data.size();
  impl_->blocks.emplace_back(key, std::move(data));
  impl_->block_index[key] = std::prev(impl_->blocks.end());
  // Evicts the oldest, keeping at least the newest block.
  while (impl_->block_bytes > impl_->cache_limit && impl_->blocks.size() > 1) {
    impl_->block_bytes -= impl_->blocks.front().second.size();
    impl_->block_index.erase(impl_->blocks.front().first);
    impl_->blocks.pop_front();
  }
}

web_explorer_t::result_t web_explorer_t::answer(position_t p,
                                                const std::function<bool()>& progress) {
  const auto start = std::chrono::steady_clock::now();
  validate_position(p);
  result_t out;
  const int stones = count_stones(p.board);
  const int to_move = position_mover(p);
  int value = 0, distance = -1, slice = -1;
  const char* source = "rules";
  std::string moves_unknown;
  std::vector<move_entry_t> moves;
  auto finish = [&] {
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::string j = "{\"board\":" + quoted(position_code(p)) +
                    ",\"stones\":" + std::to_string(stones) +
                    ",\"to_move\":" + quoted(color_name(to_move)) +
                    ",\"phase\":" + quoted(p.to_rotate ? "rotate" : "place") +
                    ",\"value\":" + quoted(value_word(value));
    if (distance >= 0) j += ",\"distance\":" + std::to_string(distance);
    j += ",\"source\":" + quoted(source);
    if (slice >= 0) j += ",\"slice\":" + std::to_string(slice);
    if (moves_unknown.empty()) {
      j += ",\"moves\":[";
      for (size_t i = 0; i < moves.size(); i++) j += (i ? "," : "") + move_json(moves[i], true);
      j += "]";
    } else {
      j += ",\"moves\":null,\"moves_unknown\":" + quoted(moves_unknown);
    }
    char elapsed[48];
    std::snprintf(elapsed, sizeof elapsed, "%.3f", ms);
    out.json = j + ",\"elapsed_ms\":" + elapsed + "}";
    return out;
  };
  if (const auto v = rules_value(p)) {
    value = *v;
    distance = *v ? 0 : -1;
    return finish();
  }
  // Routing as the query path: slice n + 1 (to place) or n (to rotate), else the midgame
  // solver, else the position's own value from slice n (to place), else an error.
  const int needed = p.to_rotate ? stones : stones + 1;
  const auto have = impl_->slice_present(needed, out.needs);
  if (!have) return out;
  bool database = *have;
  std::unordered_map<board_t, std::pair<int, int>> mid[2];  // [to_rotate] value, distance
  if (!database) {
    if (stones >= impl_->midgame_min) {
      midgame_options_t o;
      o.threads = impl_->threads;
      o.distance = stones >= 18;
      o.workspace_limit = uint64_t(3) << 30;
      if (progress) o.cancelled = progress;
      const midgame_result_t r = midgame_solve(p.board, p.to_rotate, o, impl_->workspace);
      for (const auto& v : r.values) mid[v.to_rotate][v.board] = {v.value, v.distance};
      source = "midgame";
    } else {
      std::string why = "position " + position_code(p) + " (" + std::to_string(stones) +
                        (stones == 1 ? " stone" : " stones") + ", to " +
                        (p.to_rotate ? "rotate" : "place") + ") needs slice-" +
                        std::to_string(needed) +
                        ".pentago, which the page's data does not hold; "
                        "the page solves positions with " +
                        std::to_string(impl_->midgame_min) + " or more stones";
      if (p.to_rotate) throw pentago_error_t(why);
      const auto own = impl_->slice_present(stones, out.needs);
      if (!own) return out;
      if (!*own) throw pentago_error_t(why);
      const auto v = impl_->database_value(p.board, out.needs);
      if (!v) return out;
      value = *v;
      source = "database";
      slice = stones;
      moves_unknown = why;
      return finish();
    }
  }
  // The moves, each child valued from its slice (blocks not yet fetched leave it out) or from
  // the solve.
  auto valued = position_moves<move_entry_t>(p, [&](move_entry_t& r) {
    if (database) {
      const auto v = impl_->database_value(r.child.board, out.needs);
      if (!v) return false;
      r.value = -*v;
      r.source = "database";
    } else {
      const auto it = mid[0].find(r.child.board);
      PENTAGO_CHECK(it != mid[0].end(), "midgame result lacks board " + position_code(r.child));
      r.value = -it->second.first;
      r.distance = it->second.second >= 0 ? 1 + it->second.second : -1;
      r.source = "midgame";
    }
    return true;
  });
  if (!valued.complete) {
    // One request per block (several boards share one).
    std::vector<web_request_t> unique;
    for (const auto& r : out.needs)
      if (std::none_of(unique.begin(), unique.end(), [&](const web_request_t& u) {
            return u.kind == r.kind && u.slice == r.slice && u.record == r.record;
          }))
        unique.push_back(r);
    out.needs = std::move(unique);
    return out;
  }
  moves = std::move(valued.moves);
  value = valued.value, source = valued.source, distance = valued.distance;
  if (database && std::string(source) == "database") slice = needed;
  if (!database) {
    const auto it = mid[p.to_rotate].find(p.board);
    PENTAGO_CHECK(
        it != mid[p.to_rotate].end() && it->second.first == value &&
            (it->second.second < 0 || it->second.second == distance),
        "midgame root value or distance disagrees with its children at " + position_code(p));
  }
  return finish();
}

}  // namespace pentago
