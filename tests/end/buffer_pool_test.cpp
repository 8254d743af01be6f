// buffer_pool: buffers of the slice's size within the budget, reuse across threads' frees,
// the shared handle that gives its buffer back, and the budget moved between slices.
#include "pentago/end/buffer_pool.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <thread>
#include <vector>

#include "pentago/util/error.h"

using namespace pentago;

TEST(buffer_pool, buffers_take_the_slice_size_within_the_budget) {
  const size_t small = 1000;  // nodes
  buffer_pool_t pool(10 * buffer_pool_t::block_bytes);
  // Full-size buffers: ten fit.
  std::vector<superinfo_t*> taken;
  while (superinfo_t* b = pool.take()) taken.push_back(b);
  EXPECT_EQ(taken.size(), 10u);
  EXPECT_THROW(pool.set_buffer_nodes(small), pentago_error_t);  // not while buffers are out
  for (auto* b : taken) pool.give(b);
  // Smaller buffers carve the same pages again, more of them within the same budget.
  pool.set_buffer_nodes(small);
  std::vector<superinfo_t*> smaller;
  while (superinfo_t* b = pool.take()) smaller.push_back(b);
  EXPECT_EQ(smaller.size(), 10 * buffer_pool_t::block_nodes / small);
  EXPECT_TRUE(std::find(smaller.begin(), smaller.end(), taken.front()) != smaller.end());
  for (size_t i = 1; i < smaller.size(); i++)
    EXPECT_GE(std::abs(smaller[i] - smaller[i - 1]), std::ptrdiff_t(small)) << "buffers overlap";
  EXPECT_EQ(pool.carved_bytes(), 10 * buffer_pool_t::block_bytes);
  // A given-back buffer is handed out again.
  pool.give(smaller.back());
  EXPECT_EQ(pool.take(), smaller.back());
  EXPECT_THROW(pool.set_buffer_nodes(0), pentago_error_t);
  EXPECT_THROW(pool.set_buffer_nodes(buffer_pool_t::block_nodes + 1), pentago_error_t);
}

TEST(buffer_pool, shared_buffers_come_back_and_the_budget_holds) {
  buffer_pool_t pool(3 * 100 * sizeof(superinfo_t), 200);
  pool.set_buffer_nodes(100);
  EXPECT_EQ(pool.buffer_nodes(), 100u);
  EXPECT_EQ(pool.buffer_bytes(), 100 * sizeof(superinfo_t));
  superinfo_t* first = nullptr;
  {
    auto a = pool.take_shared();
    auto b = pool.take_shared();
    auto c = pool.take_shared();
    first = a.get();
    EXPECT_THROW(pool.take_shared(), pentago_error_t);  // the budget is three buffers
    // Let go on another thread: the buffer returns to the pool, not to that thread's heap.
    std::thread([a = std::move(a)]() mutable { a.reset(); }).join();
    auto d = pool.take_shared();
    EXPECT_EQ(d.get(), first);
  }
  EXPECT_EQ(pool.carved_bytes(), 3 * 100 * sizeof(superinfo_t));
  EXPECT_THROW(pool.set_buffer_nodes(201), pentago_error_t);  // above this pool's max_nodes
  pool.set_buffer_nodes(200);                                 // every buffer is back
  EXPECT_NE(pool.take(), nullptr);
}

// Between slices the budget moves: a higher one hands out more buffers, a lower one unmaps
// the chunks beyond it, and neither is allowed while buffers are out.
TEST(buffer_pool, budget_moves_between_slices) {
  const size_t nodes = 1024, bytes = nodes * sizeof(superinfo_t);
  buffer_pool_t pool(4 * bytes, nodes);
  pool.set_buffer_nodes(nodes);
  std::vector<superinfo_t*> taken;
  while (superinfo_t* b = pool.take()) taken.push_back(b);
  EXPECT_EQ(taken.size(), 4u);
  EXPECT_THROW(pool.set_budget(8 * bytes), pentago_error_t);
  for (auto* b : taken) pool.give(b);
  pool.set_budget(8 * bytes);
  EXPECT_EQ(pool.budget(), 8 * bytes);
  taken.clear();
  while (superinfo_t* b = pool.take()) taken.push_back(b);
  EXPECT_EQ(taken.size(), 8u);
  for (auto* b : taken) b->win.w[0] = 1;  // every buffer is writable memory
  for (auto* b : taken) pool.give(b);
  pool.set_budget(2 * bytes);
  taken.clear();
  while (superinfo_t* b = pool.take()) taken.push_back(b);
  EXPECT_EQ(taken.size(), 2u);
  for (auto* b : taken) b->notlose.w[3] = 2;
  EXPECT_EQ(pool.carved_bytes(), 2 * bytes);  // the high water since the last budget
}

