"""pentago.query gives the answer of pentago-lookup --json (the same query path) for boards
valued by the databases, the midgame solver and the rules, and fails with its messages."""

import pathlib
import signal
import subprocess
import sys
import threading
import time

import pytest

import pentago
from conftest import lookup_json, run_tool


def without_time(answer):
    answer = dict(answer)
    answer.pop("elapsed_ms")
    return answer


def db_boards():
    # The empty board, a one-stone board to place and a two-stone board to rotate.
    one = pentago.parse("_" * 14 + "0" + "_" * 21)
    two = pentago.parse("_" * 14 + "0" + "_" * 6 + "1" + "_" * 14 + "m")
    return ["0", one.code, two.code]


@pytest.mark.parametrize("index", range(3))
def test_database_answers_equal_cli(bin_dir, data_dir, index):
    board = db_boards()[index]
    answer = pentago.query(board, db=[data_dir])
    assert answer["source"] in ("database", "rules")
    assert without_time(answer) == lookup_json(bin_dir, board, data_dir)


def test_midgame_answer_equals_cli(bin_dir):
    board = pentago.random_positions(30, 1, seed=7)[0]
    answer = pentago.query(int(board), threads=2)
    assert answer["source"] == "midgame" and answer["stones"] == 30
    assert without_time(answer) == lookup_json(bin_dir, int(board))


def test_distance_from_equals_cli(bin_dir):
    board = int(pentago.random_positions(26, 1, seed=9)[0])
    with_distances = without_time(pentago.query(board, threads=1))
    without = without_time(pentago.query(board, threads=1, distance_from=37))
    assert with_distances != without
    # The rules still give their own distances (a five by placing ends the game at once).
    assert all("distance" not in m for m in without["moves"] if m["source"] == "midgame")
    assert any("distance" in m for m in with_distances["moves"] if m["source"] == "midgame")
    assert without == lookup_json(bin_dir, board, extra=["--no-distance"])
    assert with_distances == lookup_json(bin_dir, board)
    with pytest.raises(pentago.UsageError):
        pentago.Engine([], 1, distance_from=14)


def test_finished_board_by_rules(bin_dir):
    # Black five in a row on the top row, white elsewhere: over, black has won.
    board = "00000" + "_" * 7 + "1111" + "_" * 20
    answer = pentago.query(board)
    assert answer["source"] == "rules" and answer["moves"] == []
    assert without_time(answer) == lookup_json(bin_dir, pentago.parse(board).code)


def test_engine_reuses_databases(data_dir):
    engine = pentago.Engine([data_dir], 1)
    assert engine.slices == [0, 1, 2]
    assert engine.value("0") == 1  # the empty board is a black win
    assert pentago.answer(engine, pentago.Position("0"))["value"] == "win"


def test_missing_slice_error_equals_cli(bin_dir, data_dir):
    board = pentago.parse("0" + "1" + "0" + "_" * 33).code
    result = run_tool(bin_dir, "pentago-lookup", "--db", data_dir, board, check=False)
    assert result.returncode == 1
    with pytest.raises(pentago.Error) as caught:
        pentago.query(board, db=[data_dir])
    assert not isinstance(caught.value, pentago.UsageError)
    assert result.stderr == f"pentago-lookup: error: {caught.value}\n"


def test_bad_database_raises(tmp_path):
    with pytest.raises(pentago.Error):
        pentago.Engine([str(tmp_path / "missing")])


def test_gil_released_while_solving():
    # A midgame solve on one thread in the background: the main thread keeps running.
    board = int(pentago.random_positions(19, 1, seed=11)[0])
    engine = pentago.Engine([], 1)
    done = []
    worker = threading.Thread(target=lambda: done.append(engine.value(board)))
    start = time.monotonic()
    worker.start()
    ticks = [start]
    while worker.is_alive():
        ticks.append(time.monotonic())
        time.sleep(0.001)
    solve = time.monotonic() - start
    worker.join()
    assert done and done[0] in (-1, 0, 1)
    assert solve > 0.05, "the solve was too quick to tell"
    # Holding the GIL would stop this loop for the whole solve.
    assert max(b - a for a, b in zip(ticks, ticks[1:])) < solve / 2


def test_engine_bounds_like_the_cli():
    # Threads bounded as pentago-lookup's --threads (a billion would start threads until the
    # machine ran out of process ids), and a cache of 0 bytes refused as --cache 0 is.
    for threads in (1025, 10**9):
        with pytest.raises(pentago.UsageError, match="threads"):
            pentago.Engine([], threads)
    with pytest.raises(pentago.UsageError, match="cache_bytes"):
        pentago.Engine([], 1, cache_bytes=0)


def test_one_database_given_as_a_str(data_dir):
    # A str (or path) names one database, not one per character.
    assert pentago.query("0", db=data_dir)["value"] == "win"
    assert pentago.query("0", db=pathlib.Path(data_dir))["value"] == "win"


def test_undecodable_text_is_a_usage_error():
    with pytest.raises(pentago.UsageError, match="surrogate"):
        pentago.parse("\udcff")


def test_huge_sample_count_is_a_usage_error():
    with pytest.raises(pentago.UsageError, match="count"):
        pentago.random_positions(5, 2**62)


def test_ctrl_c_stops_a_midgame_solve():
    # An 18-stone solve with distances takes seconds; SIGINT half a second in must end it with
    # KeyboardInterrupt within about a layer, not at the end of the solve.
    board = int(pentago.random_positions(18, 1, seed=12)[0])
    script = ("import pentago, sys, time\n"
              "engine = pentago.Engine([], 1)\n"
              "print('solving', flush=True)\n"
              "start = time.monotonic()\n"
              "try:\n"
              f"    engine.value({board})\n"
              "    print('finished', time.monotonic() - start)\n"
              "except KeyboardInterrupt:\n"
              "    print('interrupted', time.monotonic() - start)\n")
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline() == "solving\n"
    time.sleep(0.5)
    child.send_signal(signal.SIGINT)
    out, _ = child.communicate(timeout=120)
    word, seconds = out.split()
    assert word == "interrupted", out
    assert float(seconds) < 1.5, out
