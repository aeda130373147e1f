"""Profiling a region of this process with the in-process collector (limiter/collector.hpp)."""

import importlib.util
import json
import os
import tempfile

from ._cli import LimiterError
from .run import Run

# The collector's module is built only with the CUDA toolkit: absent, or present but unloadable
# (its libcupti not found), each is said in profile()'s error.
_BUILT = importlib.util.find_spec(f"{__package__}._collector") is not None
_IMPORT_ERROR = ""
_collector = None
if _BUILT:
    try:
        from . import _collector
    except ImportError as error:
        _IMPORT_ERROR = str(error)


class ProfilingUnavailable(LimiterError):
    """limiter.profile() cannot run in this build of the package; the message says why and what to do."""

    def __init__(self, message):
        super().__init__(message, 3)


def _why_unavailable():
    if not _IMPORT_ERROR:
        return ("limiter.profile() needs the in-process CUPTI collector, and this limiter package was built without "
                "the CUDA toolkit (host side only: load, compare and reports work): reinstall with the toolkit "
                "(LIMITER_PYTHON_CUDA=ON pip install ., docs/python.md), or profile the whole program with "
                "`limiter run -o run.json -- python script.py` and limiter.load('run.json')")
    return (f"limiter.profile() could not load the in-process CUPTI collector ({_IMPORT_ERROR}): put the CUDA "
            "toolkit's CUPTI library on LD_LIBRARY_PATH (e.g. /usr/local/cuda/extras/CUPTI/lib64)")


def _flag_text(name, value):
    """VALUE as `limiter run --NAME` takes it: a switch 1/0, a list as JSON, anything else as text."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (list, tuple)):
        return json.dumps([str(v) for v in value])
    return str(value)


class Profile(Run):
    """The region of a ``with limiter.profile(...) as p:`` block; once the block has ended, ``p``
    is the region's record as a :class:`limiter.Run` (the class limiter.load returns): its
    ``kernels``, ``launches``, ``timeline``, ``stalls``, ``program``, ``report(...)`` and inline
    HTML. ``p.path`` is the record: OUTPUT, or a scratch file that lives as long as ``p``.
    """

    def __init__(self, output, flags):  # Run.__init__ runs when the block ends
        self._scratch = None
        if output is None:
            self._scratch = tempfile.TemporaryDirectory(prefix="limiter-profile-")
            output = os.path.join(self._scratch.name, "region.json")
        self.path = os.fspath(output)
        try:
            self._region = _collector.Region(flags)
        except (_collector.InputError, _collector.SystemError) as error:
            raise LimiterError(str(error), 2 if isinstance(error, _collector.InputError) else 3) from None

    def __enter__(self):
        self._region.start()
        return self

    def __exit__(self, kind, value, traceback):
        region, self._region = self._region, None
        region.stop()
        region.write_run(self.path)  # CUPTI is free again once the record is written
        Run.__init__(self, self.path)
        return False

    def __getattr__(self, name):
        # Reached only for what the object lacks: before the block ends, the Run's tables.
        if name.startswith("_"):
            raise AttributeError(name)
        raise AttributeError(f"'{name}' is the profiled region's, there once its with-block has ended")

    def __repr__(self):
        return super().__repr__() if "launches" in self.__dict__ else "<limiter.Profile: region not ended>"


def profile(output=None, **flags):
    """``with limiter.profile(...) as p:`` profiles the kernels this process launches inside the block.

    FLAGS are `limiter run`'s, '-' written '_', with the same defaults and checks: none for the
    default run (stall reasons, then each kernel's first launches' counters, then the timeline),
    ``every_launch=True``, ``trace=True``, ``stalls=True``, ``sampling=True``,
    ``kernel_regex="gemm"``, ``per_kernel_count=5``, ``nvtx_include=["step/"]``... OUTPUT: where
    the region's record is written (default: a scratch file).

    After the block ``p`` is a Run of the region's record.
    Raises ProfilingUnavailable in a build without the collector, and LimiterError with the
    collector's one line for a bad option, no GPU or driver, or another profiler holding CUPTI.
    """
    if _collector is None:
        raise ProfilingUnavailable(_why_unavailable())
    return Profile(output, {name.replace("_", "-"): _flag_text(name, value) for name, value in flags.items()})
