// The explorer's query path without a server (compiled to WebAssembly for the page, and
// natively for its tests): positions (base/position.h) answered from the rules, from slice files
// read block by block through their .index sidecars (the caller fetches the bytes, here by HTTP
// range requests), or from the midgame solver, as the JSON of the server's answers (docs/api.md).
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "pentago/base/board.h"
#include "pentago/base/position.h"
#include "pentago/base/super.h"

namespace pentago {

// Where a board's values lie in its slice file (the 2013 sidecar layout: the sections of
// slice_sections(n) in order, the blocks of each in row-major order).
struct slice_spot_t {
  int slice = 0;
  uint64_t record = 0;       // the block's sidecar record
  uint64_t block_bytes = 0;  // 64 bytes per node of the block, decoded
  uint32_t node = 0;         // the board's node within the block
  symmetry_t symmetry;       // standard form to the board
};
slice_spot_t locate_in_slice(board_t board);
// Blocks of a complete slice (the sidecar holds 24 + 12 * that many bytes).
uint64_t slice_block_count(int slice);

// One fetch the caller must make before a position can be answered.
struct web_request_t {
  enum kind_t { sidecar_header, sidecar_record, block } kind = sidecar_header;
  int slice = 0;
  uint64_t record = 0;
  uint64_t offset = 0;  // block: bytes [offset, offset + size) of slice-N.pentago
  uint32_t size = 0;
};

// The page's engine: slice data as the caller supplies it, and the midgame solver.
class web_explorer_t {
 public:
  // `midgame_min_stones`: the fewest stones solved in the browser (workspace 486 MiB at 18,
  // 1.4 GiB at 17); `block_cache_bytes` bounds the decoded blocks kept; `threads` of a solve.
  explicit web_explorer_t(int midgame_min_stones = 18, uint64_t block_cache_bytes = 64 << 20,
                          int threads = 1);
  ~web_explorer_t();

  // What the fetches brought. A slice whose sidecar is missing is absent; a present sidecar's
  // header (its first 24 bytes) and total size are checked against the complete layout.
  void set_slice_absent(int slice);
  void set_sidecar_header(int slice, std::span<const uint8_t> header, uint64_t total_size);
  // Sidecar records starting at `record` (12 bytes each).
  void set_sidecar_records(int slice, uint64_t record, std::span<const uint8_t> bytes);
  // A block's compressed bytes, decoded (xz) and kept.
  void set_block(int slice, uint64_t record, std::span<const uint8_t> compressed);

  struct result_t {
    std::string json;                  // the answer, when `needs` is empty
    std::vector<web_request_t> needs;  // else the fetches it needs first
  };
  // `progress` (optional) is called before each layer of a midgame solve; true cancels it.
  result_t answer(position_t p, const std::function<bool()>& progress = {});

 private:
  struct impl_t;
  std::unique_ptr<impl_t> impl_;
};

}  // namespace pentago
