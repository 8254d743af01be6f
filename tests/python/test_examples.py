"""The two scripts of examples/ run as docs/python.md shows and print what they computed."""

import os
import subprocess
import sys

import pytest

from conftest import env_path


def run_example(name, *args, cwd):
    script = os.path.join(env_path("PENTAGO_SOURCE_DIR"), "examples", name)
    result = subprocess.run([sys.executable, script, *args], capture_output=True, text=True,
                            cwd=cwd, timeout=300)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_plot_counts(tmp_path, data_dir):
    matplotlib = pytest.importorskip("matplotlib")
    import matplotlib.image
    out = str(tmp_path / "counts.png")
    assert "36 stone counts, 0..35" in run_example("plot_counts.py", data_dir, out, cwd=tmp_path)
    image = matplotlib.image.imread(out)
    assert image.shape[0] > 100 and image.shape[1] > 100


def test_sample_balance(tmp_path, data_dir):
    out = run_example("sample_balance.py", "1", "40", data_dir, cwd=tmp_path)
    lines = out.splitlines()
    assert lines[0] == "40 random positions with 1 stones (white to move):"
    assert sum(int(line.split()[1]) for line in lines[1:4]) == 40