// A lent chunk is carved from its end down; what is still uncarved at its start goes back to
// its owner on request, whole pages only, and the budget shrinks by as much.
TEST(buffer_pool, lent_chunk_start_goes_back_uncarved) {
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  const size_t nodes = page / sizeof(superinfo_t), bytes = nodes * sizeof(superinfo_t);
  buffer_pool_t pool(0, nodes);
  pool.set_buffer_nodes(nodes);
  std::vector<superinfo_t> lent(8 * nodes);
  uint8_t* const start = reinterpret_cast<uint8_t*>(lent.data());
  pool.add_chunk({start, 8 * bytes});
  superinfo_t* a = pool.take();
  superinfo_t* b = pool.take();
  EXPECT_EQ(a, lent.data() + 7 * nodes);  // from the end down
  EXPECT_EQ(b, lent.data() + 6 * nodes);
  EXPECT_EQ(pool.give_back_lent(start + page, page), 0u);  // not a chunk's start
  EXPECT_EQ(pool.give_back_lent(start, 3 * page + 100), 3 * page);
  EXPECT_EQ(pool.budget(), 5 * bytes);
  EXPECT_EQ(pool.give_back_lent(start + 3 * page, 100 * page), 3 * page);  // up to the carved
  EXPECT_EQ(pool.take(), nullptr);
  pool.give(a);
  EXPECT_EQ(pool.take(), a);
  pool.give(a);
  pool.give(b);
}

// Memory lent to the pool (an arena's resident top) is carved before the rest of the pool's
// own chunks, whose pages may never have been touched; every buffer is handed out once.
TEST(buffer_pool, lent_chunks_are_carved_first) {
  const size_t nodes = 1024, bytes = nodes * sizeof(superinfo_t);
  buffer_pool_t pool(16 * bytes, nodes);
  pool.set_buffer_nodes(nodes);
  std::set<superinfo_t*> taken;
  for (int i = 0; i < 2; i++) taken.insert(pool.take());  // the pool's own chunk
  std::vector<superinfo_t> lent(3 * nodes);
  pool.add_chunk({reinterpret_cast<uint8_t*>(lent.data()), 3 * bytes});
  EXPECT_EQ(pool.budget(), 19 * bytes);
  for (int i = 0; i < 3; i++) {
    superinfo_t* b = pool.take();
    EXPECT_GE(b, lent.data());
    EXPECT_LT(b, lent.data() + lent.size());
    EXPECT_TRUE(taken.insert(b).second);
  }
  while (superinfo_t* b = pool.take()) EXPECT_TRUE(taken.insert(b).second);
  EXPECT_EQ(taken.size(), 19u);
  EXPECT_EQ(pool.carved_bytes(), 19 * bytes);
  for (auto* b : taken) pool.give(b);
}

// take_resident hands out only buffers whose pages were touched: free ones, lent ones, and those
// of the pool's own chunks that earlier buffers covered (carved again at a new size); never
// fresh pages, which take() alone carves.
TEST(buffer_pool, resident_buffers_come_from_pages_touched_before) {
  const size_t nodes = 1024, bytes = nodes * sizeof(superinfo_t);
  buffer_pool_t pool(16 * bytes, 2 * nodes);
  pool.set_buffer_nodes(2 * nodes);
  EXPECT_EQ(pool.take_resident(), nullptr);  // nothing touched yet
  std::vector<superinfo_t*> first;
  for (int i = 0; i < 3; i++) first.push_back(pool.take());  // 6 * bytes of the own chunk
  pool.give(first[1]);
  EXPECT_EQ(pool.take_resident(), first[1]);  // a free buffer
  EXPECT_EQ(pool.take_resident(), nullptr);
  for (auto* b : first) pool.give(b);
  // Half the size: the six buffers carved again from the chunk's start, then none.
  pool.set_buffer_nodes(nodes);
  std::set<superinfo_t*> resident;
  while (superinfo_t* b = pool.take_resident()) {
    EXPECT_GE(b, first[0]);
    EXPECT_LT(b, first[0] + 6 * nodes);
    EXPECT_TRUE(resident.insert(b).second);
  }
  EXPECT_EQ(resident.size(), 6u);
  // A lent chunk counts as touched.
  std::vector<superinfo_t> lent(2 * nodes);
  pool.add_chunk({reinterpret_cast<uint8_t*>(lent.data()), 2 * bytes});
  for (int i = 0; i < 2; i++) {
    superinfo_t* b = pool.take_resident();
    ASSERT_NE(b, nullptr);
    EXPECT_GE(b, lent.data());
    EXPECT_LT(b, lent.data() + lent.size());
    resident.insert(b);
  }
  EXPECT_EQ(pool.take_resident(), nullptr);
  superinfo_t* fresh = pool.take();  // beyond the touched pages
  ASSERT_NE(fresh, nullptr);
  EXPECT_GE(fresh, first[0] + 6 * nodes);
  pool.give(fresh);
  for (auto* b : resident) pool.give(b);
}

