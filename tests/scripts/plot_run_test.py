#!/usr/bin/python3
# Test of scripts/plot-run. Two modes:
#   quick PLOT_RUN WORK_DIR DATA_DIR
#     a run directory made here (a hand-written run.jsonl of 3 slices on 2 ranks, counts files
#     of the published data, a trace): every PNG decodes and every plotted number equals the
#     record's; then bad input, each of which must give exit 1 and one stderr line, no
#     traceback, no hang: no run.jsonl, damaged values (negative, 1e400, NaN), a FIFO in place
#     of counts-N.npy or run.jsonl, RUN/plots a file, --out a file or /proc/nope.
#   run PLOT_RUN ENDGAME_EXE MPIEXEC WORK_DIR DATA_DIR
#     a small real pentago-endgame job (root 72275400, slices 35..27, 2 ranks, --trace) plotted,
#     with the plotted numbers compared to its run.jsonl.
# Exits 77 (ctest SKIP_RETURN_CODE) when python3-matplotlib is missing.
import json
import os
import shutil
import subprocess
import sys

SKIP = 77
ACTIVITIES = ["compute", "decompress", "accumulate", "compress", "io", "idle"]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what)
    return cond


def close(a, b):
    return a is not None and b is not None and abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def run(cmd, timeout=120):
    print("$ " + " ".join(cmd))
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def records(path):
    return [json.loads(line) for line in open(path)]


def check_plots(plot_run, rundir, data, trace):
    """Plots rundir and compares every plotted number with its run.jsonl."""
    import matplotlib.image
    r = run([plot_run, "--data", data, rundir])
    print(r.stdout + r.stderr)
    if not check(r.returncode == 0, "plot-run exited %d" % r.returncode):
        return
    plots = os.path.join(rundir, "plots")
    js = {}
    for name in ["worker-time", "speed", "memory", "load-balance", "outcomes", "timeline"]:
        png = os.path.join(plots, name + ".png")
        if not check(os.path.isfile(png), name + ".png missing"):
            return
        image = matplotlib.image.imread(png)
        check(image.ndim == 3 and image.shape[0] > 100 and image.shape[1] > 100,
              name + ".png: odd image shape %s" % (image.shape,))
        js[name] = json.load(open(os.path.join(plots, name + ".json")))
    rec = records(os.path.join(rundir, "run.jsonl"))
    header = rec[0]
    slices = [x for x in rec if x["record"] == "slice"]
    order = [x["slice"] for x in slices]

    w = js["worker-time"]
    check(w["slices"] == order, "worker-time slices %s vs %s" % (w["slices"], order))
    for a in ACTIVITIES:
        check(all(close(v, x["worker_seconds"][a]) for v, x in zip(w["seconds"][a], slices)),
              "worker-time " + a)
    s = js["speed"]
    check(s["slices"] == order, "speed slices")
    for key, field in [("nodes_per_second_per_core", "nodes_per_second_per_core"),
                       ("seconds", "seconds"), ("compute_seconds", "compute_seconds"),
                       ("io_seconds", "io_seconds"), ("nodes", "nodes")]:
        check(all(close(v, x[field]) for v, x in zip(s[key], slices)), "speed " + key)
    m = js["memory"]
    check(m["slices"] == order, "memory slices")
    check(all(close(v, x["memory"]["resident_high_water"])
              for v, x in zip(m["high_water_bytes"], slices)), "memory high water")
    check(all(close(v, x["memory"]["plan_store_bytes"])
              for v, x in zip(m["store_plan_bytes"], slices)), "memory store plan")
    check(close(m["memory_bytes"], header["memory"]), "memory --memory")
    lb = js["load-balance"]
    check(lb["slices"] == order, "load-balance slices")
    for key, field in [("line_nodes", "line_nodes"), ("block_nodes", "nodes"),
                       ("lines", "lines"), ("blocks", "blocks")]:
        check(lb[key]["min"] == [x["load_balance"][field][0] for x in slices], "load min " + key)
        check(lb[key]["max"] == [x["load_balance"][field][1] for x in slices], "load max " + key)
    o = js["outcomes"]
    check(o["slices"] == sorted(order, reverse=True), "outcomes slices %s" % o["slices"])
    check(all(e is True for e in o["equal_to_published"]), "outcomes: not equal to published")
    t = js["timeline"]
    events = [e for e in json.load(open(trace))["traceEvents"] if e.get("ph") == "X"]
    for rank in ["0", "1"]:
        mine = [e for e in events if str(e["pid"]) == rank]
        check(t["ranks"][rank]["events"] == len(mine), "timeline rank %s events" % rank)
    # No silent overwrite; --force replaces.
    r = run([plot_run, "--data", data, rundir])
    check(r.returncode == 1 and "--force" in r.stderr, "second plot-run must refuse")
    r = run([plot_run, "--data", data, "--force", rundir])
    check(r.returncode == 0, "plot-run --force exited %d" % r.returncode)


