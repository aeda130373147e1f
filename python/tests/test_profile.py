"""limiter.profile(): its options checked as `limiter run` checks its flags, and its failures one
line naming the fix. Runs everywhere: without a GPU the collector's no-driver error, on a GPU a
region's record; in a host-only build, ProfilingUnavailable."""

import pytest

import limiter
from limiter import profiling

needs_collector = pytest.mark.skipif(profiling._collector is None, reason="a host-only build: no collector")


def _one_line(error):
    assert "\n" not in str(error) and str(error)


def test_a_build_without_the_toolkit_says_why_and_what_to_do(monkeypatch):
    monkeypatch.setattr(profiling, "_collector", None)
    monkeypatch.setattr(profiling, "_IMPORT_ERROR", "")
    with pytest.raises(limiter.ProfilingUnavailable, match=r"built without the CUDA toolkit.*limiter run -o run\.json") as error:
        limiter.profile()
    _one_line(error.value)


def test_a_collector_that_cannot_load_names_the_library(monkeypatch):
    monkeypatch.setattr(profiling, "_collector", None)
    monkeypatch.setattr(profiling, "_IMPORT_ERROR", "libcupti.so.13: cannot open shared object file")
    with pytest.raises(limiter.ProfilingUnavailable, match=r"libcupti\.so\.13.*LD_LIBRARY_PATH"):
        limiter.profile(every_launch=True)


def test_a_host_only_build_refuses_before_anything_else():
    if profiling._collector is not None:
        pytest.skip("this build has the collector")
    with pytest.raises(limiter.ProfilingUnavailable, match="built without the CUDA toolkit"):
        limiter.profile(every_launch=True)


@needs_collector
@pytest.mark.parametrize("options, message", [
    (dict(no_such_flag=1), r"limiter.profile\(\) has no option 'no_such_flag'.*limiter run --help"),
    (dict(stall_window=0), r"^--stall-window must be at least 1 \(milliseconds\), not '0'$"),
    (dict(every_launch=True, trace=True), r"^--every-launch and --trace each choose one mode"),
    (dict(replay="sometimes"), r"^--replay "),
])
def test_options_are_checked_as_limiter_run_checks_its_flags(options, message):
    with pytest.raises(limiter.LimiterError, match=message) as error:
        limiter.profile(**options)
    assert error.value.exit_code == 2
    _one_line(error.value)


@needs_collector
@pytest.mark.parametrize("options", [dict(), dict(every_launch=True), dict(trace=True)])
def test_a_region_without_a_gpu_fails_in_one_line_else_gives_its_run(options):
    try:
        profile = limiter.profile(**options)
    except limiter.LimiterError as error:  # no GPU or driver here: the collector's own line
        assert error.exit_code == 3
        assert "driver" in str(error) or "GPU" in str(error)
        _one_line(error)
        return
    with profile as p:
        pass  # no kernel: the region's record is empty, and still a Run
    assert isinstance(p, limiter.Run) and p.launches.empty


@needs_collector
def test_the_tables_are_there_only_once_the_block_has_ended():
    try:
        profile = limiter.profile(trace=True)
    except limiter.LimiterError:
        pytest.skip("no GPU here")
    with profile as p:
        with pytest.raises(AttributeError, match="once its with-block has ended"):
            p.kernels
    assert p.kernels is not None
