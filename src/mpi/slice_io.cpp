// Counts/samples reduction, parallel .pentago writes with MPI-IO, and restart reads.
#include "pentago/mpi/slice_io.h"

#include <algorithm>
#include <cstring>
#include <fstream>

#include "pentago/data/compress.h"
#include "pentago/data/npy.h"
#include "pentago/data/supertensor.h"
#include "pentago/end/run_plan.h"
#include "pentago/end/slice_output.h"
#include "pentago/mpi/comm.h"
#include "pentago/util/error.h"

namespace pentago {

void write_counts_and_samples(const std::string& dir, int slice, const block_store_t& store,
                              MPI_Comm comm) {
  const int rank = mpi_rank(comm), ranks = mpi_size(comm);
  const auto sections = store.sections();
  // Counts: one MPI_Reduce of 3 words per section.
  const auto counts = store.counts();
  std::vector<uint64_t> local(3 * sections.size()), total(rank == 0 ? local.size() : 0);
  for (size_t s = 0; s < sections.size(); s++)
    for (int i = 0; i < 3; i++) local[3 * s + i] = counts[s][i];
  PENTAGO_MPI(
      MPI_Reduce(local.data(), total.data(), int(local.size()), MPI_UINT64_T, MPI_SUM, 0, comm));
  // Samples: gather (section, draw, board, value) rows to rank 0.
  const auto samples = store.samples();
  constexpr int words = 11;
  std::vector<uint64_t> rows;
  rows.reserve(words * samples.size());
  for (const auto& s : samples) {
    rows.push_back(uint64_t(s.section));
    rows.push_back(uint64_t(s.draw));
    rows.push_back(s.board);
    for (uint64_t w : s.value.win.w) rows.push_back(w);
    for (uint64_t w : s.value.notlose.w) rows.push_back(w);
  }
  int count = int(rows.size());
  std::vector<int> sizes(ranks), offsets(ranks);
  PENTAGO_MPI(MPI_Gather(&count, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, comm));
  std::vector<uint64_t> all;
  if (rank == 0) {
    int n = 0;
    for (int r = 0; r < ranks; r++) offsets[r] = n, n += sizes[r];
    all.resize(n);
  }
  PENTAGO_MPI(MPI_Gatherv(rows.data(), count, MPI_UINT64_T, all.data(), sizes.data(),
                          offsets.data(), MPI_UINT64_T, 0, comm));
  if (rank != 0) return;
  std::vector<section_counts_t> merged(sections.size());
  for (size_t s = 0; s < sections.size(); s++)
    merged[s] = {total[3 * s], total[3 * s + 1], total[3 * s + 2]};
  write_counts(dir, slice, sections, merged);
  std::vector<sample_t> gathered(all.size() / words);
  for (size_t i = 0; i < gathered.size(); i++) {
    const uint64_t* row = &all[words * i];
    gathered[i].section = int(row[0]);
    gathered[i].draw = int(row[1]);
    gathered[i].board = row[2];
    for (int w = 0; w < 4; w++) gathered[i].value.win.w[w] = row[3 + w];
    for (int w = 0; w < 4; w++) gathered[i].value.notlose.w[w] = row[7 + w];
  }
  std::sort(gathered.begin(), gathered.end(), [](const sample_t& a, const sample_t& b) {
    return a.section != b.section ? a.section < b.section : a.draw < b.draw;
  });
  write_sparse(dir, slice, gathered);
}

namespace {

// Record shipped to a section's index owner: section, block, blob.
struct index_record_t {
  int64_t section;
  int64_t block;  // packed block_t
  uint64_t uncompressed, compressed, offset;
};

// A failed or short file write as one line naming the file ("no space left on device"),
// rather than MPI's error stack.
void check_write(int rc, const MPI_Status& status, size_t size, const std::string& path) {
  std::string reason;
  if (rc != MPI_SUCCESS) {
    int error_class = 0;
    MPI_Error_class(rc, &error_class);
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(rc, text, &length);
    // MPICH's text is a stack "class, error stack:\nfunction(line): detail": keep the detail.
    std::string detail(text, size_t(length));
    while (!detail.empty() && (detail.back() == '\n' || detail.back() == ' ')) detail.pop_back();
    detail = detail.substr(detail.rfind('\n') + 1);
    if (const size_t colon = detail.find("): "); colon != std::string::npos)
      detail = detail.substr(colon + 3);
    reason = error_class == MPI_ERR_NO_SPACE ? "no space left on device"
             : error_class == MPI_ERR_QUOTA  ? "disk quota exceeded"
                                             : detail;
  } else if (size) {
    int count = 0;
    MPI_Get_count(&status, MPI_BYTE, &count);
    if (count >= 0 && size_t(count) < size)
      reason =
          "wrote " + std::to_string(count) + " of " + std::to_string(size) + " bytes (disk full?)";
  }
  if (reason.empty()) return;
  throw pentago_error_t("cannot write " + path + ": " + reason);
}

void write_all(MPI_File file, uint64_t offset, std::span<const uint8_t> bytes,
               const std::string& path) {
  // Chunks below 2^31 bytes each; every rank calls the collective the same number of times.
  MPI_Status status;
  const int rc = MPI_File_write_at_all(file, MPI_Offset(offset), bytes.data(), int(bytes.size()),
                                       MPI_BYTE, &status);
  check_write(rc, status, bytes.size(), path);
}

}  // namespace

uint64_t write_slice_parallel(const std::string& path, int slice, const partition_t& partition,
                              const block_store_t& store, worker_pool_t& pool, MPI_Comm comm,
                              int level) {
  (void)slice;
  (void)partition;
  const int rank = mpi_rank(comm), ranks = mpi_size(comm);
  const auto sections = store.sections();
  const uint64_t headers = slice_headers_size(sections.size());

  // 1. Compress every owned block (disk format, interleaved, xz) on the workers.
  const int blocks = store.blocks();
  std::vector<std::vector<uint8_t>> compressed(blocks);
  xz_workspaces_t workspaces;
  for (int f = 0; f < blocks; f++)
    pool.push_back([&, f] {
      activity_timer_t timer(pool, activity_t::compress);
      std::vector<superinfo_t> values(store.nodes(f));
      store.read(f, values);
      const int turn = store.section(f).turn();
      for (auto& v : values) v = store_to_disk(v, turn);
      compress_disk_block(values, compressed[f], level, &workspaces);
    });
  pool.wait_idle();
  if (pool.failed()) throw pentago_error_t(pool.failure());

  // 2. Place this rank's blocks (plus one pad byte, as the 2013 writer did) by exclusive scan.
  uint64_t local_size = 1;
  for (const auto& c : compressed) local_size += c.size();
  PENTAGO_CHECK(local_size < (uint64_t(1) << 31), "a rank's slice data exceeds 2 GiB");
  uint64_t before = 0, data_total = 0;
  PENTAGO_MPI(MPI_Exscan(&local_size, &before, 1, MPI_UINT64_T, MPI_SUM, comm));
  if (rank == 0) before = 0;
  PENTAGO_MPI(MPI_Allreduce(&local_size, &data_total, 1, MPI_UINT64_T, MPI_SUM, comm));
  std::vector<index_record_t> records;
  records.reserve(blocks);
  uint64_t placed = 0;
  for (int f = 0; f < blocks; f++) {
    const auto& key = store.key(f);
    records.push_back(
        {key.section,
         int64_t(key.block[0] | key.block[1] << 8 | key.block[2] << 16 | key.block[3] << 24),
         64 * uint64_t(store.nodes(f)), compressed[f].size(), headers + before + placed});
    placed += compressed[f].size();
  }

  MPI_File file;
  const int rc = MPI_File_open(
      comm, path.c_str(), MPI_MODE_WRONLY | MPI_MODE_CREATE | MPI_MODE_EXCL, MPI_INFO_NULL, &file);
  if (rc != MPI_SUCCESS) throw pentago_error_t("cannot create " + path + " (it must not exist)");
  MPI_File_set_errhandler(file, MPI_ERRORS_RETURN);
  // The rank's part in collective pieces of at most slice_write_piece_bytes, every rank making
  // the same number of calls; each block's bytes are freed once copied into a piece, so the
  // part is never held twice (the memory plan counts it once, plus one piece).
  uint64_t my_pieces = (local_size + slice_write_piece_bytes - 1) / slice_write_piece_bytes,
           pieces = 0;
  PENTAGO_MPI(MPI_Allreduce(&my_pieces, &pieces, 1, MPI_UINT64_T, MPI_MAX, comm));
  std::vector<uint8_t> piece;
  uint64_t written = 0;
  int next_block = 0;
  size_t within = 0;  // bytes of compressed[next_block] already copied
  for (uint64_t k = 0; k < pieces; k++) {
    piece.clear();
    while (piece.size() < slice_write_piece_bytes && written + piece.size() < local_size) {
      if (next_block == blocks) {
        piece.push_back(0);  // the pad byte
        continue;
      }
      auto& c = compressed[next_block];
      const size_t take =
          size_t(std::min<uint64_t>(c.size() - within, slice_write_piece_bytes - piece.size()));
      piece.insert(piece.end(), c.begin() + ptrdiff_t(within),
                   c.begin() + ptrdiff_t(within + take));
      within += take;
      if (within == c.size()) {
        std::vector<uint8_t>().swap(c);
        next_block++, within = 0;
      }
    }
    write_all(file, headers + before + written, piece, path);
    written += piece.size();
  }
  PENTAGO_CHECK(written == local_size, "a rank's slice data was not written whole");

  // 3. Ship index records to section owners (contiguous ranges of section ids).
  std::vector<int> send_counts(ranks), send_offsets(ranks), recv_counts(ranks), recv_offsets(ranks);
  std::sort(records.begin(), records.end(), [&](const index_record_t& a, const index_record_t& b) {
    return a.section < b.section;
  });
  for (const auto& r : records)
    send_counts[partition_loop_inverse(sections.size(), ranks, uint64_t(r.section))] +=
        int(sizeof(index_record_t));
  PENTAGO_MPI(MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, comm));
  int sent = 0, received = 0;
  for (int r = 0; r < ranks; r++) {
    send_offsets[r] = sent, sent += send_counts[r];
    recv_offsets[r] = received, received += recv_counts[r];
  }
  std::vector<index_record_t> mine(received / sizeof(index_record_t));
  PENTAGO_MPI(MPI_Alltoallv(records.data(), send_counts.data(), send_offsets.data(), MPI_BYTE,
                            mine.data(), recv_counts.data(), recv_offsets.data(), MPI_BYTE, comm));
  const loop_range_t owned = partition_loop(sections.size(), ranks, rank);
  std::vector<std::vector<blob_t>> blobs(owned.end - owned.start);
  std::vector<std::vector<bool>> seen(blobs.size());
  for (uint64_t s = owned.start; s < owned.end; s++) {
    blobs[s - owned.start].resize(section_block_count(sections[s]));
    seen[s - owned.start].resize(section_block_count(sections[s]));
  }
  for (const auto& r : mine) {
    const uint64_t s = uint64_t(r.section);
    PENTAGO_CHECK(s >= owned.start && s < owned.end, "index record sent to the wrong rank");
    const block_t b = {uint8_t(r.block), uint8_t(r.block >> 8), uint8_t(r.block >> 16),
                       uint8_t(r.block >> 24)};
    const uint64_t i = block_index(sections[s], b);
    PENTAGO_CHECK(!seen[s - owned.start][i], "block written twice");
    seen[s - owned.start][i] = true;
    blobs[s - owned.start][i] = {r.uncompressed, r.compressed, r.offset};
  }
  for (const auto& v : seen)
    for (bool b : v) PENTAGO_CHECK(b, "a block of the slice was not written");

