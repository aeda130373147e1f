"""Failures: one line naming the fix, as the CLI says it; profile() says why it cannot run."""

import pytest

import limiter
from conftest import DATA, PROBE_CSV


def test_a_missing_record_names_the_path():
    with pytest.raises(limiter.LimiterError, match="no_such_run.json") as error:
        limiter.load("no_such_run.json")
    assert error.value.exit_code == 2
    assert "\n" not in str(error.value)


def test_a_file_that_is_no_record_says_so():
    with pytest.raises(limiter.LimiterError, match="does not look like an Nsight Compute CSV"):
        limiter.load(f"{DATA}/ranks/README.md")


def test_an_unknown_format_names_the_choices():
    with pytest.raises(limiter.LimiterError, match="text"):
        limiter.load(PROBE_CSV).report("pdf")