def slice_record(n, k):
    """A slice record of the schema with made-up but plausible numbers."""
    return {"record": "slice", "version": 1, "slice": n, "sections": 1 + k, "blocks": 10 + k,
            "nodes": 1000 * (k + 1), "seconds": 1.5 + k, "compute_seconds": 1.0 + k,
            "io_seconds": 0.5, "elapsed": 2.0 * (k + 1), "eta": 3.0,
            "nodes_per_second_per_core": 5e6 + k, "compression": 0.3, "dropped": False,
            "worker_seconds": {a: 0.1 * (i + 1) + k for i, a in enumerate(ACTIVITIES)},
            "idle_fraction": 0.1, "traffic_bytes_in": 4096, "output_blocks_sent": 3,
            "memory": {"resident_high_water": (300 + k) << 20, "limit": 2 << 30,
                       "plan_store_bytes": (10 + k) << 20, "store_bytes": (8 + k) << 20,
                       "plan_ratio": 0.4, "arena_live": 0, "arena_touched": 0,
                       "arena_bytes": 0, "partial_bytes": 0, "partial_plan_bytes": 0},
            "load_balance": {"lines": [10, 12 + k], "line_blocks": [3, 4], "line_nodes": [100, 120],
                             "blocks": [5, 6], "nodes": [500, 510 + k]},
            "files": [{"name": "counts-%d.npy" % n}, {"name": "sparse-%d.npy" % n, "samples": 256}],
            "per_rank_worker_seconds": None}


def make_run(base, data, name="made"):
    d = os.path.join(base, name)
    os.makedirs(d)
    order = [35, 34, 33]
    trace = os.path.join(d, "trace.json")
    header = {"record": "header", "version": 1, "program": "pentago-endgame", "root": "00000000",
              "root_slice": 0, "top": 35, "bottom": 33, "save": -1, "samples": 256, "ranks": 2,
              "threads": 3, "memory": 2 << 30, "meaningless": 0, "restart": None,
              "options": {"trace": trace}, "plan": {"fits": True, "slices": []}}
    lines = [header] + [slice_record(n, k) for k, n in enumerate(order)] + [
        {"record": "done", "version": 1, "status": "complete", "seconds": 9.0,
         "memory_high_water": 310 << 20, "slices": order}]
    with open(os.path.join(d, "run.jsonl"), "w") as f:
        for line in lines:
            f.write(json.dumps(line) + "\n")
    for n in order:
        shutil.copy(os.path.join(data, "counts-%d.npy" % n), d)
    events = [{"name": a, "ph": "X", "pid": p, "tid": 1, "ts": 1000 * i, "dur": 500}
              for p in (0, 1) for i, a in enumerate(ACTIVITIES)]
    json.dump({"traceEvents": events}, open(trace, "w"))
    return d, trace


def expect_refused(plot_run, args, want, code=1):
    try:
        r = run([plot_run] + args)
    except subprocess.TimeoutExpired:
        return check(False, "plot-run %s hung" % args)
    lines = r.stderr.strip().splitlines()
    check(r.returncode == code and len(lines) == 1 and "Traceback" not in r.stderr and
          want in r.stderr, "plot-run %s: exit %d, stderr %r (want %r)" %
          (args, r.returncode, r.stderr, want))


def damaged(base, data, name, edit):
    d, _ = make_run(base, data, name)
    path = os.path.join(d, "run.jsonl")
    lines = open(path).read().splitlines()
    lines = edit(lines)
    open(path, "w").write("\n".join(lines) + "\n")
    return d


