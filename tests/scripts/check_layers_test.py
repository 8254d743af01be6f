#!/usr/bin/python3
# Test of scripts/check-layers: a copy of this repository's src/ and include/ passes, and each
# way of breaking the graph fails it with exit 1 and a line naming the cause:
#   a forbidden include (layout including search, mid including layout: edges the code does
#   not have), an edge the graph lists that no include uses, a layer library linking other
#   layers than the graph says, an unknown layer folder, and a root without src/.
# Usage: check_layers_test.py CHECK_LAYERS SOURCE_DIR WORK_DIR
import pathlib
import shutil
import subprocess
import sys

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what)


def copy_tree(source, dest):
    if dest.exists():
        shutil.rmtree(dest)
    keep = shutil.ignore_patterns("*.py", "*.mjs", "*.js", "*.md", "*.json")
    for part in ("src", "include"):
        shutil.copytree(source / part, dest / part, ignore=keep)


def run_check(script, root):
    r = subprocess.run([sys.executable, str(script), "--root", str(root)], capture_output=True,
                       text=True, timeout=60)
    print(f"$ check-layers --root {root}: exit {r.returncode}\n{r.stdout}{r.stderr}", end="")
    return r


def expect_failure(script, root, needle, what):
    r = run_check(script, root)
    check(r.returncode == 1, f"{what}: exit {r.returncode}, want 1")
    check(needle in r.stderr, f"{what}: stderr lacks {needle!r}")
    check("Traceback" not in r.stderr, f"{what}: traceback")


def append_line(path, line):
    path.write_text(path.read_text() + line + "\n")


def main():
    script, source, work = (pathlib.Path(a) for a in sys.argv[1:4])
    work.mkdir(parents=True, exist_ok=True)
    tree = work / "check-layers-tree"

    copy_tree(source, tree)
    r = run_check(script, tree)
    check(r.returncode == 0 and "layers ok" in r.stdout, "the copied tree passes")

    # Forbidden includes: edges the code does not have (layout -> search, mid -> layout).
    append_line(tree / "include/pentago/layout/section.h", '#include "pentago/search/super_search.h"')
    lines = (tree / "include/pentago/layout/section.h").read_text().count("\n")
    expect_failure(script, tree, f"include/pentago/layout/section.h:{lines}: layer layout includes "
                   "pentago/search", "layout including search")
    copy_tree(source, tree)
    append_line(tree / "src/mid/midgame.cpp", '#include "pentago/layout/section.h"')
    expect_failure(script, tree, "layer mid includes pentago/layout", "mid including layout")

    # An edge the graph lists that no file uses: db without its search includes.
    copy_tree(source, tree)
    for path in list((tree / "src/db").rglob("*")) + list((tree / "include/pentago/db").rglob("*")):
        if path.is_file():
            text = path.read_text().splitlines()
            path.write_text("\n".join(l for l in text if '"pentago/search/' not in l) + "\n")
    expect_failure(script, tree, "layer db is listed as using search", "unused edge db -> search")

    # A layer library linking a layer the graph does not list.
    copy_tree(source, tree)
    cmake = tree / "src/layout/CMakeLists.txt"
    cmake.write_text(cmake.read_text().replace("pentago_layer(pentago_layout pentago_base",
                                               "pentago_layer(pentago_layout pentago_search"))
    expect_failure(script, tree, "pentago_layout links search, the graph says base",
                   "layout linking search")

    # A folder under src/ that is no layer.
    copy_tree(source, tree)
    (tree / "src/extra").mkdir()
    expect_failure(script, tree, "src/extra: not a known layer", "unknown layer folder")

    # A root that is not a source tree.
    expect_failure(script, work / "no-such-tree", "no src/ folder", "missing root")

    shutil.rmtree(tree)
    if failures:
        print(f"{len(failures)} failure(s)")
        return 1
    print("all check-layers cases pass")
    return 0


if __name__ == "__main__":
    sys.exit(main())
