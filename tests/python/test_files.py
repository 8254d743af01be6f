"""read_counts and read_sparse equal numpy.load of the same files; SliceFile blocks hold the
values that pentago-lookup reads for the same boards."""

import math
import os

import numpy
import pytest

import pentago
from conftest import lookup_json


@pytest.mark.parametrize("n", [0, 1, 17, 35])
def test_read_counts_equals_numpy(data_dir, n):
    path = os.path.join(data_dir, f"counts-{n}.npy")
    counts = pentago.read_counts(path)
    plain = numpy.load(path)
    assert counts.dtype.names == ("section", "black_wins", "white_wins", "total")
    assert counts.shape == (plain.shape[0],)
    for column, name in enumerate(counts.dtype.names):
        assert numpy.array_equal(counts[name], plain[:, column])


@pytest.mark.parametrize("n", [0, 1, 2, 18, 35])
def test_slice_totals_count_every_board(data_dir, n):
    black, white, total = pentago.slice_totals(os.path.join(data_dir, f"counts-{n}.npy"))
    assert total == math.comb(36, n) * math.comb(n, n // 2)
    assert 0 <= black + white <= total
    if n == 0:
        assert (black, white) == (1, 0)  # the empty board is a black win
    with pytest.raises(pentago.UsageError, match="invalid section id"):
        pentago.section_weight(0xffff)


def test_read_sparse_equals_numpy(tmp_path):
    rows = numpy.arange(5 * 9, dtype="<u8").reshape(5, 9) * 0x0101010101
    path = str(tmp_path / "sparse-3.npy")
    numpy.save(path, rows)
    sparse = pentago.read_sparse(path)
    assert numpy.array_equal(sparse["board"], rows[:, 0])
    assert numpy.array_equal(sparse["black"], rows[:, 1:5])
    assert numpy.array_equal(sparse["white"], rows[:, 5:9])


def test_wrong_files_raise(tmp_path, data_dir):
    with pytest.raises(pentago.Error, match="9 columns, not 4"):
        pentago.read_sparse(os.path.join(data_dir, "counts-3.npy"))
    bad = tmp_path / "counts-1.npy"
    bad.write_bytes(b"not a numpy file")
    with pytest.raises(pentago.Error, match="counts-1.npy"):
        pentago.read_counts(str(bad))
    with pytest.raises(pentago.Error):
        pentago.SliceFile(str(bad))


def bit0(words):
    return int(words[0]) & 1


@pytest.mark.parametrize("n", [0, 1])
def test_slice_blocks_equal_lookup(bin_dir, data_dir, n):
    """Every node of slice n: the unrotated board's stored value (bit 0 of black and white
    wins) is the value pentago-lookup gives that board to place, read from slice n + 1."""
    f = pentago.SliceFile(os.path.join(data_dir, f"slice-{n}.pentago"))
    assert f.slice == n and f.sections
    checked = 0
    for s in range(len(f.sections)):
        shape = f.shape(s)
        blocks = f.blocks(s)
        assert blocks == [(k + 7) // 8 for k in shape]
        for index in numpy.ndindex(*blocks):
            block = f.block(s, index)
            assert block.dtype.names == ("black", "white")
            for node in numpy.ndindex(*block.shape):
                board = f.board(s, [8 * b + i for b, i in zip(index, node)])
                black, white = bit0(block[node]["black"]), bit0(block[node]["white"])
                assert not (black and white)
                mover_is_black = n % 2 == 0
                value = "tie" if black == white else \
                    "win" if (black == 1) == mover_is_black else "loss"
                answer = lookup_json(bin_dir, board, data_dir)
                assert answer["value"] == value, f"board {board}"
                checked += 1
    assert checked > 0


def test_slice_file_bad_indices(data_dir):
    f = pentago.SliceFile(os.path.join(data_dir, "slice-1.pentago"))
    with pytest.raises(pentago.UsageError, match="no section"):
        f.block(len(f.sections), [0, 0, 0, 0])
    with pytest.raises(pentago.UsageError, match="outside"):
        f.block(0, [9, 0, 0, 0])


CCW = [6, 3, 0, 7, 4, 1, 8, 5, 2]  # a stone at local cell i moves to CCW[i]


def rotate_quadrants(board, g):
    """The packed board with quadrant q turned counterclockwise g_q times, for the local
    rotation g = g0 + 4 g1 + 16 g2 + 64 g3 (the bit order of a 256-bit value)."""
    out = 0
    for q in range(4):
        field = (board >> (16 * q)) & 0xffff
        digits = [(field // 3**i) % 3 for i in range(9)]
        for _ in range((g >> (2 * q)) & 3):
            turned = [0] * 9
            for i, d in enumerate(digits):
                turned[CCW[i]] = d
            digits = turned
        out |= sum(d * 3**i for i, d in enumerate(digits)) << (16 * q)
    return out


def bit(words, g):
    return (int(words[g >> 6]) >> (g & 63)) & 1


@pytest.mark.parametrize("n", [0, 1, 2])
def test_slice_blocks_hold_every_rotation(data_dir, n):
    """Every node of slice n and every one of its 256 local rotations g: bit g of the stored
    black and white wins is the value the query engine gives the board with each quadrant
    turned as g says."""
    f = pentago.SliceFile(os.path.join(data_dir, f"slice-{n}.pentago"))
    engine = pentago.Engine(db=[data_dir])
    mover_is_black = n % 2 == 0
    checked, values = set(), set()
    for s in range(len(f.sections)):
        for index in numpy.ndindex(*f.blocks(s)):
            block = f.block(s, index)
            for node in numpy.ndindex(*block.shape):
                board = f.board(s, [8 * b + i for b, i in zip(index, node)])
                for g in range(256):
                    black, white = bit(block[node]["black"], g), bit(block[node]["white"], g)
                    assert not (black and white)
                    value = 0 if black == white else 1 if (black == 1) == mover_is_black else -1
                    rotated = rotate_quadrants(pentago.Position(board).board, g)
                    assert engine.value(pentago.Position(rotated, False)) == value, \
                        f"board {board}, rotation {g}"
                    checked.add(rotated)
                    values.add(value)
    if n:  # the rotations reach other boards, of more than one value
        assert len(checked) > len(f.sections) and len(values) > 1
