#!/usr/bin/python3
# Test of scripts/plot-run: runs a small real pentago-endgame job (root 72275400, slices 35..27,
# 5 million positions, 2 ranks, with --trace), plots it, and checks that every PNG decodes and
# that the JSON numbers equal the log's, the counts files' and the trace's, parsed here
# independently of plot-run. Also checks tolerance of logs with missing or extra lines.
# Usage: plot_run_test.py PLOT_RUN ENDGAME_EXE MPIEXEC WORK_DIR DATA_DIR
# Exits 77 (ctest SKIP_RETURN_CODE) when python3-matplotlib is missing.
import json
import os
import shutil
import struct
import subprocess
import sys

SKIP = 77
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what)
    return cond


def close(a, b):
    return a is not None and b is not None and abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def bytes_of(number, unit):
    scale = {"B": 0, "KiB": 1, "MiB": 2, "GiB": 3, "TiB": 4}[unit]
    return float(number) * 1024.0**scale


def secs(words):
    """'1.9 s' -> 1.9, '0h 01m 02s' -> 62."""
    words = words.strip().rstrip(")")
    if words.endswith(" s"):
        return float(words[:-2])
    h, m, s = words.split()
    return int(h[:-1]) * 3600 + int(m[:-1]) * 60 + int(s[:-1])


def parse_log_independently(path):
    """Per-slice facts from the log, by splitting on the separators the solver prints."""
    out = {"order": [], "report": {}, "workers": {}, "load": {}, "plan": None, "memory": None}
    last = None
    for line in open(path):
        line = line.rstrip("\n")
        head = line.strip()
        if head.startswith("memory: plan ") or head.startswith("memory plan per rank: "):
            # "memory: plan X U per rank of Y U allowed" or "memory plan per rank: X U of Y U"
            words = head.split(":", 1)[1].split()
            words = words[1:] if words[0] == "plan" else words
            out["plan"] = bytes_of(words[0], words[1])
            at = words.index("of")
            out["memory"] = bytes_of(words[at + 1], words[at + 2].rstrip(","))
        elif line.startswith("slice ") and " load balance " in line:
            n = int(line.split()[1])
            fields = {}
            for part in line.split(":", 1)[1].split(";"):
                if "=" in part:
                    name, rest = part.split("=")
                    lo, hi = rest.split()[:2]
                    fields[name.strip()] = (int(lo), int(hi))
            out["load"][n] = fields
        elif line.startswith("slice ") and "nodes/s/core" in line:
            n = int(line.split()[1].rstrip(":"))
            last = n
            out["order"].append(n)
            parts = line.split(", ")
            r = {}
            r["nodes"] = int(parts[1].split(" nodes in ")[0])
            r["seconds"] = secs(parts[1].split(" nodes in ")[1].split(" (")[0])
            r["compute"] = secs(parts[1].split("(compute ")[1])
            r["io"] = secs(parts[2][len("io "):])
            r["rate"] = float(parts[3].split()[0])
            hw = parts[5].split()  # memory high water X U/rank
            r["high_water"] = bytes_of(hw[3], hw[4].split("/")[0])
            out["report"][n] = r
        elif line.startswith("  worker time:"):
            words = line.split(":", 1)[1].split(",")[0].split()
            out["workers"][last] = {words[i]: float(words[i + 1].rstrip("s"))
                                    for i in range(0, len(words), 2)}
    return out


def read_npy_u8(path):
    """Rows of a little-endian uint64 2-D .npy file, read with struct (not numpy)."""
    raw = open(path, "rb").read()
    assert raw[:6] == b"\x93NUMPY", path
    header_len = struct.unpack("<H", raw[8:10])[0]
    header = raw[10:10 + header_len].decode()
    shape = header.split("'shape': (")[1].split(")")[0]
    rows, cols = [int(x) for x in shape.split(",") if x.strip()]
    body = raw[10 + header_len:]
    values = struct.unpack("<%dQ" % (rows * cols), body[:8 * rows * cols])
    return [values[i * cols:(i + 1) * cols] for i in range(rows)]


def fractions(rows, n):
    black = sum(r[1] for r in rows)
    white = sum(r[2] for r in rows)
    total = sum(r[3] for r in rows)
    mover, other = (black, white) if n % 2 == 0 else (white, black)
    return {"win": mover / total, "loss": other / total, "tie": (total - black - white) / total}


