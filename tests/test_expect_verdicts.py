"""Verdicts of results and aggregate verdicts (coscore.expect.verdicts)."""

from __future__ import annotations

import pytest

from coscore.expect.verdicts import Result, aggregate_verdict, make_result, verdict_of


def _r(name: str, verdict: str) -> Result:
    return Result(name, 0.0, None, 0.0, None, verdict, "")  # type: ignore[arg-type]


def test_aggregate_sorts_by_code_point_order_of_names() -> None:
    assert aggregate_verdict([_r("secret/2", "WA"), _r("secret/10", "TLE")]) == "TLE"


def test_aggregate_sample_before_secret() -> None:
    assert aggregate_verdict([_r("secret/1", "WA"), _r("sample/1", "RTE")]) == "RTE"


def test_aggregate_empty_and_all_ac() -> None:
    assert aggregate_verdict([]) == "AC"
    assert aggregate_verdict([_r("a", "AC"), _r("b", "AC")]) == "AC"


def test_aggregate_skips_leading_ac() -> None:
    assert aggregate_verdict([_r("a", "AC"), _r("c", "WA"), _r("b", "RTE")]) == "RTE"


@pytest.mark.parametrize(
    ("time", "error", "validated", "expected"),
    [
        (1.0, False, True, "TLE"),  # time == time_limit is TLE (>=)
        (2.0, True, False, "TLE"),  # TLE wins over an error
        (0.5, True, False, "RTE"),
        (0.5, False, False, "WA"),
        (0.5, False, True, "AC"),
        (0.999, False, True, "AC"),
    ],
)
def test_verdict_order(time: float, error: bool, validated: bool, expected: str) -> None:
    assert verdict_of(time=time, time_limit=1.0, error=error, validated=validated) == expected


def test_make_result_wrong_answer_message() -> None:
    r = make_result("secret/mixed/m02", time=0.0, error=None, score=0.0, mark=2.0, time_limit=1.0)
    assert (r.verdict, r.message) == ("WA", "expected 2, got 0")
    assert r.describe() == "secret/mixed/m02: WA, expected 2, got 0"


def test_make_result_tolerance_and_unmarked() -> None:
    near = make_result("a", time=0.0, error=None, score=2.5, mark=2.0, time_limit=1.0, tolerance=0.5)
    assert near.verdict == "AC" and near.message == ""
    far = make_result("a", time=0.0, error=None, score=2.75, mark=2.0, time_limit=1.0, tolerance=0.5)
    assert far.verdict == "WA" and far.message == "expected 2, got 2.75"
    unmarked = make_result("a", time=0.0, error=None, score=7.0, mark=None, time_limit=1.0)
    assert unmarked.verdict == "AC"


def test_make_result_error_is_rte_with_its_message() -> None:
    r = make_result("a", time=0.0, error="division by zero", score=None, mark=3.0, time_limit=1.0)
    assert (r.verdict, r.message, r.score) == ("RTE", "division by zero", None)


def test_make_result_tle_description() -> None:
    r = make_result("a", time=1.5, error=None, score=3.0, mark=3.0, time_limit=1.0)
    assert r.verdict == "TLE"
    assert r.describe(1.0) == "a: TLE, took 1.5 s (time limit 1 s)"
