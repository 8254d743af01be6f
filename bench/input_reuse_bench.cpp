// How often a line re-reads an input block that a cache of recently decoded blocks would
// still hold: replays the input-block reads of slice N's lines, in the completion order every
// rank follows, through LRU caches of the given sizes (in blocks), and prints each one's hit
// rate. A block is read once per line that needs it, so the reads per block bound any cache.
//
// Usage: input_reuse_bench ROOT SLICE CAPACITY...   e.g. input_reuse_bench 00000000 33 500 4000
#include <cstdio>
#include <cstdlib>
#include <list>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "pentago/end/line_order.h"
#include "pentago/layout/blocks.h"
#include "pentago/layout/line_mapping.h"
#include "pentago/layout/section.h"

using namespace pentago;

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: input_reuse_bench ROOT SLICE CAPACITY...\n");
    return 2;
  }
  const section_t root = section_t::parse(argv[1]);
  const int n = std::atoi(argv[2]);
  const auto slices = descendant_sections(root, 35);
  if (n < root.sum() || n >= 35) {
    std::fprintf(stderr, "input_reuse_bench: slice %d is not between the root's slice and 34\n", n);
    return 2;
  }
  const slice_lines_t order(slices[n]);
  const slice_lines_t above(slices[n + 1]);
  std::vector<line_t> lines;
  for (uint64_t i = 0; i < order.total_lines(); i++) lines.push_back(order.line(i));
  sort_lines_for_completion(lines, order);
  // Every read as (child section index, block).
  std::vector<uint64_t> reads;
  for (const auto& l : lines) {
    const line_dependency_t dep = line_dependency_of(l);
    const uint64_t section = uint64_t(above.section_index(dep.child));
    for (int b = 0; b < dep.input.length(); b++) {
      const block_t k = dep.input.block(b);
      reads.push_back(section << 32 | uint64_t(k[0]) << 24 | uint64_t(k[1]) << 16 |
                      uint64_t(k[2]) << 8 | k[3]);
    }
  }
  std::unordered_map<uint64_t, int> distinct;
  for (const uint64_t r : reads) distinct[r]++;
  std::printf("root %s, slice %d: %zu lines, %zu block reads of %zu blocks (%.2f each)\n",
              root.name().c_str(), n, lines.size(), reads.size(), distinct.size(),
              double(reads.size()) / double(distinct.size()));
  for (int a = 3; a < argc; a++) {
    const size_t capacity = size_t(std::atol(argv[a]));
    std::list<uint64_t> recent;
    std::unordered_map<uint64_t, std::list<uint64_t>::iterator> where;
    uint64_t hits = 0;
    for (const uint64_t r : reads) {
      const auto it = where.find(r);
      if (it != where.end()) {
        hits++;
        recent.splice(recent.begin(), recent, it->second);
        continue;
      }
      recent.push_front(r);
      where[r] = recent.begin();
      if (recent.size() > capacity) {
        where.erase(recent.back());
        recent.pop_back();
      }
    }
    std::printf("LRU of %zu blocks: %llu hits (%.1f%%)\n", capacity, (unsigned long long)hits,
                100.0 * double(hits) / double(reads.size()));
    // Furthest next use first (Belady), and a read whose block is next used later than every
    // cached one bypasses the cache: the best any cache of this size could do in this order.
    std::vector<size_t> next(reads.size());
    {
      std::unordered_map<uint64_t, size_t> later;
      for (size_t i = reads.size(); i-- > 0;) {
        const auto it = later.find(reads[i]);
        next[i] = it == later.end() ? SIZE_MAX : it->second;
        later[reads[i]] = i;
      }
    }
    std::set<std::pair<size_t, uint64_t>> by_next;
    std::unordered_map<uint64_t, size_t> cached;
    uint64_t best = 0;
    for (size_t i = 0; i < reads.size(); i++) {
      const auto it = cached.find(reads[i]);
      if (it != cached.end()) {
        best++;
        by_next.erase({it->second, reads[i]});
        cached.erase(it);
      } else if (cached.size() >= capacity) {
        const auto last = std::prev(by_next.end());
        if (last->first <= next[i]) continue;
        cached.erase(last->second);
        by_next.erase(last);
      }
      if (next[i] == SIZE_MAX) continue;
      cached[reads[i]] = next[i];
      by_next.insert({next[i], reads[i]});
    }
    std::printf("furthest next use of %zu blocks: %llu hits (%.1f%%)\n", capacity,
                (unsigned long long)best, 100.0 * double(best) / double(reads.size()));
  }
  return 0;
}