  // 4. Compress the owned indexes and place them after all block data.
  std::vector<uint8_t> index_chunk;
  std::vector<uint64_t> header_blobs(3 * sections.size(), 0);
  std::vector<std::vector<uint8_t>> indexes(blobs.size());
  for (size_t i = 0; i < blobs.size(); i++) indexes[i] = compress_block_index(blobs[i], level);
  uint64_t index_size = 1, index_before = 0;
  for (const auto& x : indexes) index_size += x.size();
  PENTAGO_MPI(MPI_Exscan(&index_size, &index_before, 1, MPI_UINT64_T, MPI_SUM, comm));
  if (rank == 0) index_before = 0;
  const uint64_t index_start = headers + data_total + index_before;
  for (size_t i = 0; i < indexes.size(); i++) {
    const uint64_t s = owned.start + i;
    header_blobs[3 * s] = 24 * blobs[i].size();
    header_blobs[3 * s + 1] = indexes[i].size();
    header_blobs[3 * s + 2] = index_start + index_chunk.size();
    index_chunk.insert(index_chunk.end(), indexes[i].begin(), indexes[i].end());
  }
  index_chunk.push_back(0);
  write_all(file, index_start, index_chunk, path);

  // 5. Rank 0 writes the headers once every index location is known.
  std::vector<uint64_t> all_blobs(rank == 0 ? header_blobs.size() : 0);
  PENTAGO_MPI(MPI_Reduce(header_blobs.data(), all_blobs.data(), int(header_blobs.size()),
                         MPI_UINT64_T, MPI_SUM, 0, comm));
  if (rank == 0) {
    std::vector<blob_t> index_blobs(sections.size());
    for (size_t s = 0; s < sections.size(); s++)
      index_blobs[s] = {all_blobs[3 * s], all_blobs[3 * s + 1], all_blobs[3 * s + 2]};
    const auto bytes = slice_file_headers(sections, index_blobs);
    MPI_Status status;
    check_write(MPI_File_write_at(file, 0, bytes.data(), int(bytes.size()), MPI_BYTE, &status),
                status, bytes.size(), path);
  }
  uint64_t total_index = 0;
  PENTAGO_MPI(MPI_Allreduce(&index_size, &total_index, 1, MPI_UINT64_T, MPI_SUM, comm));
  check_write(MPI_File_close(&file), MPI_Status{}, 0, path);
  return headers + data_total + total_index;
}

