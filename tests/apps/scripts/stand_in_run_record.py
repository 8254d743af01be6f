#!/usr/bin/python3
# Test helper: if DIR has no run.jsonl (a solver that does not write one yet), writes one that
# describes DIR's counts, sparse and slice files as one finished run (schema in docs/tools.md),
# and says so on stdout. Usage: stand_in_run_record.py DIR ROOT SAVE
import json
import os
import sys

import numpy


def main():
    run_dir, root, save = sys.argv[1], sys.argv[2], int(sys.argv[3])
    path = os.path.join(run_dir, "run.jsonl")
    if os.path.exists(path):
        return 0
    records, order = [], []
    for n in range(35, -1, -1):
        counts = "counts-%d.npy" % n
        if not os.path.isfile(os.path.join(run_dir, counts)):
            continue
        rows = numpy.load(os.path.join(run_dir, counts))
        files = [{"name": counts}]
        for name in ["sparse-%d.npy" % n, "slice-%d.pentago" % n, "slice-%d.pentago.index" % n]:
            full = os.path.join(run_dir, name)
            if os.path.isfile(full):
                entry = {"name": name}
                if name.startswith("slice-"):
                    entry["bytes"] = os.path.getsize(full)
                files.append(entry)
        records.append({"record": "slice", "version": 1, "slice": n, "sections": len(rows),
                        "nodes": 0, "dropped": False, "files": files})
        order.append(n)
    header = {"record": "header", "version": 1, "program": "pentago-endgame", "root": root,
              "top": order[0], "bottom": order[-1], "save": save, "samples": 256,
              "meaningless": 0, "restart": None}
    done = {"record": "done", "version": 1, "status": "complete", "seconds": 0,
            "slices": order}
    with open(path, "w") as f:
        for r in [header] + records + [done]:
            f.write(json.dumps(r) + "\n")
    print("note: %s had no run.jsonl; wrote a stand-in from its files" % run_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
