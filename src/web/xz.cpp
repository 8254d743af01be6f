// The xz decoder of the explorer's WebAssembly module: the .xz container (stream header and
// footer, block headers, the index), LZMA2 chunks and the LZMA range decoder, written from
// the published format descriptions. The whole output is in memory, so the output buffer is
// the dictionary: a match may reach back to the last dictionary reset, never further.
#include "pentago/web/xz.h"

#include <array>
#include <cstring>

#include "pentago/util/error.h"

namespace pentago {
namespace {

// The table of a reflected CRC with this polynomial, one entry per byte.
template <class Word, Word polynomial>
constexpr std::array<Word, 256> make_crc_table() {
  std::array<Word, 256> t{};
  for (Word i = 0; i < 256; i++) {
    Word c = i;
    for (int k = 0; k < 8; k++) c = c & 1 ? polynomial ^ (c >> 1) : c >> 1;
    t[i] = c;
  }
  return t;
}

constexpr auto crc32_table = make_crc_table<uint32_t, 0xedb88320u>();
constexpr auto crc64_table = make_crc_table<uint64_t, 0xc96c5795d7870f42ull>();

uint32_t load32(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

uint64_t load64(const uint8_t* p) { return uint64_t(load32(p)) | uint64_t(load32(p + 4)) << 32; }

// Input bytes with the error prefix; every read is bounds checked.
struct reader_t {
  std::span<const uint8_t> in;
  size_t pos = 0;
  const std::string& what;

  [[noreturn]] void fail(const std::string& why) const {
    throw pentago_error_t(what + ": " + why + " (xz byte " + std::to_string(pos) + ")");
  }
  void need(size_t n) const {
    if (in.size() - pos < n) fail("truncated xz data");
  }
  uint8_t byte() {
    need(1);
    return in[pos++];
  }
  // A variable-length integer (7 bits per byte, at most 9 bytes, no redundant zero byte).
  uint64_t vli() {
    uint64_t v = 0;
    for (int i = 0; i < 9; i++) {
      const uint8_t b = byte();
      v |= uint64_t(b & 0x7f) << 7 * i;
      if (!(b & 0x80)) {
        if (i > 0 && b == 0) fail("bad xz integer");
        return v;
      }
    }
    fail("bad xz integer");
  }
};

// ---- LZMA -----------------------------------------------------------------------------------
constexpr int prob_bits = 11;
constexpr uint16_t prob_init = 1 << (prob_bits - 1);

struct range_decoder_t {
  const uint8_t* p = nullptr;
  const uint8_t* end = nullptr;
  uint32_t range = 0, code = 0;
  bool overrun = false;

  uint8_t next() {
    if (p == end) {
      overrun = true;
      return 0;
    }
    return *p++;
  }
  // Five bytes: a zero, then the first code word (big endian).
  bool init(const uint8_t* begin, const uint8_t* stop) {
    p = begin, end = stop, overrun = false;
    range = 0xffffffffu, code = 0;
    if (next() != 0) return false;
    for (int i = 0; i < 4; i++) code = code << 8 | next();
    return code != range && !overrun;
  }
  void normalize() {
    if (range < (1u << 24)) range <<= 8, code = code << 8 | next();
  }
  int bit(uint16_t& prob) {
    normalize();
    const uint32_t bound = (range >> prob_bits) * prob;
    if (code < bound) {
      range = bound;
      prob += ((1 << prob_bits) - prob) >> 5;
      return 0;
    }
    range -= bound, code -= bound;
    prob -= prob >> 5;
    return 1;
  }
  uint32_t direct(int count) {
    uint32_t v = 0;
    for (int i = 0; i < count; i++) {
      normalize();
      range >>= 1;
      const uint32_t b = code >= range ? 1 : 0;
      code -= range & (0u - b);
      v = v << 1 | b;
    }
    return v;
  }
  // A bit tree of `bits` levels, most significant bit first.
  uint32_t tree(uint16_t* probs, int bits) {
    uint32_t m = 1;
    for (int i = 0; i < bits; i++) m = m << 1 | uint32_t(bit(probs[m]));
    return m - (1u << bits);
  }
  // The same, least significant bit first.
  uint32_t reverse_tree(uint16_t* probs, int bits) {
    uint32_t m = 1, v = 0;
    for (int i = 0; i < bits; i++) {
      const uint32_t b = uint32_t(bit(probs[m]));
      m = m << 1 | b;
      v |= b << i;
    }
    return v;
  }
};

constexpr int states = 12, pos_states_max = 16;
constexpr int end_pos_model_index = 14, full_distances = 128, align_bits = 4;

struct length_decoder_t {
  uint16_t choice, choice2;
  uint16_t low[pos_states_max][8], mid[pos_states_max][8], high[256];

  void reset() {
    choice = choice2 = prob_init;
    for (auto& row : low)
      for (auto& p : row) p = prob_init;
    for (auto& row : mid)
      for (auto& p : row) p = prob_init;
    for (auto& p : high) p = prob_init;
  }
  // 0-based: the match length less 2.
  uint32_t decode(range_decoder_t& rc, int pos_state) {
    if (!rc.bit(choice)) return rc.tree(low[pos_state], 3);
    if (!rc.bit(choice2)) return 8 + rc.tree(mid[pos_state], 3);
    return 16 + rc.tree(high, 8);
  }
};

struct lzma_state_t {
  int lc = 0, lp = 0, pb = 0;
  int state = 0;
  uint32_t rep[4] = {0, 0, 0, 0};
  uint16_t is_match[states][pos_states_max], is_rep[states], is_rep_g0[states], is_rep_g1[states],
      is_rep_g2[states], is_rep0_long[states][pos_states_max];
  uint16_t pos_slot[4][64], pos_special[full_distances - end_pos_model_index], align[16];
  length_decoder_t len, rep_len;
  std::vector<uint16_t> literal;

  void reset_state() {
    state = 0;
    for (auto& r : rep) r = 0;
    for (auto& row : is_match)
      for (auto& p : row) p = prob_init;
    for (auto& row : is_rep0_long)
      for (auto& p : row) p = prob_init;
    for (int i = 0; i < states; i++)
      is_rep[i] = is_rep_g0[i] = is_rep_g1[i] = is_rep_g2[i] = prob_init;
    for (auto& row : pos_slot)
      for (auto& p : row) p = prob_init;
    for (auto& p : pos_special) p = prob_init;
    for (auto& p : align) p = prob_init;
    len.reset();
    rep_len.reset();
    literal.assign(size_t(0x300) << (lc + lp), prob_init);
  }
};

// Decodes one LZMA chunk of `size` bytes into out[pos, pos + size), reading [begin, end); the
// dictionary starts at out[dict_start]. Returns false on corrupt data.
bool lzma_chunk(lzma_state_t& s, range_decoder_t& rc, uint8_t* out, size_t dict_start, size_t pos,
                size_t size) {
  const size_t stop = pos + size;
  const uint32_t pb_mask = (1u << s.pb) - 1, lp_mask = (1u << s.lp) - 1;
  while (pos < stop) {
    const size_t at = pos - dict_start;  // the position in the dictionary
    const int pos_state = int(at & pb_mask);
    if (!rc.bit(s.is_match[s.state][pos_state])) {
      // A literal; after a match, decoded against the byte at distance rep0.
      const uint32_t prev = pos > dict_start ? out[pos - 1] : 0;
      uint16_t* probs = &s.literal[0x300 * (((at & lp_mask) << s.lc) + (prev >> (8 - s.lc)))];
      uint32_t symbol = 1;
      if (s.state >= 7) {
        if (pos - dict_start <= s.rep[0]) return false;
        uint32_t match = out[pos - s.rep[0] - 1];
        while (symbol < 0x100) {
          const uint32_t match_bit = (match >> 7) & 1;
          match <<= 1;
          const uint32_t b = uint32_t(rc.bit(probs[0x100 + (match_bit << 8) + symbol]));
          symbol = symbol << 1 | b;
          if (match_bit != b) break;
        }
      }
      while (symbol < 0x100) symbol = symbol << 1 | uint32_t(rc.bit(probs[symbol]));
      out[pos++] = uint8_t(symbol);
      s.state = s.state < 4 ? 0 : s.state < 10 ? s.state - 3 : s.state - 6;
      continue;
    }
    uint32_t length;
    if (!rc.bit(s.is_rep[s.state])) {
      // A new match: length, then distance by slot.
      length = s.len.decode(rc, pos_state);
      s.state = s.state < 7 ? 7 : 10;
      const uint32_t slot = rc.tree(s.pos_slot[length < 3 ? length : 3], 6);
      uint32_t distance;
      if (slot < 4) {
        distance = slot;
      } else {
        const int direct = int(slot >> 1) - 1;
        distance = (2 | (slot & 1)) << direct;
        if (slot < end_pos_model_index) {
          distance += rc.reverse_tree(s.pos_special + distance - slot - 1, direct);
        } else {
          distance += rc.direct(direct - align_bits) << align_bits;
          distance += rc.reverse_tree(s.align, align_bits);
        }
      }
      s.rep[3] = s.rep[2], s.rep[2] = s.rep[1], s.rep[1] = s.rep[0], s.rep[0] = distance;
      if (distance == 0xffffffffu) return false;  // an end marker: LZMA2 chunks have none
    } else {
      if (!rc.bit(s.is_rep_g0[s.state])) {
        if (!rc.bit(s.is_rep0_long[s.state][pos_state])) {
          // A short rep: one byte at distance rep0.
          s.state = s.state < 7 ? 9 : 11;
          if (pos - dict_start <= s.rep[0]) return false;
          out[pos] = out[pos - s.rep[0] - 1];
          pos++;
          continue;
        }
      } else {
        uint32_t distance;
        if (!rc.bit(s.is_rep_g1[s.state])) {
          distance = s.rep[1];
        } else {
          if (!rc.bit(s.is_rep_g2[s.state])) {
            distance = s.rep[2];
          } else {
            distance = s.rep[3];
            s.rep[3] = s.rep[2];
          }
          s.rep[2] = s.rep[1];
        }
        s.rep[1] = s.rep[0];
        s.rep[0] = distance;
      }
      length = s.rep_len.decode(rc, pos_state);
      s.state = s.state < 7 ? 8 : 11;
    }
    // Copy length + 2 bytes from distance rep0 + 1; a match may not pass the chunk's end.
    const size_t count = size_t(length) + 2;
    if (pos - dict_start <= s.rep[0] || count > stop - pos) return false;
    const size_t from = pos - s.rep[0] - 1;
    for (size_t i = 0; i < count; i++) out[pos + i] = out[from + i];
    pos += count;
  }
  rc.normalize();  // the encoder's flush ends on a whole code word
  return !rc.overrun;
}

// An LZMA2 stream (a block's compressed data) into out[0, size): returns the bytes read.
size_t lzma2_decode(reader_t& r, size_t end, uint8_t* out, size_t size) {
  lzma_state_t s;
  size_t pos = 0, dict_start = 0;
  bool need_dict_reset = true, need_props = true;
  for (;;) {
    if (r.pos >= end) r.fail("truncated LZMA2 data");
    const uint8_t control = r.byte();
    if (control == 0x00) return pos;
    if (control >= 0xe0 || control == 0x01) {
      dict_start = pos;
      need_dict_reset = false;
    } else if (need_dict_reset) {
      r.fail("LZMA2 data starts without a dictionary reset");
    }
    if (control == 0x01 || control == 0x02) {
      // An uncompressed chunk.
      r.need(2);
      const size_t n = (size_t(r.in[r.pos]) << 8 | r.in[r.pos + 1]) + 1;
      r.pos += 2;
      r.need(n);
      if (n > size - pos) r.fail("LZMA2 data larger than expected");
      std::memcpy(out + pos, r.in.data() + r.pos, n);
      r.pos += n, pos += n;
      continue;
    }
    if (control < 0x80) r.fail("bad LZMA2 chunk");
    r.need(4);
    const size_t unpacked =
        (size_t(control & 0x1f) << 16 | size_t(r.in[r.pos]) << 8 | r.in[r.pos + 1]) + 1;
    const size_t packed = (size_t(r.in[r.pos + 2]) << 8 | r.in[r.pos + 3]) + 1;
    r.pos += 4;
    const int reset = (control >> 5) & 3;
    if (reset >= 2) {
      const int props = r.byte();
      if (props >= 9 * 5 * 5) r.fail("bad LZMA properties");
      s.lc = props % 9, s.lp = (props / 9) % 5, s.pb = props / 45;
      if (s.lc + s.lp > 4) r.fail("bad LZMA2 properties (lc + lp > 4)");
      need_props = false;
    } else if (need_props) {
      r.fail("LZMA2 chunk without properties");
    }
    if (reset >= 1) s.reset_state();
    if (unpacked > size - pos) r.fail("LZMA2 data larger than expected");
    r.need(packed);
    range_decoder_t rc;
    if (!rc.init(r.in.data() + r.pos, r.in.data() + r.pos + packed)) r.fail("corrupt LZMA2 chunk");
    if (!lzma_chunk(s, rc, out, dict_start, pos, unpacked) || rc.p != rc.end || rc.code != 0)
      r.fail("corrupt LZMA2 chunk");
    r.pos += packed, pos += unpacked;
  }
}

}  // namespace

uint32_t xz_crc32(std::span<const uint8_t> data) {
  uint32_t c = 0xffffffffu;
  for (const uint8_t b : data) c = crc32_table[(c ^ b) & 0xff] ^ (c >> 8);
  return ~c;
}

uint64_t xz_crc64(std::span<const uint8_t> data) {
  uint64_t c = ~uint64_t(0);
  for (const uint8_t b : data) c = crc64_table[(c ^ b) & 0xff] ^ (c >> 8);
  return ~c;
}

void xz_decode(std::span<const uint8_t> in, std::span<uint8_t> out, const std::string& what) {
  reader_t r{in, 0, what};
  static constexpr uint8_t magic[6] = {0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00};
  r.need(12);
  if (std::memcmp(in.data(), magic, 6) != 0) r.fail("not xz data (bad magic)");
  const uint8_t flags[2] = {in[6], in[7]};
  if (xz_crc32(in.subspan(6, 2)) != load32(in.data() + 8)) r.fail("corrupt xz stream header");
  if (flags[0] != 0 || flags[1] > 0x0f) r.fail("unsupported xz stream flags");
  const int check = flags[1];
  if (check != 0 && check != 1 && check != 4)
    r.fail("unsupported xz check type " + std::to_string(check) + " (none, CRC32 or CRC64)");
  const size_t check_size = check == 0 ? 0 : check == 1 ? 4 : 8;
  r.pos = 12;
  // Blocks until the index; the sizes of each for the index's records.
  struct record_t {
    uint64_t unpadded, uncompressed;
  };
  std::vector<record_t> records;
  size_t produced = 0;
  for (;;) {
    const size_t header_start = r.pos;
    const uint8_t size_byte = r.byte();
    if (size_byte == 0) break;  // the index
    const size_t header_size = (size_t(size_byte) + 1) * 4;
    r.pos = header_start;
    r.need(header_size);
    const size_t header_end = header_start + header_size;
    if (xz_crc32(in.subspan(header_start, header_size - 4)) != load32(in.data() + header_end - 4))
      r.fail("corrupt xz block header");
    r.pos = header_start + 1;
    const uint8_t block_flags = r.byte();
    if (block_flags & 0x3c) r.fail("unsupported xz block flags");
    if ((block_flags & 3) != 0) r.fail("unsupported xz filter chain (LZMA2 only)");
    uint64_t compressed_size = ~uint64_t(0), uncompressed_size = ~uint64_t(0);
    if (block_flags & 0x40) compressed_size = r.vli();
    if (block_flags & 0x80) uncompressed_size = r.vli();
    if (r.vli() != 0x21) r.fail("unsupported xz filter (LZMA2 only)");
    if (r.vli() != 1) r.fail("bad LZMA2 filter properties");
    if (r.byte() > 40) r.fail("bad LZMA2 dictionary size");
    if (r.pos > header_end - 4) r.fail("corrupt xz block header");
    for (; r.pos < header_end - 4; r.pos++)
      if (in[r.pos] != 0) r.fail("corrupt xz block header padding");
    r.pos = header_end;
    const size_t data_start = r.pos;
    const size_t n = lzma2_decode(r, in.size(), out.data() + produced, out.size() - produced);
    const uint64_t compressed = r.pos - data_start;
    if (compressed_size != ~uint64_t(0) && compressed_size != compressed)
      r.fail("xz block compressed size disagrees with its header");
    if (uncompressed_size != ~uint64_t(0) && uncompressed_size != n)
      r.fail("xz block size disagrees with its header");
    while ((r.pos - header_start) % 4) {
      if (r.byte() != 0) r.fail("corrupt xz block padding");
    }
    r.need(check_size);
    const std::span<const uint8_t> data(out.data() + produced, n);
    if ((check == 1 && xz_crc32(data) != load32(in.data() + r.pos)) ||
        (check == 4 && xz_crc64(data) != load64(in.data() + r.pos)))
      r.fail("corrupt xz data (check failed)");
    r.pos += check_size;
    records.push_back({header_size + compressed + check_size, n});
    produced += n;
  }
  // The index: its records must match the blocks.
  const size_t index_start = r.pos - 1;
  if (r.vli() != records.size()) r.fail("xz index disagrees with the blocks");
  for (const record_t& rec : records)
    if (r.vli() != rec.unpadded || r.vli() != rec.uncompressed)
      r.fail("xz index disagrees with the blocks");
  while ((r.pos - index_start) % 4) {
    if (r.byte() != 0) r.fail("corrupt xz index padding");
  }
  r.need(4);
  if (xz_crc32(in.subspan(index_start, r.pos - index_start)) != load32(in.data() + r.pos))
    r.fail("corrupt xz index");
  r.pos += 4;
  const size_t index_size = r.pos - index_start;
  // The footer: CRC32, backward size, the same flags, "YZ".
  r.need(12);
  const uint8_t* f = in.data() + r.pos;
  if (xz_crc32(in.subspan(r.pos + 4, 6)) != load32(f) || f[10] != 'Y' || f[11] != 'Z' ||
      f[8] != flags[0] || f[9] != flags[1] || (uint64_t(load32(f + 4)) + 1) * 4 != index_size)
    r.fail("corrupt xz stream footer");
  r.pos += 12;
  if (produced != out.size())
    throw pentago_error_t(what + ": xz data decodes to " + std::to_string(produced) +
                          " bytes, expected " + std::to_string(out.size()));
  if (r.pos != in.size())
    throw pentago_error_t(what + ": " + std::to_string(in.size() - r.pos) +
                          " trailing bytes after the xz stream");
}

std::vector<uint8_t> xz_decode(std::span<const uint8_t> in, uint64_t size,
                               const std::string& what) {
  std::vector<uint8_t> out(size);
  xz_decode(in, out, what);
  return out;
}

}  // namespace pentago
