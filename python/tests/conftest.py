"""Shared by the package's tests: the committed records, the built `limiter` executable, and the
CLI run as a subprocess to compare the package's output with."""

import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(REPO, "tests", "data")
# The largest committed record: a PyTorch MLP training run, 10,071 launches.
MLP_RECORD = os.path.join(DATA, "cupti", "h100_mlp_training_limiter.json.gz")
PROBE_CSV = os.path.join(DATA, "ncu", "h200_probe_raw.csv")
PROBE_SLOWER_CSV = os.path.join(DATA, "compare", "h200_probe_local_array_slower.csv")
STALLS_RECORD = os.path.join(DATA, "stalls", "h100_stalls_probe.json.gz")
TIMELINE_RECORD = os.path.join(DATA, "timeline", "h100_gloo_rank0_timeline.json.gz")
RANKS_FOLDER = os.path.join(DATA, "ranks", "h200x2_nccl")


def limiter_executable():
    """The `limiter` built with the module (ctest passes it), to compare against."""
    executable = os.environ.get("LIMITER_EXECUTABLE")
    if not executable:
        pytest.skip("LIMITER_EXECUTABLE names no built limiter (ctest -L python sets it)")
    return executable


def cli(*args, ok_codes=(0,)):
    """The CLI's standard output for ARGS, run as its own process."""
    done = subprocess.run([limiter_executable(), *map(str, args)], capture_output=True)
    assert done.returncode in ok_codes, done.stderr
    return done.stdout.decode("utf-8")  # as written: csv lines end in CRLF


def python_m_limiter(*args):
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run([sys.executable, "-m", "limiter", *map(str, args)], capture_output=True, env=environment)
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode("utf-8"), done.stderr.decode("utf-8"))


@pytest.fixture(scope="session")
def mlp_run():
    import limiter
    return limiter.load(MLP_RECORD)
