"""pentago: the strong solution of pentago from Python.

A thin layer over the C++ library: positions and their text forms (Position, parse), the
query path of pentago-lookup (Engine, query), the published data files (read_counts,
read_sparse, SliceFile) and labelled random positions for learning (sample).
Failures raise pentago.Error (pentago.UsageError for bad input) with the same one-line
messages as the command-line tools.
"""

import json
import os

from ._pentago import (Engine, Error, Position, SliceFile, UsageError, parse,
                       random_positions, read_counts, read_sparse, section_weight)
from ._pentago import sample_with as _sample_with

__all__ = ["Engine", "Error", "Position", "SliceFile", "UsageError", "parse", "query",
           "random_positions", "read_counts", "read_sparse", "sample", "answer", "section_weight", "slice_totals"]


def answer(engine, board):
    """The answer of an Engine for a board, as the dict of pentago-lookup --json."""
    return json.loads(engine.answer_json(board))


def query(board, db=(), threads=0, distance_from=18):
    """The value of a position and of each of its moves, as pentago-lookup --json prints it.

    board: a Position, a str (decimal code with optional 'm', 36-character form or 6x6
    picture) or an int code. db: directories or http(s) base URLs of slice-N.pentago files.
    threads: midgame solver threads (0: every core). distance_from: midgame answers from this
    many stones on carry distances (pentago-lookup --distance-from; 37: none). Opens the
    databases on every call; use an Engine to ask many questions.
    """
    return answer(Engine(_databases(db), threads, distance_from=distance_from), board)


def sample(stones, count, seed=0, db=(), threads=0):
    """Labelled random positions: a dict of numpy arrays.

    boards (uint64 codes, positions to place), values (int8: 1 win, 0 tie, -1 loss for the
    player to move) and, when the query answers carry them, distances (int32, -1 unknown).

    The positions are uniform over the boards with ceil(stones/2) black and floor(stones/2)
    white stones on which neither colour has five in a row, drawn independently (with
    replacement) from a Threefry stream keyed by (seed, stones): rejection sampling of
    uniformly chosen cells. Values come from the query path: the databases in db when they
    hold the needed slice (stones + 1), else the midgame solver (where it applies).
    """
    return _sample_with(Engine(_databases(db), threads), stones, count, seed)


def _databases(db):
    """db as a list: one directory or URL (a str or path) is a list of one, not of characters."""
    if isinstance(db, (str, bytes, os.PathLike)):
        return [os.fsdecode(db)]
    return [os.fsdecode(d) for d in db]


def slice_totals(path):
    """Whole-slice (black wins, white wins, total) of a counts-N.npy file: each row weighted by
    the number of distinct sections among its global transforms (Python ints, exact)."""
    totals = [0, 0, 0]
    for row in read_counts(path):
        weight = section_weight(int(row["section"]))
        for i, name in enumerate(("black_wins", "white_wins", "total")):
            totals[i] += weight * int(row[name])
    return tuple(totals)
