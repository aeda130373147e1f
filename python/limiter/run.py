"""One run record as pandas DataFrames: the tables of `limiter export --format sqlite`."""

import os
import sqlite3
import tempfile

import pandas as pd

from . import _cli
from ._notebook import inline_html


def _read_tables(path, peaks, counters, only=None):
    """Exports PATH to a scratch database with the CLI's code and reads its tables (those named in
    ONLY, else all). Without COUNTERS the counters table is left empty: most of a large run's rows,
    read only when asked for."""
    with tempfile.TemporaryDirectory(prefix="limiter-") as scratch:
        database = os.path.join(scratch, "run.sqlite")
        _cli.run(["export", path, "--format", "sqlite", "-o", database, "--peaks", peaks]
                 + ([] if counters else ["--no-counters"]))
        connection = sqlite3.connect(database)
        try:
            names = only or [row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            return {name: pd.read_sql_query(f'SELECT * FROM "{name}"', connection) for name in names}
        finally:
            connection.close()


def _named(table, kernels, first):
    """TABLE with each kernel_id's name, display_name and mangled_name, after the columns FIRST."""
    named = table.merge(kernels, on="kernel_id", how="left", sort=False).drop(columns="kernel_id")
    leading = first + ["name", "display_name", "mangled_name"]
    return named[leading + [c for c in named.columns if c not in leading]]


class Run:
    """A run record (`limiter run`, `limiter kernels`, `limiter import`) or an Nsight Compute CSV,
    analysed by the same code as `limiter report` and `limiter export`.

    Each table is a pandas DataFrame with the columns of the table of the same name that
    `limiter export --format sqlite` writes (README, "A database of the run"); kernel ids are
    replaced by the kernels' ``name`` (demangled), ``display_name`` and ``mangled_name``:

    ``kernels``
        one row per kernel and launch configuration, most time first (the grouped report):
        ``rank`` (1 = most time), names, ``grid_x``..``block_z``, ``launches``, ``total_ns``,
        ``mean_ns``, ``min_ns``, ``max_ns``, ``time_share``, ``main_verdict``, launches per
        verdict, ``limiting_unit``, mean utilisations and LMEM shares, ``first_sequence``,
        ``longest_sequence``, ``fix_first_rank``, ``advice_headline``.
    ``launches``
        one row per launch, in launch order: ``sequence``, names, configuration, registers,
        shared and local bytes, stream, ``duration_ns``, ``verdict``, ``balanced``,
        ``limiting_unit``, ``latency_causes``, ``*_utilization``, ``lmem_*``, occupancy,
        ``waves``, ``advice_headline``, ``nvtx``.
    ``timeline``
        one row per activity event of the record's timeline (kernels, copies, memsets,
        synchronisations, API calls, NVTX ranges): ``event_id``, ``kind``, ``start_ns``,
        ``end_ns``, ``duration_ns``, ``stream_id``, ``context_id``, ``device``,
        ``correlation_id``, ``name``, ``bytes``, ``pageable``, ``thread_id``,
        ``launch_sequence``. Empty without a timeline.
    ``stalls``
        PC sampling per kernel and stall reason: ``kernel`` (demangled name), ``reason``,
        ``title``, ``samples``, ``share``, ``stall_share``. Empty without samples.
    ``program``
        the program verdict: the whole window (``scope`` "window"), then each NVTX range:
        ``instances``, ``verdict``, ``wall_ns``, ``gpu_busy_ns``, ``gpu_busy_share``,
        ``kernel_ns``, ``copy_only_ns``, ``idle_*_ns``, ``paused_ns``. Empty without a timeline.
    ``counters``
        every counter of every launch, long format: ``sequence``, ``metric``, ``value``; read
        (the record exported again) when first asked for, since it holds most of a run's rows.
    ``hot_pcs``, ``program_pauses``
        as the database's tables of those names.
    ``info``
        the database's ``run`` table as a dict (device, source, peaks, totals).
    """

    def __init__(self, path, *, peaks="theoretical"):
        self.path = os.fspath(path)
        self.peaks = peaks
        tables = _read_tables(self.path, peaks, counters=False)
        kernels = tables["kernels"]
        self.kernels = _named(tables["groups"], kernels, ["rank"])
        self.launches = _named(tables["launches"], kernels, ["sequence"])
        self.timeline = tables["timeline"]
        self.stalls = tables["stalls"]
        self.program = tables["program"]
        self.program_pauses = tables["program_pauses"]
        self._counters = None
        self.hot_pcs = tables["hot_pcs"]
        self.info = dict(zip(tables["run"]["key"], tables["run"]["value"]))

    @property
    def counters(self):
        if self._counters is None:
            self._counters = _read_tables(self.path, self.peaks, counters=True, only=["counters"])["counters"]
        return self._counters

    def report(self, format="text", *, top=None, launches=False, kernels=None, names=None):
        """The report as `limiter report RUN --format FORMAT` writes it (text, md, csv, json, html).

        TOP, LAUNCHES, KERNELS (a regular expression) and NAMES are the CLI's --top, --launches,
        -k and --names.
        """
        args = ["report", self.path] + _cli.report_arguments(format, top, launches, kernels, names, self.peaks)
        return _cli.run(args)[1]

    def _repr_html_(self):
        return inline_html(self.report("html"))

    def __repr__(self):
        return (f"<limiter.Run {self.path!r}: {len(self.launches)} launches of {len(self.kernels)} kernel "
                f"configurations, {len(self.timeline)} timeline events>")
