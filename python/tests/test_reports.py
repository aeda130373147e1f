"""Reports, comparisons and `python -m limiter`: byte for byte what the CLI writes."""

import os

import limiter
from conftest import MLP_RECORD, PROBE_CSV, PROBE_SLOWER_CSV, RANKS_FOLDER, cli, python_m_limiter


def test_every_format_of_the_report_is_the_clis():
    run = limiter.load(PROBE_CSV)
    for format in ("text", "md", "csv", "json", "html"):
        assert run.report(format) == cli("report", PROBE_CSV, "--format", format), format


def test_the_report_of_the_largest_record_is_the_clis(mlp_run):
    assert mlp_run.report("md") == cli("report", MLP_RECORD, "--format", "md")


def test_report_options_are_the_clis():
    run = limiter.load(PROBE_CSV)
    assert run.report("md", launches=True, top=3) == cli("report", PROBE_CSV, "--format", "md", "--launches", "--top", 3)
    assert run.report("text", kernels="spill") == cli("report", PROBE_CSV, "-k", "spill")


def test_the_html_report_shows_inline_in_a_notebook():
    shown = limiter.load(PROBE_CSV)._repr_html_()
    assert shown.startswith("<iframe srcdoc=\"")
    assert "&lt;svg id=&quot;utilization-map&quot;" in shown
    assert "<svg" not in shown  # escaped: the page's styles stay in its frame


def test_the_ranks_of_a_job_report_together():
    job = limiter.load(RANKS_FOLDER)
    assert isinstance(job, limiter.Job) and len(job.ranks) >= 2
    assert job.report("md") == cli("report", RANKS_FOLDER, "--format", "md")
    # the launcher's own record (torchrun's agent) has no kernel; each rank's has
    assert {p for p in job.paths if "_rank" in os.path.basename(p)} == set(job.kernels["record"])


def test_compare_is_the_clis_and_its_gate():
    comparison = limiter.compare(PROBE_CSV, PROBE_SLOWER_CSV, fail_if_slower=10)
    assert str(comparison) == cli("compare", PROBE_CSV, PROBE_SLOWER_CSV, "--fail-if-slower", 10, ok_codes=(4,))
    assert comparison.slower
    assert not limiter.compare(PROBE_CSV, PROBE_SLOWER_CSV, fail_if_slower=30).slower
    table = comparison.table
    assert "local_array_2k" in " ".join(map(str, table.iloc[:, :6].values.ravel()))
    assert comparison._repr_html_().startswith("<iframe")


def test_compare_takes_runs():
    before, after = limiter.load(PROBE_CSV), limiter.load(PROBE_SLOWER_CSV)
    assert limiter.compare(before, after).report("md") == cli("compare", PROBE_CSV, PROBE_SLOWER_CSV, "--format", "md")


def test_python_m_limiter_runs_the_cli():
    done = python_m_limiter("report", PROBE_CSV, "--format", "md")
    assert done.returncode == 0, done.stderr
    assert done.stdout == cli("report", PROBE_CSV, "--format", "md")
    assert python_m_limiter("report", "no_such_run.json").returncode == 2
