#!/usr/bin/env python3
"""Plots the published win/tie/loss fractions of pentago by stone count (counts-N.npy) to a PNG.

  PYTHONPATH=build/python python3 examples/plot_counts.py [DATA_DIR] [OUT.png]

DATA_DIR defaults to ../shared/data, OUT.png to counts.png. Fractions are over every board with
N stones (finished games included, as the published counts are), for the player to move.
"""

import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import pentago  # noqa: E402

data = sys.argv[1] if len(sys.argv) > 1 else "../shared/data"
out = sys.argv[2] if len(sys.argv) > 2 else "counts.png"
stones, fractions = [], {"win": [], "tie": [], "loss": []}
for n in range(36):
    path = os.path.join(data, f"counts-{n}.npy")
    if not os.path.exists(path):
        continue
    black, white, total = pentago.slice_totals(path)
    mover, other = (black, white) if n % 2 == 0 else (white, black)
    stones.append(n)
    fractions["win"].append(mover / total)
    fractions["loss"].append(other / total)
    fractions["tie"].append((total - black - white) / total)
if not stones:
    sys.exit(f"plot_counts: no counts-N.npy in {data}")

plt.figure(figsize=(8, 4.5))
for word, colour in (("win", "tab:green"), ("tie", "tab:gray"), ("loss", "tab:red")):
    plt.plot(stones, fractions[word], "o-", color=colour, label=word)
plt.xlabel("stones on the board")
plt.ylabel("fraction of boards")
plt.title("pentago: value for the player to move, over all boards")
plt.legend()
plt.grid(alpha=0.3)
plt.tight_layout()
plt.savefig(out, dpi=100)
print(f"{out}: {len(stones)} stone counts, {stones[0]}..{stones[-1]}")
