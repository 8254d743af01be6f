// A small xz decoder for the explorer's WebAssembly module, which cannot link liblzma: one xz
// stream (the .xz container of slice blocks and block indexes) holding LZMA2 data, checked by
// its CRC32 or CRC64 (a SHA-256 check is refused), decoded whole into memory.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace pentago {

// Decodes one xz stream into exactly out.size() bytes. Throws pentago::error with a one-line
// reason prefixed by `what` for anything else: a bad header, corrupt or truncated data, a
// failed check, another filter than LZMA2, a size that differs, trailing bytes.
void xz_decode(std::span<const uint8_t> in, std::span<uint8_t> out, const std::string& what);

// The same into a new buffer of `size` bytes.
std::vector<uint8_t> xz_decode(std::span<const uint8_t> in, uint64_t size, const std::string& what);

// The CRC-32 (IEEE, as xz and zlib) and CRC-64 (ECMA-182, as xz) of `data`.
uint32_t xz_crc32(std::span<const uint8_t> data);
uint64_t xz_crc64(std::span<const uint8_t> data);

}  // namespace pentago
