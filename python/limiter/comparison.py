"""Two runs compared, as `limiter compare BEFORE AFTER` compares them."""

import io
import os

import pandas as pd

from . import _cli
from ._notebook import inline_html

_SLOWER = 4  # the CLI's exit code for a comparison slower than --fail-if-slower


def _paths_of(side):
    """A path, a list of paths, a Run or a Job as the CLI's BEFORE or AFTER argument."""
    if hasattr(side, "paths"):
        raise ValueError("compare a Job by its folder or glob, e.g. limiter.compare('before/', 'after/')")
    return os.fspath(getattr(side, "path", side))


class Comparison:
    """What changed per kernel between BEFORE and AFTER (paths, folders of ranks, or Runs).

    ``table`` is the CSV comparison as a DataFrame (one row per matched kernel, or per launch
    with ``launches=True``; the columns of `limiter compare --format csv`, README "Comparing
    two runs"). ``slower`` is True when FAIL_IF_SLOWER (percent) was given and a matched kernel
    or the total is slower by more than that (the CLI's exit code 4).
    """

    def __init__(self, before, after, *, launches=False, kernels=None, names=None, fail_if_slower=None,
                 peaks="theoretical", rank=None):
        self._args = ["compare", _paths_of(before), _paths_of(after)]
        if fail_if_slower is not None:
            self._args += ["--fail-if-slower", float(fail_if_slower)]
        if rank is not None:
            self._args += ["--rank", int(rank)]
        self._options = dict(launches=launches, kernels=kernels, names=names, peaks=peaks)

    @property
    def slower(self):
        return self._run("text", top=None)[0] == _SLOWER

    def _run(self, format, top):
        return _cli.run(self._args + _cli.report_arguments(format, top, **self._options), ok_codes=(0, _SLOWER))

    def report(self, format="text", *, top=None):
        """The comparison as `limiter compare --format FORMAT` writes it (text, md, csv, json, html)."""
        return self._run(format, top)[1]

    @property
    def table(self):
        return pd.read_csv(io.StringIO(self.report("csv", top=0)))

    def __str__(self):
        return self.report("text")

    def _repr_html_(self):
        return inline_html(self.report("html"))


def compare(before, after, **options):
    """Compares two runs; see Comparison for the options."""
    return Comparison(before, after, **options)