def run(cmd, **kw):
    print("$ " + " ".join(cmd))
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def main():
    if len(sys.argv) != 6:
        print("usage: plot_run_test.py PLOT_RUN ENDGAME_EXE MPIEXEC WORK_DIR DATA_DIR")
        return 2
    plot_run, endgame, mpiexec, work, data = sys.argv[1:]
    try:
        import matplotlib.image
    except ImportError as e:
        print("SKIPPED: python3-matplotlib is missing (%s); scripts/setup installs it" % e)
        return SKIP

    base = os.path.join(work, "plot-run-%d" % os.getpid())
    shutil.rmtree(base, ignore_errors=True)
    os.makedirs(base)
    rundir = os.path.join(base, "run")
    trace = os.path.join(base, "trace.json")
    r = run([mpiexec, "-n", "2", endgame, "--threads", "3", "--memory", "2G", "--save", "28",
             "--per-rank-times", "--trace", trace, "--dir", rundir, "72275400"])
    if not check(r.returncode == 0, "pentago-endgame exited %d: %s" % (r.returncode, r.stderr)):
        return 1

    r = run([plot_run, "--data", data, rundir])
    print(r.stdout + r.stderr)
    check(r.returncode == 0, "plot-run exited %d" % r.returncode)
    plots = os.path.join(rundir, "plots")
    names = ["worker-time", "speed", "memory", "load-balance", "outcomes", "timeline"]
    js = {}
    for name in names:
        png = os.path.join(plots, name + ".png")
        if not check(os.path.isfile(png), name + ".png missing"):
            continue
        check(open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n", name + ".png: no PNG signature")
        image = matplotlib.image.imread(png)
        check(image.ndim == 3 and image.shape[0] > 100 and image.shape[1] > 100,
              name + ".png: odd image shape %s" % (image.shape,))
        js[name] = json.load(open(os.path.join(plots, name + ".json")))
    if failures:
        return 1

    log = parse_log_independently(os.path.join(rundir, "log"))
    order = log["order"]
    check(order == list(range(35, 26, -1)), "slices in the log: %s" % order)

    w = js["worker-time"]
    check(w["slices"] == order, "worker-time slices %s" % w["slices"])
    for a in ["compute", "decompress", "accumulate", "compress", "io", "idle"]:
        check(w["seconds"][a] == [log["workers"][n][a] for n in order], "worker-time " + a)
    check(sum(w["seconds"]["compress"]) > 0, "a saved slice must show compress time")

    s = js["speed"]
    check(s["slices"] == order, "speed slices")
    for key, field in [("nodes_per_second_per_core", "rate"), ("seconds", "seconds"),
                       ("compute_seconds", "compute"), ("io_seconds", "io"),
                       ("nodes", "nodes")]:
        check(all(close(a, log["report"][n][field]) for a, n in zip(s[key], order)),
              "speed %s: %s" % (key, s[key]))

    m = js["memory"]
    check(m["slices"] == order, "memory slices")
    check(all(close(a, log["report"][n]["high_water"])
              for a, n in zip(m["high_water_bytes"], order)), "memory high water")
    if log["plan"] is None:
        check(m["plan_bytes"] is None, "memory plan in the JSON but not in the log")
    else:
        check(close(m["plan_bytes"], log["plan"]), "memory plan %s vs %s" % (m["plan_bytes"],
                                                                            log["plan"]))
    check(close(m["memory_bytes"], 2.0 * 2**30), "--memory 2G: %s" % m["memory_bytes"])

    lb = js["load-balance"]
    check(lb["slices"] == order, "load-balance slices")
    for key, name in [("line_nodes", "line nodes"), ("block_nodes", "block nodes"),
                      ("lines", "lines"), ("blocks", "blocks")]:
        check(lb[key]["min"] == [log["load"][n][name][0] for n in order], "load min " + key)
        check(lb[key]["max"] == [log["load"][n][name][1] for n in order], "load max " + key)

    o = js["outcomes"]
    check(o["slices"] == order, "outcomes slices %s" % o["slices"])
    for i, n in enumerate(o["slices"]):
        mine = read_npy_u8(os.path.join(rundir, "counts-%d.npy" % n))
        want = fractions(mine, n)
        check(all(close(o["run"][i][k], want[k]) for k in want), "outcomes run slice %d" % n)
        published = read_npy_u8(os.path.join(data, "counts-%d.npy" % n))
        ids = {row[0] for row in mine}
        same = [row for row in published if row[0] in ids]
        check(sorted(same) == sorted(mine), "slice %d: counts differ from the published" % n)
        want = fractions(same, n)
        check(all(close(o["published_same_sections"][i][k], want[k]) for k in want),
              "outcomes published (same sections) slice %d" % n)
        want = fractions(published, n)
        check(all(close(o["published_slice"][i][k], want[k]) for k in want),
              "outcomes published (whole slice) slice %d" % n)
        check(o["equal_to_published"][i] is True, "slice %d not marked equal" % n)

    t = js["timeline"]
    events = [e for e in json.load(open(trace))["traceEvents"] if e.get("ph") == "X"]
    for rank in ["0", "1"]:
        mine = [e for e in events if str(e["pid"]) == rank]
        check(t["ranks"][rank]["events"] == len(mine), "timeline rank %s events" % rank)
        for name in {e["name"] for e in mine}:
            total = sum(e["dur"] for e in mine if e["name"] == name) / 1e6
            check(close(t["ranks"][rank]["seconds"][name], total),
                  "timeline rank %s %s" % (rank, name))

    # The run directory with its plots still passes pentago-check's file rules.
    checker = os.path.join(os.path.dirname(endgame), "pentago-check")
    if os.path.exists(checker):
        r = run([checker, "--search-min", "36", rundir])
        check(r.returncode == 0, "pentago-check with plots/: " + r.stderr)

    # No silent overwrite; --force replaces.
    r = run([plot_run, "--data", data, rundir])
    check(r.returncode == 1 and "--force" in r.stderr, "second plot-run must refuse")
    r = run([plot_run, "--data", data, "--force", rundir])
    check(r.returncode == 0, "plot-run --force exited %d" % r.returncode)

    # A log without worker time or load balance lines but with a given plan vs measured line:
    # those plots are skipped with a message, the rest are drawn, nothing crashes.
    partial = os.path.join(base, "partial")
    os.makedirs(partial)
    with open(os.path.join(rundir, "log")) as src, open(os.path.join(partial, "log"), "w") as dst:
        for line in src:
            # The engine's own plan vs measured lines are replaced by the one written below.
            if "worker time:" in line or "load balance" in line or "plan vs measured" in line:
                continue
            dst.write(line)
            if line.startswith("slice 33:"):
                dst.write("  plan vs measured (max over ranks): store 10.00 MiB vs 8.50 MiB, "
                          "ratio 0.40 vs 0.310; resident 300.00 MiB of --memory 2.00 GiB\n")
    r = run([plot_run, "--data", data, partial])
    print(r.stdout + r.stderr)
    check(r.returncode == 0, "partial log: exit %d" % r.returncode)
    check("skipped worker-time" in r.stdout and "skipped load-balance" in r.stdout,
          "partial log: skips not reported")
    check("Traceback" not in r.stderr, "partial log: crashed")
    mem = json.load(open(os.path.join(partial, "plots", "memory.json")))
    i33 = mem["slices"].index(33)
    check(close(mem["store_plan_bytes"][i33], 10 * 2**20) and
          close(mem["store_measured_bytes"][i33], 8.5 * 2**20) and
          close(mem["resident_bytes"][i33], 300 * 2**20), "plan vs measured not parsed")
    check(not os.path.exists(os.path.join(partial, "plots", "worker-time.png")),
          "partial log: worker-time drawn without data")

    # Bad input: one line on stderr and exit 2 (usage) or 1 (nothing to plot, no directory).
    empty = os.path.join(base, "empty")
    os.makedirs(empty)
    open(os.path.join(empty, "log"), "w").write("garbage\n")
    for args, code in [([], 2), (["--bogus", rundir], 2), (["--data"], 2),
                       ([os.path.join(base, "no-such-run")], 1), ([empty], 1)]:
        r = run([plot_run] + args)
        check(r.returncode == code and len(r.stderr.strip().splitlines()) == 1 and
              "Traceback" not in r.stderr,
              "plot-run %s: exit %d, stderr %r" % (args, r.returncode, r.stderr))

    if failures:
        print("%d failures" % len(failures))
        return 1
    shutil.rmtree(base, ignore_errors=True)
    print("plot-run test passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
