// Per-slice result files shared by the in-process and MPI drivers: counts-N.npy rows
// [sig, black wins, white wins, total] and sparse-N.npy rows [board, black super, white
// super] (docs/formats.md, "Files"), and the store -> disk value conversion.
#pragma once
#include <string>
#include <vector>

#include "pentago/data/supertensor.h"
#include "pentago/end/block_store.h"

namespace pentago {

// Rows of counts-N.npy from (win, notlose, total) per section.
std::vector<uint64_t> counts_rows(int slice, std::span<const section_t> sections,
                                  std::span<const section_counts_t> counts);
// Rows of sparse-N.npy (9 words each) from store-format samples.
std::vector<uint64_t> sparse_rows(int slice, std::span<const sample_t> samples);

void write_counts(const std::string& dir, int slice, std::span<const section_t> sections,
                  std::span<const section_counts_t> counts);
void write_sparse(const std::string& dir, int slice, std::span<const sample_t> samples);

// Creates a new run directory; throws if it already exists (nothing is ever overwritten).
void create_run_directory(const std::string& dir);

}  // namespace pentago
