"""Checking expectations on sets of results (coscore.expect.checks)."""

from __future__ import annotations

from coscore.expect.checks import Timing, check_expectation
from coscore.expect.registry import ABBREVIATIONS, parse_registry
from coscore.expect.verdicts import Result
from coscore.report import agreement

TIMING = Timing(time_limit=1.0, ac_margin=2.0, tle_margin=1.5)


def _r(name: str, verdict: str = "AC", *, time: float = 0.0, score: float | None = 0.0,
       mark: float | None = None, message: str = "") -> Result:
    return Result(name, time, None, score, mark, verdict, message)  # type: ignore[arg-type]


def _holds(checks: dict, results: list[Result], timing: Timing = TIMING) -> bool:
    return all(c.ok for c in check_expectation(checks, results, timing))


def _reasons(checks: dict, results: list[Result]) -> list[str]:
    return [why for c in check_expectation(checks, results, TIMING) for why in c.failures]


WRONG_ANSWER = {"permitted_testcase_verdicts": ("AC", "WA"), "required_testcase_verdicts": ("WA",)}


def test_permitted_and_required_vectors() -> None:
    assert _holds(WRONG_ANSWER, [_r("a", "AC"), _r("b", "WA")])
    assert not _holds(WRONG_ANSWER, [_r("a", "AC"), _r("b", "AC")])
    assert not _holds(WRONG_ANSWER, [_r("a", "WA"), _r("b", "TLE")])


def test_required_fails_on_empty_set_and_permitted_holds() -> None:
    assert not _holds({"required_testcase_verdicts": ("WA",)}, [])
    assert _holds({"permitted_testcase_verdicts": ("AC",)}, [])


def test_two_entries_required_wa_and_required_tle_on_wa_fails() -> None:
    registry = parse_registry("r: {required_testcase_verdicts: [WA]}\n'*': {required_testcase_verdicts: [TLE]}\n", "pass-fail")
    entries = registry.for_rule("r")
    assert len(entries) == 2
    outcomes = [_holds(dict(e.expectation.checks), [_r("secret/1", "WA")]) for e in entries]
    assert outcomes == [True, False]


def test_permitted_failure_names_the_test_cases() -> None:
    results = [_r("secret/mixed/m01"), _r("secret/mixed/m02", "WA", score=0.0, mark=2.0, message="expected 2, got 0")]
    assert _reasons({"permitted_testcase_verdicts": ("AC",)}, results) == ["secret/mixed/m02: WA, expected 2, got 0"]


def test_message_is_a_case_sensitive_substring() -> None:
    results = [_r("a"), _r("b", "RTE", score=None, message="division by zero")]
    assert _holds({"message": "division"}, results)
    assert not _holds({"message": "Division"}, results)
    assert not _holds({"message": "x"}, [])


def test_aggregate_verdict() -> None:
    results = [_r("secret/2", "WA"), _r("secret/10", "TLE")]
    assert _holds({"permitted_aggregate_verdict": ("TLE",)}, results)
    assert not _holds({"permitted_aggregate_verdict": ("WA",)}, results)
    assert _holds({"permitted_aggregate_verdict": ("AC",)}, [])
    assert not _holds({"permitted_aggregate_verdict": ("WA",)}, [_r("a")])


def test_testcase_scores_range_inclusive() -> None:
    results = [_r("a", score=0.0), _r("b", score=10.0), _r("c", "RTE", score=None)]
    assert _holds({"permitted_testcase_scores": (0.0, 10.0)}, results)
    assert _reasons({"permitted_testcase_scores": (0.0, 5.0)}, results) == ["b: score 10 is not in [0, 5]"]
    assert _reasons({"permitted_testcase_scores": (0.0, 0.0)}, results) == ["b: score 10 is not in 0"]


def test_aggregate_score_is_the_sum() -> None:
    results = [_r("a", score=2.0), _r("b", score=5.0)]
    assert _holds({"permitted_aggregate_score": (7.0, 7.0)}, results)
    assert _holds({"permitted_aggregate_score": (0.0, 7.0)}, results)
    assert not _holds({"permitted_aggregate_score": (0.0, 6.5)}, results)
    assert _holds({"permitted_aggregate_score": (0.0, 0.0)}, [])


def test_with_margin() -> None:
    margin = {"with_margin": True}
    assert _holds(margin, [_r("a", time=0.1), _r("b", time=0.49)])  # < 1 / 2
    assert not _holds(margin, [_r("a", time=0.1), _r("b", time=0.5)])  # not < 0.5
    assert not _holds(margin, [_r("a", "TLE", time=1.2)])  # a TLE, but not by the margin
    assert _holds(margin, [_r("a", "TLE", time=1.5)])  # >= 1 * 1.5
    assert _holds(margin, [])
    (why,) = _reasons(margin, [_r("a", time=0.1), _r("slow", time=0.7)])
    assert why.startswith("slow took 0.7 s")


def test_accepted_abbreviation_needs_the_margin() -> None:
    accepted = dict(ABBREVIATIONS["accepted"])
    assert _holds(accepted, [_r("a", time=0.2)])
    assert not _holds(accepted, [_r("a", time=0.7)])


def test_min_exact_agreement() -> None:
    results = [_r("a"), _r("b"), _r("c"), _r("d", "WA")]
    assert _holds({"min_exact_agreement": 0.75}, results)
    assert not _holds({"min_exact_agreement": 0.76}, results)
    assert _reasons({"min_exact_agreement": 0.9}, results) == ["exact agreement 0.750 (3 of 4 AC) is below 0.9"]
    assert not _holds({"min_exact_agreement": 0.0}, [])


def test_min_qwk() -> None:
    perfect = [_r(str(i), score=float(i), mark=float(i)) for i in range(11)]
    assert _holds({"min_qwk": 1.0}, perfect)
    swapped = [_r("a", score=10.0, mark=0.0), _r("b", score=0.0, mark=10.0)]
    assert not _holds({"min_qwk": 0.0}, swapped)
    assert _holds({"min_qwk": -1.0}, swapped)
    unmarked = [_r("a", score=3.0)]
    assert not _holds({"min_qwk": -1.0}, unmarked)  # nothing to measure


def test_min_qwk_uses_the_projects_kappa() -> None:
    marks = [0.0, 2.0, 5.0, 10.0, 2.4]
    scores = [0.0, 2.0, 5.0, 5.0, 2.0]
    kappa = agreement(marks, scores).qwk
    assert kappa is not None and 0 < kappa < 1
    results = [_r(str(i), score=s, mark=m) for i, (m, s) in enumerate(zip(marks, scores))]
    assert _holds({"min_qwk": kappa}, results)
    assert not _holds({"min_qwk": kappa + 1e-6}, results)


def test_min_qwk_undefined_fails() -> None:
    (why,) = _reasons({"min_qwk": 0.0}, [_r("a", score=3.0, mark=3.0), _r("b", score=3.0, mark=3.0)])
    assert "undefined" in why
