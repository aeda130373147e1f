"""The records of a job's ranks (torchrun, mpirun, srun), together."""

import pandas as pd

from . import _cli
from ._notebook import inline_html
from .run import Run


class Job:
    """Several run records read together, as `limiter report RECORDS...` reads them.

    ``ranks`` holds a Run per record in the order the CLI expands them; ``kernels``,
    ``launches``, ``timeline``, ``stalls`` and ``program`` are the ranks' tables one under
    another with a first column ``record`` (the record's path).
    """

    def __init__(self, paths, *, peaks="theoretical"):
        self.paths = list(paths)
        self.peaks = peaks
        self.ranks = [Run(path, peaks=peaks) for path in self.paths]

    def _stacked(self, table):
        frames = [getattr(run, table).assign(record=run.path) for run in self.ranks]
        stacked = pd.concat(frames, ignore_index=True)
        return stacked[["record"] + [c for c in stacked.columns if c != "record"]]

    kernels = property(lambda self: self._stacked("kernels"))
    launches = property(lambda self: self._stacked("launches"))
    timeline = property(lambda self: self._stacked("timeline"))
    stalls = property(lambda self: self._stacked("stalls"))
    program = property(lambda self: self._stacked("program"))

    def report(self, format="text", *, top=None, kernels=None, names=None, rank=None):
        """The report of the ranks together as `limiter report RECORDS... --format FORMAT` writes it;
        RANK (the CLI's --rank) reports that rank alone."""
        args = ["report", *self.paths] + _cli.report_arguments(format, top, False, kernels, names, self.peaks)
        if rank is not None:
            args += ["--rank", int(rank)]
        return _cli.run(args)[1]

    def _repr_html_(self):
        return inline_html(self.report("html"))

    def __repr__(self):
        return f"<limiter.Job of {len(self.ranks)} records>"
