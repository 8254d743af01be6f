#!/usr/bin/env python3
"""Draws a labelled sample of random positions and prints its value balance.

  PYTHONPATH=build/python python3 examples/sample_balance.py [STONES] [COUNT] [DB...]

Defaults: 24 stones, 200 positions, no database (the midgame solver values 18+ stones; give
../shared/data for 0 or 1 stone). The positions are uniform over unfinished boards with that
many stones (see help(pentago.sample)).
"""

import sys

import numpy

import pentago

stones = int(sys.argv[1]) if len(sys.argv) > 1 else 24
count = int(sys.argv[2]) if len(sys.argv) > 2 else 200
db = sys.argv[3:]
try:
    sample = pentago.sample(stones, count, seed=1, db=db)
except pentago.Error as e:
    sys.exit(f"sample_balance: {e}")
values = sample["values"]
mover = "black" if stones % 2 == 0 else "white"
print(f"{count} random positions with {stones} stones ({mover} to move):")
for value, word in ((1, "win"), (0, "tie"), (-1, "loss")):
    k = int(numpy.sum(values == value))
    print(f"  {word:4}  {k:6}  {k / max(count, 1):6.1%}")
if "distances" in sample:
    known = sample["distances"][sample["distances"] >= 0]
    if known.size:
        print(f"  distance to the end: mean {known.mean():.1f}, max {known.max()}")