def quick(plot_run, work, data):
    base = os.path.join(work, "plot-run-quick-%d" % os.getpid())
    shutil.rmtree(base, ignore_errors=True)
    os.makedirs(base)
    d, trace = make_run(base, data)
    check_plots(plot_run, d, data, trace)
    r = run([plot_run, "--data", data, "--force", d])
    check("plot-run: run: root 00000000, ranks 2, threads 3" in r.stdout, "run facts: " + r.stdout)

    # A record without load balance (a local run) and without done: skipped plot, a message.
    def local(lines):
        out = []
        for line in lines[:-1]:
            r = json.loads(line)
            if r["record"] == "slice":
                r["load_balance"] = None
            out.append(json.dumps(r))
        return out
    partial = damaged(base, data, "local", local)
    r = run([plot_run, "--data", data, partial])
    check(r.returncode == 0 and "skipped load-balance" in r.stdout and
          "did not finish" in r.stdout, "local record: %d %s" % (r.returncode, r.stdout))

    # Bad input: one line, exit 1 (2 for usage), never a traceback or a hang.
    older = os.path.join(base, "older")
    os.makedirs(older)
    open(os.path.join(older, "log"), "w").write("slice 35: 1 sections\n")
    expect_refused(plot_run, [older], "has no run.jsonl")
    expect_refused(plot_run, [os.path.join(base, "no-such-run")], "is not a directory")
    expect_refused(plot_run, [], "no run directory given", 2)
    expect_refused(plot_run, ["--bogus", d], "unknown option", 2)
    expect_refused(plot_run, ["--data"], "needs a value", 2)

    def set_value(path, value):
        def edit(lines):
            r = json.loads(lines[2])
            keys = path.split(".")
            target = r
            for k in keys[:-1]:
                target = target[k]
            target[keys[-1]] = "@@"
            lines[2] = json.dumps(r).replace('"@@"', value)
            return lines
        return edit
    for name, path, value in [("negative-memory", "memory.resident_high_water", "-5242880"),
                              ("huge-compute", "compute_seconds", "1e400"),
                              ("nan-seconds", "worker_seconds.compute", "NaN"),
                              ("negative-load", "load_balance.nodes", "[-1, 5]"),
                              ("text-nodes", "nodes", '"many"'),
                              ("negative-raises", "memory.arena_limit_raises", "-1"),
                              # A counter the record has not had yet is checked as well.
                              ("negative-new-counter", "memory.new_counter_bytes", "-1"),
                              ("huge-new-counter", "new_counter", "1e400")]:
        bad = damaged(base, data, name, set_value(path, value))
        expect_refused(plot_run, ["--data", data, bad], "line 3")
        check(not os.path.exists(os.path.join(bad, "plots")), name + ": plots written")
    bad = damaged(base, data, "not-json", lambda lines: lines[:1] + ["{\"record\""] + lines[1:])
    expect_refused(plot_run, ["--data", data, bad], "line 2: not JSON")

    # Output places that are not folders it can write.
    as_file, _ = make_run(base, data, "plots-file")
    open(os.path.join(as_file, "plots"), "w").write("not a folder")
    expect_refused(plot_run, ["--data", data, as_file], "is not a directory")
    expect_refused(plot_run, ["--data", data, "--out", os.path.join(as_file, "run.jsonl"), as_file],
                   "is not a directory")
    expect_refused(plot_run, ["--data", data, "--out", "/proc/nope", as_file], "cannot create")

    # FIFOs are not opened: in place of a counts file (skipped with a note), of run.jsonl.
    fifo, _ = make_run(base, data, "fifo")
    os.remove(os.path.join(fifo, "counts-34.npy"))
    os.mkfifo(os.path.join(fifo, "counts-34.npy"))
    try:
        r = run([plot_run, "--data", data, fifo], timeout=60)
        check(r.returncode == 0 and "counts-34.npy is not a regular file" in r.stdout,
              "FIFO counts: exit %d %s %s" % (r.returncode, r.stdout, r.stderr))
    except subprocess.TimeoutExpired:
        check(False, "FIFO in place of counts-34.npy: plot-run hung")
    os.remove(os.path.join(fifo, "run.jsonl"))
    os.mkfifo(os.path.join(fifo, "run.jsonl"))
    shutil.rmtree(os.path.join(fifo, "plots"), ignore_errors=True)
    expect_refused(plot_run, ["--data", data, fifo], "is not a regular file")

    if not failures:
        shutil.rmtree(base, ignore_errors=True)


def real_run(plot_run, endgame, mpiexec, work, data):
    base = os.path.join(work, "plot-run-%d" % os.getpid())
    shutil.rmtree(base, ignore_errors=True)
    os.makedirs(base)
    rundir = os.path.join(base, "run")
    trace = os.path.join(base, "trace.json")
    r = run([mpiexec, "-n", "2", endgame, "--threads", "3", "--memory", "2G", "--save", "28",
             "--per-rank-times", "--trace", trace, "--dir", rundir, "72275400"])
    if not check(r.returncode == 0, "pentago-endgame exited %d: %s" % (r.returncode, r.stderr)):
        return
    if not check(os.path.exists(os.path.join(rundir, "run.jsonl")), "the run wrote no run.jsonl"):
        return
    order = [x["slice"] for x in records(os.path.join(rundir, "run.jsonl"))
             if x["record"] == "slice"]
    check(order == list(range(35, 26, -1)), "slices in the record: %s" % order)
    check_plots(plot_run, rundir, data, trace)
    checker = os.path.join(os.path.dirname(endgame), "pentago-check")
    if check(os.path.exists(checker), checker + " is not built"):
        r = run([checker, "--search-min", "36", "--data", data, rundir])
        check(r.returncode == 0, "pentago-check with plots/: " + r.stderr)
    if not failures:
        shutil.rmtree(base, ignore_errors=True)


def main():
    try:
        import matplotlib.image  # noqa: F401
    except ImportError as e:
        print("SKIPPED: python3-matplotlib is missing (%s); scripts/setup installs it" % e)
        return SKIP
    if len(sys.argv) == 5 and sys.argv[1] == "quick":
        quick(*sys.argv[2:])
    elif len(sys.argv) == 7 and sys.argv[1] == "run":
        real_run(*sys.argv[2:])
    else:
        print("usage: plot_run_test.py quick PLOT_RUN WORK_DIR DATA_DIR | "
              "run PLOT_RUN ENDGAME_EXE MPIEXEC WORK_DIR DATA_DIR")
        return 2
    if failures:
        print("%d failures" % len(failures))
        return 1
    print("plot-run test passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
