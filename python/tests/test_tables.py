"""limiter.load: the DataFrames hold the CLI's analysis (its JSON report), with the documented columns."""

import json

import limiter
from conftest import PROBE_CSV, STALLS_RECORD, TIMELINE_RECORD

KERNEL_COLUMNS = ["rank", "name", "display_name", "mangled_name", "grid_x", "block_x", "launches", "total_ns",
                  "mean_ns", "time_share", "main_verdict", "limiting_unit", "advice_headline"]
LAUNCH_COLUMNS = ["sequence", "name", "display_name", "grid_x", "block_z", "duration_ns", "verdict",
                  "limiting_unit", "advice_headline", "nvtx"]
TIMELINE_COLUMNS = ["event_id", "kind", "start_ns", "end_ns", "duration_ns", "stream_id", "name", "launch_sequence"]
PROGRAM_COLUMNS = ["scope", "verdict", "wall_ns", "gpu_busy_share", "kernel_ns", "idle_ns"]


def test_every_launch_has_the_reports_verdict():
    run = limiter.load(PROBE_CSV)
    report = json.loads(run.report("json", top=0))
    assert len(run.launches) == len(report["kernels"]) > 0
    by_sequence = {k["sequence"]: k["verdict"] for k in report["kernels"]}
    verdicts = run.launches["verdict"].where(run.launches["verdict"].notna(), None)
    assert dict(zip(run.launches["sequence"], verdicts)) == by_sequence
    for column in LAUNCH_COLUMNS:
        assert column in run.launches.columns, column


def test_kernels_are_the_reports_groups_most_time_first(mlp_run):
    groups = json.loads(mlp_run.report("json", top=1))["rollup"]["groups"]
    assert list(mlp_run.kernels.columns[:4]) == ["rank", "name", "display_name", "mangled_name"]
    for column in KERNEL_COLUMNS:
        assert column in mlp_run.kernels.columns, column
    assert len(mlp_run.kernels) == len(groups)
    assert list(mlp_run.kernels["rank"]) == list(range(1, len(groups) + 1))
    assert mlp_run.kernels["launches"].sum() == len(mlp_run.launches) == 10071
    assert list(mlp_run.kernels["display_name"]) == [g["display_name"] for g in groups]
    assert list(mlp_run.kernels["main_verdict"].fillna("none")) == [g["main_verdict"] or "none" for g in groups]


def test_the_timeline_and_the_program_verdict_of_a_record_with_a_timeline():
    run = limiter.load(TIMELINE_RECORD)
    for column in TIMELINE_COLUMNS:
        assert column in run.timeline.columns, column
    assert (run.timeline["kind"] == "kernel").sum() > 0
    assert (run.timeline["end_ns"] >= run.timeline["start_ns"]).all()
    for column in PROGRAM_COLUMNS:
        assert column in run.program.columns, column
    verdict = json.loads(run.report("json", top=1))["program"]["verdict"]
    assert run.program.set_index("scope").loc["window", "verdict"] == verdict


def test_stalls_by_kernel_and_reason():
    run = limiter.load(STALLS_RECORD)
    assert list(run.stalls.columns) == ["kernel", "reason", "title", "samples", "share", "stall_share"]
    assert len(run.stalls) > 0
    for share in run.stalls.groupby("kernel")["share"].sum():
        assert abs(share - 1.0) < 1e-6


def test_an_ncu_csv_loads_without_a_timeline():
    run = limiter.load(PROBE_CSV)
    assert len(run.launches) > 0 and len(run.kernels) > 0
    assert run.timeline.empty and run.program.empty
    assert run.info["source"] == "ncu-csv"


def test_counters_are_read_when_asked_for_every_launchs_own():
    run = limiter.load(PROBE_CSV)
    counters = run.counters
    assert list(counters.columns) == ["sequence", "metric", "value"]
    durations = counters[counters.metric == "gpu__time_duration.sum"].set_index("sequence")["value"]
    launches = run.launches.set_index("sequence")["duration_ns"]
    assert len(durations) == len(launches) and (durations.sort_index() == launches.sort_index()).all()
