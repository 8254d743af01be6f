// Which rank computes each block line of a slice and which rank owns each block (docs/formats.md,
// "Randomness and the partition"), computed independently on every rank from the section list and a
// key.
//
// Both schemes place the slice's lines in an order of "positions" p = 0..total_lines-1 and give
// rank r the contiguous positions partition_loop(total_lines, ranks, r), the first
// total_lines % ranks ranks getting one extra line. Each block is owned by the rank computing
// one of its lines (one per non-full dimension), picked by an owner-dimension rule. A block's
// local id on its owner is (p - start(owner)) << 6 | (block index along the line), sparse but
// unique; its dense flat id is its index in rank_blocks(owner).
//
// * Random partition (key != 0, production used 17): position p holds canonical line
//   random_permute(total_lines, key, p); the owner dimension is
//   dims[threefry(key, block_event(section, block)) mod c] over the c non-full dimensions.
// * Simple partition (key == 0, the deterministic default of this implementation, NOT the 2013
//   "simple partition"): the canonical lines are dealt round-robin, so the i-th line of rank r
//   is canonical line i * ranks + r (with one rank this is the canonical order); the owner
//   dimension is dims[(b0 + b1 + b2 + b3) mod c], which hands consecutive blocks of a line to
//   the dimensions in turn. It needs no hashing and spreads every sheaf over all ranks (on
//   slice 30 with 256 ranks it balances nodes within 5%, like the random partition), but its
//   regular pattern carries no guarantee for other shapes.
//
// Every query is O(1) apart from a section lookup and the sheaf search of slice_lines.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "pentago/layout/blocks.h"
#include "pentago/layout/section.h"
#include "pentago/util/random.h"

namespace pentago {

// Sparse per-rank block id: local line index << 6 | block index within the line.
using local_id_t = uint64_t;

// Contiguous split of [0, n) among `ranks`: rank r gets [start, end), the first n % ranks ranks
// one element more than the others.
struct loop_range_t {
  uint64_t start, end;
};
loop_range_t partition_loop(uint64_t n, int ranks, int rank);
// The rank whose partition_loop range contains i (i < n).
int partition_loop_inverse(uint64_t n, int ranks, uint64_t i);

// 64-bit Threefry counter naming a block: kind 1 in bits 61-63, microsig in bits 29-60 and
// block[k] in bits 6k..6k+5.
uint64_t block_event(const section_t& section, const block_t& block);

struct block_owner_t {
  int rank;
  local_id_t local_id;
  bool operator==(const block_owner_t&) const = default;
};

struct local_block_t {
  section_t section;
  block_t block;
  local_id_t local_id;
  bool operator==(const local_block_t&) const = default;
};

class partition_t {
 public:
  partition_t(std::shared_ptr<const slice_lines_t> lines, int ranks, uint128_t key);
  // Builds the slice_lines of `sections` (one slice, ascending sig).
  partition_t(std::span<const section_t> sections, int ranks, uint128_t key);

  const slice_lines_t& lines() const { return *lines_; }
  std::span<const section_t> sections() const { return lines_->sections(); }
  int ranks() const { return ranks_; }
  uint128_t key() const { return key_; }
  bool randomized() const { return key_ != 0; }
  uint64_t total_lines() const { return lines_->total_lines(); }

  // Position order: the canonical index of the line at a position, and back.
  uint64_t line_at(uint64_t position) const;
  uint64_t position_of(uint64_t canonical) const;
  // Positions of a rank's lines, and the rank computing the line at a position.
  loop_range_t rank_range(int rank) const;
  int position_owner(uint64_t position) const;
  uint64_t rank_line_count(int rank) const;

  // The rank's local_line-th line (in position order), and all of them.
  line_t rank_line(int rank, uint64_t local_line) const;
  std::vector<line_t> rank_lines(int rank) const;

  // The dimension of the line that owns a block (a non-full quadrant of its section).
  int owner_dimension(const section_t& section, const block_t& block) const;
  // The rank owning a block and the block's local id there. Throws if the block is not in
  // this slice.
  block_owner_t find_block(const section_t& section, const block_t& block) const;
  // Inverse of find_block for the rank's own ids; throws if the id names no owned block.
  local_block_t block_by_local_id(int rank, local_id_t local_id) const;
  // The rank's blocks: lines in position order, blocks along each line in increasing index,
  // keeping those whose owner dimension is the line's. The index is the block's flat id.
  std::vector<local_block_t> rank_blocks(int rank) const;

 private:
  void check_rank(int rank) const;

  std::shared_ptr<const slice_lines_t> lines_;
  int ranks_;
  uint128_t key_;
};

// Load statistics of one rank.
struct load_t {
  static constexpr int fields = 6;
  static constexpr std::array<const char*, fields> names = {
      "lines", "line blocks", "line nodes", "blocks", "block nodes", "block local ids"};

  int64_t lines = 0;          // lines computed
  int64_t line_blocks = 0;    // sum of their lengths
  int64_t line_nodes = 0;     // sum of their output nodes
  int64_t blocks = 0;         // blocks owned
  int64_t block_nodes = 0;    // nodes of the blocks owned
  int64_t max_local_id = -1;  // largest local id owned, -1 without blocks

  std::array<int64_t, fields> values() const;
  static load_t from_values(const std::array<int64_t, fields>& values);
};

// Min and max of each statistic over ranks. An MPI reduction can send the negated mins and
// the maxes in one MPI_MAX of 2 * load_t::fields int64s.
struct load_range_t {
  std::array<int64_t, load_t::fields> min, max;
  explicit load_range_t(const load_t& load);  // a single rank
  void add(const load_t& load);               // fold in another rank
};

load_t rank_load(const partition_t& partition, int rank);
// All ranks, computed serially (tests and prediction).
load_range_t serial_load_balance(const partition_t& partition);
// "<name> = <min> <max> (<max/min, %.4g>)" for the first five statistics, one per line
// ("inf" when the min is 0).
std::string format_load_balance(const load_range_t& range);

}  // namespace pentago