// A pool of huge pages hands out the same buffers within the same budget, its chunks starting
// on a 2 MiB boundary (so that transparent huge pages can back them), for any buffer size.
TEST(buffer_pool, huge_pages_start_chunks_on_a_huge_page) {
  for (size_t nodes : {buffer_pool_t::block_nodes, size_t(4097), size_t(333)}) {
    SCOPED_TRACE(nodes);
    buffer_pool_t pool(70 * nodes * sizeof(superinfo_t), nodes, page_size_t::huge);
    std::vector<superinfo_t*> taken;
    while (superinfo_t* b = pool.take()) taken.push_back(b);
    ASSERT_EQ(taken.size(), 70u);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(taken.front()) % (size_t(2) << 20), 0u);
    for (size_t i = 0; i < taken.size(); i++) {
      taken[i][0].win.w[0] = i, taken[i][nodes - 1].notlose.w[3] = ~i;
    }
    for (size_t i = 0; i < taken.size(); i++) {
      EXPECT_EQ(taken[i][0].win.w[0], i);
      EXPECT_EQ(taken[i][nodes - 1].notlose.w[3], ~i);
    }
    for (auto* b : taken) pool.give(b);
  }
}

// With a first-touch chooser, the pool's own chunks are made resident a piece of chunk_bytes
// at a time as buffers are carved into them, and the buffers of a piece made resident count
// as touched for take_resident; lent chunks from their end down.
TEST(buffer_pool, first_touch_chooser_takes_pieces_of_own_chunks_as_they_are_carved) {
  const size_t piece = first_touch_chooser_t::chunk_bytes, bytes = buffer_pool_t::block_bytes;
  std::vector<std::pair<uintptr_t, size_t>> asked;
  first_touch_chooser_t chooser(page_probe_t{}, [&](uint8_t* at, size_t n, page_size_t) {
    asked.push_back({uintptr_t(at), n});
    return std::optional<double>();
  });
  buffer_pool_t pool(2 * piece, buffer_pool_t::block_nodes);
  pool.set_first_touch(&chooser);
  // Lent memory on whole pages, as an arena lends it.
  auto* const lent = static_cast<superinfo_t*>(map_pages(3 * bytes, page_size_t::base));
  ASSERT_NE(lent, nullptr);
  pool.add_chunk({reinterpret_cast<uint8_t*>(lent), 3 * bytes});
  superinfo_t* const lent_last = lent + 2 * buffer_pool_t::block_nodes;
  EXPECT_EQ(pool.take(), lent_last);
  // The lent chunk is smaller than a piece: all of it at once.
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(asked[0], std::make_pair(uintptr_t(lent), 3 * bytes));
  std::vector<superinfo_t*> taken_lent{lent_last, pool.take(), pool.take()};
  EXPECT_EQ(taken_lent[2], lent);
  EXPECT_EQ(asked.size(), 1u);
  superinfo_t* first = pool.take();
  ASSERT_EQ(asked.size(), 2u);
  EXPECT_EQ(asked[1], std::make_pair(uintptr_t(first), piece));
  // The rest of the piece is resident: take_resident carves it.
  std::vector<superinfo_t*> taken{first};
  for (size_t i = 1; i < piece / bytes; i++) {
    superinfo_t* b = pool.take_resident();
    ASSERT_NE(b, nullptr) << i;
    EXPECT_EQ(uintptr_t(b), uintptr_t(first) + i * bytes);
    taken.push_back(b);
  }
  EXPECT_EQ(pool.take_resident(), nullptr);
  EXPECT_EQ(asked.size(), 2u);
  taken.push_back(pool.take());
  ASSERT_EQ(asked.size(), 3u);
  EXPECT_EQ(asked[2], std::make_pair(uintptr_t(first) + piece, piece));
  for (auto* b : taken) pool.give(b);
  for (auto* b : taken_lent) pool.give(b);
  unmap_pages(lent, 3 * bytes);
}