std::vector<section_t> restart_sections(const std::string& path, MPI_Comm comm) {
  std::string message;
  std::vector<uint64_t> sigs;
  if (mpi_rank(comm) == 0) {
    try {
      supertensor_reader_t reader(path);
      for (const auto& s : reader.sections()) sigs.push_back(s.sig());
      reader.load_indexes();
    } catch (const std::exception& e) {
      message = e.what();
    }
  }
  int length = int(message.size());
  PENTAGO_MPI(MPI_Bcast(&length, 1, MPI_INT, 0, comm));
  message.resize(length);
  PENTAGO_MPI(MPI_Bcast(message.data(), length, MPI_CHAR, 0, comm));
  if (length) throw usage_error_t("bad restart file: " + message);
  int count = int(sigs.size());
  PENTAGO_MPI(MPI_Bcast(&count, 1, MPI_INT, 0, comm));
  sigs.resize(count);
  PENTAGO_MPI(MPI_Bcast(sigs.data(), count, MPI_UINT64_T, 0, comm));
  std::vector<section_t> sections;
  for (uint64_t s : sigs) sections.push_back(section_t::from_sig(s));
  return sections;
}

void read_restart_blocks(const std::string& path, block_store_t& store, worker_pool_t& pool) {
  auto reader = std::make_shared<supertensor_reader_t>(path);
  std::vector<int> file_index(store.sections().size());
  for (size_t s = 0; s < file_index.size(); s++) {
    file_index[s] = reader->section_index(store.sections()[s]);
    PENTAGO_CHECK(file_index[s] >= 0, "restart file lacks a section");
  }
  for (int f = 0; f < store.blocks(); f++)
    pool.push_back([&, f] {
      activity_timer_t timer(pool, activity_t::io);
      const auto& key = store.key(f);
      auto values = reader->read_block(file_index[key.section], key.block);
      const int turn = store.section(f).turn();
      for (auto& v : values) v = disk_to_store(v, turn);
      store.set(f, values);
    });
  pool.wait_idle();
  if (pool.failed()) throw pentago_error_t(pool.failure());
}

}  // namespace pentago
