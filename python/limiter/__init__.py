"""limiter from Python: what limits each CUDA kernel of a run, as pandas DataFrames.

    import limiter
    run = limiter.load("tests/data/cupti/h100_mlp_training_limiter.json.gz")
    run.kernels.head()          # one row per kernel and launch configuration, most time first
    print(run.report("md"))     # the report as `limiter report RUN --format md` writes it
    run                         # in Jupyter: the HTML report inline
    print(limiter.compare("before.json", "after.json"))
    with limiter.profile() as p:  # this process's kernels in the block, as `limiter run` profiles
        train_step()
    p.kernels, p.program          # p is a Run of the region's record

Everything goes through the same C++ code as the `limiter` command line (the extension module
limiter._core runs its offline subcommands in-process; limiter._collector, built with the CUDA
toolkit, is the in-process collector). `python -m limiter ...` runs the CLI.
"""

import os

from . import _core
from ._cli import LimiterError
from .comparison import Comparison, compare
from .job import Job
from .profiling import ProfilingUnavailable, profile
from .run import Run

__version__ = _core.version()
__all__ = ["load", "compare", "profile", "Run", "Job", "Comparison", "LimiterError", "ProfilingUnavailable"]


def load(path_or_paths, *, peaks="theoretical"):
    """A Run for one record (a run record .json / .json.gz, or an Nsight Compute CSV), or a Job
    for several: a list of paths, a glob or a folder of a job's ranks, expanded as
    `limiter report` expands them. PEAKS: "theoretical" or "calibrated"."""
    arguments = [path_or_paths] if isinstance(path_or_paths, (str, os.PathLike)) else list(path_or_paths)
    arguments = [os.fspath(a) for a in arguments]
    if len(arguments) == 1 and os.path.isfile(arguments[0]):
        return Run(arguments[0], peaks=peaks)
    try:
        paths = _core.expand_record_arguments(arguments)
    except ValueError as error:
        raise LimiterError(str(error), 2) from None
    return Run(paths[0], peaks=peaks) if len(paths) == 1 else Job(paths, peaks=peaks)
