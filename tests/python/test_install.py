"""cmake --install into a temporary prefix: the executables, headers, static libraries and the
CMake package let a ten-line program outside the tree build and give pentago-lookup's answer;
the installed Python module imports and answers; the installed job scripts find P/bin."""

import glob
import json
import os
import subprocess
import sys

import pytest

from conftest import env_path, lookup_json


def run(*args, env=None, cwd=None):
    result = subprocess.run(list(args), capture_output=True, text=True, env=env, cwd=cwd,
                            timeout=600)
    if result.returncode != 0:
        pytest.fail(f"{' '.join(args)} failed ({result.returncode}):\n{result.stdout}\n"
                    f"{result.stderr}")
    return result


@pytest.fixture(scope="module")
def prefix(tmp_path_factory):
    prefix = str(tmp_path_factory.mktemp("prefix"))
    run(env_path("PENTAGO_CMAKE"), "--install", env_path("PENTAGO_BINARY_DIR"), "--prefix",
        prefix)
    return prefix


def without_time(text):
    answer = json.loads(text)
    answer.pop("elapsed_ms")
    return answer


def test_installed_files(prefix):
    for name in ("pentago-lookup", "pentago-serve", "pentago-endgame", "pentago-check"):
        assert os.access(os.path.join(prefix, "bin", name), os.X_OK), name
    assert os.path.isfile(os.path.join(prefix, "include/pentago/query/query.h"))
    for layer in ("util", "base", "mid", "data", "query", "serve", "mpi"):
        assert os.path.isfile(os.path.join(prefix, f"lib/libpentago_{layer}.a")), layer
    assert os.path.isfile(os.path.join(prefix, "lib/cmake/pentago/pentagoConfig.cmake"))
    # The web page lives inside pentago-serve, not beside it.
    assert not glob.glob(os.path.join(prefix, "**/index.html"), recursive=True)


def test_consumer_builds_and_answers(prefix, tmp_path, bin_dir, data_dir):
    source = os.path.join(env_path("PENTAGO_SOURCE_DIR"), "tests/python/consumer")
    build = str(tmp_path / "consumer-build")
    cmake = env_path("PENTAGO_CMAKE")
    run(cmake, "-S", source, "-B", build, f"-DCMAKE_PREFIX_PATH={prefix}",
        f"-DCMAKE_CXX_COMPILER={env_path('PENTAGO_CXX')}", "-DCMAKE_BUILD_TYPE=Release")
    run(cmake, "--build", build)
    for board in ("0", "1m"):
        out = run(os.path.join(build, "consumer"), board, data_dir).stdout
        assert without_time(out) == lookup_json(bin_dir, board, data_dir)
    # The installed executable gives the same answer.
    out = run(os.path.join(prefix, "bin/pentago-lookup"), "--json", "--db", data_dir, "0").stdout
    assert without_time(out) == lookup_json(bin_dir, "0", data_dir)


def test_installed_python_module(prefix, data_dir):
    site = glob.glob(os.path.join(prefix, "lib/python3*/dist-packages"))
    assert len(site) == 1
    env = dict(os.environ, PYTHONPATH=site[0])
    code = ("import json, sys, pentago; print(pentago.__file__); "
            "print(json.dumps(pentago.query('0', db=[sys.argv[1]])['value']))")
    out = run(sys.executable, "-c", code, data_dir, env=env).stdout.split("\n")
    assert out[0].startswith(site[0]) and out[1] == '"win"'
    out = run(sys.executable, "-m", "pentago.sample", "--stones", "1", "--count", "3", "--db",
              data_dir, os.path.join(prefix, "s.npz"), env=env).stdout
    assert "3 positions" in out


def test_installed_jobs_find_executables(prefix, tmp_path):
    script = os.path.join(prefix, "share/pentago/jobs/slurm/check.sbatch")
    env = {k: v for k, v in os.environ.items()
           if k not in ("PENTAGO_BIN", "PENTAGO_REPO", "SLURM_SUBMIT_DIR")}
    env["PATH"] = "/usr/bin:/bin"
    # No run directory given: the usage message (exit 2) comes after the executables were found.
    result = subprocess.run(["bash", script], capture_output=True, text=True, env=env,
                            cwd=str(tmp_path), timeout=60)
    assert result.returncode == 2, result.stderr
    assert "usage: sbatch jobs/slurm/check.sbatch" in result.stderr
    env["PENTAGO_BIN"] = str(tmp_path / "nowhere")
    result = subprocess.run(["bash", script], capture_output=True, text=True, env=env,
                            cwd=str(tmp_path), timeout=60)
    assert result.returncode == 1 and "pentago-check not found" in result.stderr
