"""pentago.sample and pentago-sample: reproducible from the seed, boards with the right stones and
no finished game, uniform over boards, and every label equal to a fresh query."""

import collections
import os
import subprocess
import sys

import numpy
import pytest

import pentago
from conftest import lookup_json

VALUE_WORDS = {1: "win", 0: "tie", -1: "loss"}


def five_in_a_row(compact, stone):
    """Whether the 36-character board has five of `stone` in a row, column or diagonal."""
    grid = [compact[6 * r:6 * r + 6] for r in range(6)]
    for r in range(6):
        for c in range(6):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + k * dr, c + k * dc) for k in range(5)]
                if all(0 <= y < 6 and 0 <= x < 6 and grid[y][x] == stone for y, x in cells):
                    return True
    return False


def test_reproducible_from_seed():
    a = pentago.sample(22, 6, seed=5, threads=1)
    b = pentago.sample(22, 6, seed=5, threads=1)
    assert a.keys() == b.keys()
    for key in a:
        assert numpy.array_equal(a[key], b[key])
    # The first positions do not depend on the sample size; another seed gives others.
    assert numpy.array_equal(pentago.random_positions(22, 3, seed=5), a["boards"][:3])
    assert not numpy.array_equal(pentago.random_positions(22, 6, seed=6), a["boards"])


@pytest.mark.parametrize("stones", [1, 2, 17, 26, 35])
def test_boards_are_unfinished_positions(stones):
    for board in pentago.random_positions(stones, 50, seed=stones):
        p = pentago.Position(int(board))
        assert p.stones == stones and not p.to_rotate
        black = p.compact.count("0")
        assert black == (stones + 1) // 2 and p.compact.count("1") == stones // 2
        assert not five_in_a_row(p.compact, "0") and not five_in_a_row(p.compact, "1")
        if stones >= 26:  # the game goes on: the query path lists moves
            assert pentago.query(p, threads=1)["moves"]


def test_finished_boards_rejected():
    # At 35 stones most boards have five in a row; those drawn must not.
    for board in pentago.random_positions(35, 5, seed=2):
        compact = pentago.Position(int(board)).compact
        assert not five_in_a_row(compact, "0") and not five_in_a_row(compact, "1")
    assert five_in_a_row("00000" + "_" * 31, "0") and five_in_a_row("0______0______0______0______0" + "_" * 7, "0")


def test_uniform_over_boards():
    # One stone: the 36 boards equally likely (3600 draws, each board about 100 times; the
    # bounds are more than 4 standard deviations away).
    counts = collections.Counter(pentago.random_positions(1, 3600, seed=1).tolist())
    assert len(counts) == 36
    assert min(counts.values()) > 55 and max(counts.values()) < 150


@pytest.mark.parametrize("stones,db", [(0, True), (1, True), (21, False), (25, False)])
def test_labels_equal_fresh_queries(data_dir, stones, db):
    dbs = [data_dir] if db else []
    sample = pentago.sample(stones, 12, seed=3, db=dbs, threads=2)
    assert sample["boards"].dtype == numpy.uint64 and sample["values"].dtype == numpy.int8
    fresh = pentago.Engine(dbs, 2)
    for i, board in enumerate(sample["boards"]):
        answer = pentago.answer(fresh, int(board))
        assert answer["value"] == VALUE_WORDS[int(sample["values"][i])]
        if "distances" in sample:
            assert answer.get("distance", -1) == sample["distances"][i]
        else:
            assert "distance" not in answer


def test_labels_equal_cli(bin_dir, data_dir):
    sample = pentago.sample(1, 3, seed=9, db=[data_dir])
    for board, value in zip(sample["boards"], sample["values"]):
        assert lookup_json(bin_dir, int(board), data_dir)["value"] == VALUE_WORDS[int(value)]


def test_bad_arguments():
    with pytest.raises(pentago.UsageError, match="stones must be 0..35"):
        pentago.sample(36, 1)
    with pytest.raises(pentago.Error, match="needs slice-4.pentago"):
        pentago.sample(3, 1)


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "pentago.sample", *args], capture_output=True,
                          text=True, timeout=300)


def test_cli_writes_npz(tmp_path, data_dir):
    out = str(tmp_path / "sample.npz")
    result = run_cli("--stones", "1", "--count", "20", "--seed", "4", "--db", data_dir, out)
    assert result.returncode == 0, result.stderr
    assert "20 positions with 1 stones" in result.stdout
    written = numpy.load(out)
    expected = pentago.sample(1, 20, seed=4, db=[data_dir])
    assert int(written["stones"]) == 1 and int(written["seed"]) == 4
    for key in expected:
        assert numpy.array_equal(written[key], expected[key])


def test_cli_errors(tmp_path):
    out = str(tmp_path / "x.npz")
    result = run_cli("--stones", "3", "--count", "1", out)
    assert result.returncode == 1 and not os.path.exists(out)
    assert result.stderr.startswith("pentago-sample: error: position ")
    assert result.stderr.count("\n") == 1
    result = run_cli("--stones", "40", "--count", "1", out)
    assert result.returncode == 2
    assert result.stderr == "pentago-sample: stones must be 0..35 (a board with 36 stones is " \
        "full), not 40\n"
    assert run_cli("--count", "1", out).returncode == 2
