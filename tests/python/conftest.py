"""Shared fixtures of the Python tests: where the build, the published data and the tools are.

ctest sets PENTAGO_BIN (build/bin), PENTAGO_SHARED_DATA, PENTAGO_BINARY_DIR and
PENTAGO_SOURCE_DIR; PYTHONPATH=build/python makes `import pentago` load the built module.
"""

import json
import os
import subprocess

import pytest


def env_path(name):
    value = os.environ.get(name)
    if not value:
        pytest.fail(f"{name} is not set (run through ctest)")
    return value


@pytest.fixture(scope="session")
def bin_dir():
    return env_path("PENTAGO_BIN")


@pytest.fixture(scope="session")
def data_dir():
    path = env_path("PENTAGO_SHARED_DATA")
    if not os.path.exists(os.path.join(path, "counts-0.npy")):
        pytest.fail(f"no published data in {path}")
    return path


def run_tool(bin_dir, name, *args, check=True):
    """Runs build/bin/NAME ARGS; returns the CompletedProcess (text)."""
    result = subprocess.run([os.path.join(bin_dir, name), *args], capture_output=True, text=True,
                            timeout=300)
    if check and result.returncode != 0:
        pytest.fail(f"{name} {' '.join(args)} failed ({result.returncode}): {result.stderr}")
    return result


def lookup_json(bin_dir, board, *db, extra=()):
    """pentago-lookup --json [extra options] BOARD as a dict, without the timing field."""
    args = [a for d in db for a in ("--db", d)] + list(extra)
    answer = json.loads(run_tool(bin_dir, "pentago-lookup", "--json", *args, str(board)).stdout)
    answer.pop("elapsed_ms")
    return answer
