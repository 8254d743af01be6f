// Collective slice I/O of the MPI engine: counts and samples gathered to rank 0, the
// .pentago slice file written in parallel with MPI-IO (offsets by exclusive scan, no shared
// file pointers), and restart from a slice file on any rank count and key.
#pragma once
#include <mpi.h>

#include <memory>
#include <string>

#include "pentago/end/block_store.h"
#include "pentago/end/partition.h"
#include "pentago/util/worker_pool.h"

namespace pentago {

// Reduces counts and gathers samples to rank 0, which writes counts-N.npy and sparse-N.npy
// (samples in canonical (section, draw) order, so files do not depend on ranks or keys).
void write_counts_and_samples(const std::string& dir, int slice, const block_store_t& store,
                              MPI_Comm comm);

// Writes slice-N.pentago collectively. Blocks are compressed on the worker pool. Returns the
// file size.
uint64_t write_slice_parallel(const std::string& path, int slice, const partition_t& partition,
                              const block_store_t& store, worker_pool_t& pool, MPI_Comm comm,
                              int level);

// The slice and sections of a restart file (read by rank 0, broadcast). Throws on a corrupt
// or unreadable file.
std::vector<section_t> restart_sections(const std::string& path, MPI_Comm comm);
// Fills `store` (this rank's blocks of the file's slice) from the file, on the worker pool.
void read_restart_blocks(const std::string& path, block_store_t& store, worker_pool_t& pool);

}  // namespace pentago
