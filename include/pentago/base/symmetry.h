// The symmetry groups of pentago: 8 global symmetries (D4), 256 local quadrant rotations and
// their 2048-element semidirect product, with composition, inverses, conjugation, application
// to sides and boards, and standardization (docs/formats.md, "Symmetries", a data contract).
#pragma once
#include <array>
#include <cstdint>
#include <string>

#include "pentago/base/board.h"

namespace pentago {

// Global part: bit 2 reflects, bits 0-1 count global CCW quarter turns (rotate first, then
// reflect). Local part: 2 bits per quadrant, CCW quarter turns. Acts local first, then global.
struct symmetry_t {
  uint8_t global = 0;
  uint8_t local = 0;

  constexpr symmetry_t() = default;
  constexpr symmetry_t(int g, int l) : global(uint8_t(g)), local(uint8_t(l)) {}
  // Enumeration index global*256 + local in 0..2047.
  static constexpr symmetry_t from_index(int idx) { return symmetry_t(idx >> 8, idx & 255); }
  constexpr int index() const { return global << 8 | local; }
  constexpr bool operator==(const symmetry_t&) const = default;
};

// commute_table[g][l] = local part of G_g^-1 * L_l * G_g.
extern const std::array<std::array<uint8_t, 256>, 8> commute_table;

// Quadrant q of the result takes quadrant source_quadrant[k][q] under k global CCW turns.
extern const int source_quadrant[4][4];

int global_inverse(int g);
symmetry_t operator*(symmetry_t a, symmetry_t b);  // a after b
symmetry_t inverse(symmetry_t s);

// Conjugate a local rotation vector by a global symmetry: G w G^-1.
int conjugate_local(int global, int local);

side_t transform_side(symmetry_t s, side_t side);
board_t transform_board(symmetry_t s, board_t board);

// Quadrant permutation of a global symmetry: result quadrant j holds old quadrant perm[j].
std::array<int, 4> quadrant_permutation(int global);

// Least board over the 8 global symmetries (and one that reaches it).
board_t standardize(board_t board, int* global = nullptr);
// Least board over all 2048 symmetries (and one symmetry that reaches it).
board_t superstandardize(board_t board, symmetry_t* symmetry = nullptr);

std::string str_symmetry(symmetry_t s);

}  // namespace pentago
