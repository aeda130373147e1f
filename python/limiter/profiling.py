"""Profiling a region of this process: the in-process collector (lib/include/limiter/collector.hpp)."""

from . import _core


class ProfilingUnavailable(RuntimeError):
    """limiter.profile() cannot run in this build of the package; the message says why and what to do."""


_WHY = ("limiter.profile() needs the in-process CUPTI collector, which this build of the limiter package "
        "does not include (the package is built for the host side only: reading, analysing, reporting and "
        "comparing records); profile the program with the CLI instead: "
        "`limiter run -o run.json -- python script.py`, then limiter.load('run.json')")


def profile(**options):
    """``with limiter.profile(...) as p:`` profiles the kernels launched inside the block.

    Not available yet: raises ProfilingUnavailable saying why. OPTIONS will be those of
    CollectorOptions (collector_options.hpp), as `limiter run` takes them.
    """
    if not _core.has_collector:
        raise ProfilingUnavailable(_WHY)
    return _core.Collector(**options)  # a context manager, in a build with the collector
