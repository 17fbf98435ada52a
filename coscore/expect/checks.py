"""Check one expectation on a set of results.

Every check returns the reasons it fails (empty when it holds): one line per
test case that broke it (``secret/mixed/m02: WA, expected 2, got 0``), or one
line about the whole set.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .verdicts import Result, first_failure, fmt_number

_NO_CASES = "no test case matches"


@dataclass(frozen=True)
class Timing:
    """Suite-wide timing constants (seconds, and the two margins > 1)."""

    time_limit: float
    ac_margin: float
    tle_margin: float


class Checked:
    """Something checked (a key, an expectation, a rule): it holds iff it gives no reason
    to fail."""

    failures: Sequence[str]

    @property
    def ok(self) -> bool:
        """True iff it holds: no reason to fail."""
        return not self.failures


@dataclass(frozen=True)
class CheckResult(Checked):
    """The outcome of one key of an expectation."""

    key: str
    value: Any
    failures: tuple[str, ...]


def check_expectation(checks: Mapping[str, Any], results: Sequence[Result], timing: Timing) -> list[CheckResult]:
    """Run every check of a normalized expectation on ``results``."""
    ordered = sorted(results, key=lambda r: r.name)
    return [
        CheckResult(key, value, tuple(_CHECKS[key](value, ordered, timing)))
        for key, value in checks.items()
    ]


def _permitted_verdicts(value: tuple[str, ...], results: Sequence[Result], timing: Timing) -> list[str]:
    return [r.describe(timing.time_limit) for r in results if r.verdict not in value]


def _required_verdicts(value: tuple[str, ...], results: Sequence[Result], timing: Timing) -> list[str]:
    if any(r.verdict in value for r in results):
        return []
    if not results:
        return [_NO_CASES]
    return [f"none of {_count(results)} has a verdict in {_list(value)}"]


def _aggregate_verdict(value: tuple[str, ...], results: Sequence[Result], timing: Timing) -> list[str]:
    failure = first_failure(results)
    if failure is None:
        return [] if "AC" in value else [f"aggregate verdict AC is not in {_list(value)}"]
    if failure.verdict in value:
        return []
    return [f"aggregate verdict {failure.verdict} is not in {_list(value)}, from {failure.describe(timing.time_limit)}"]


def _message(value: str, results: Sequence[Result], timing: Timing) -> list[str]:
    if any(value in r.message for r in results):
        return []
    if not results:
        return [_NO_CASES]
    return [f"no message of {_count(results)} contains {value!r}"]


def _testcase_scores(value: tuple[float, float], results: Sequence[Result], timing: Timing) -> list[str]:
    return [
        f"{r.name}: score {fmt_number(r.score)} is not in {_range(value)}"
        for r in results
        if r.score is not None and not value[0] <= r.score <= value[1]
    ]


def _aggregate_score(value: tuple[float, float], results: Sequence[Result], timing: Timing) -> list[str]:
    total = sum(r.score for r in results if r.score is not None)
    if value[0] <= total <= value[1]:
        return []
    return [f"the sum of scores over {_count(results)}, {fmt_number(float(total))}, is not in {_range(value)}"]


def _with_margin(value: bool, results: Sequence[Result], timing: Timing) -> list[str]:
    slowest = max(results, key=lambda r: r.time, default=None)
    most = 0.0 if slowest is None else slowest.time
    fast = timing.time_limit / timing.ac_margin
    slow = timing.time_limit * timing.tle_margin
    if most < fast or most >= slow:
        return []
    assert slowest is not None
    return [
        f"{slowest.name} took {most:.3g} s: neither < {fast:.3g} s (time_limit / ac_margin) "
        f"nor >= {slow:.3g} s (time_limit * tle_margin)"
    ]


def _exact_agreement(value: float, results: Sequence[Result], timing: Timing) -> list[str]:
    if not results:
        return [_NO_CASES]
    agreed = sum(r.verdict == "AC" for r in results)
    share = agreed / len(results)
    if share >= value:
        return []
    return [f"exact agreement {share:.3f} ({agreed} of {len(results)} AC) is below {fmt_number(value)}"]


def _min_qwk(value: float, results: Sequence[Result], timing: Timing) -> list[str]:
    from ..report import agreement  # the project's one QWK: rounded half up, 0-10 scale

    pairs = [(r.mark, r.score) for r in results if r.mark is not None and r.score is not None]
    if not pairs:
        return ["no marked answer was scored, so there is no kappa to measure"]
    kappa = agreement([m for m, _ in pairs], [s for _, s in pairs]).qwk
    if kappa is None:
        return [f"quadratic weighted kappa is undefined over {len(pairs)} marked answers (one mark and score for all)"]
    if kappa >= value:
        return []
    return [f"quadratic weighted kappa {kappa:.3f} over {len(pairs)} marked answers is below {fmt_number(value)}"]


def _count(results: Sequence[Result]) -> str:
    return "1 test case" if len(results) == 1 else f"{len(results)} test cases"


def _list(verdicts: tuple[str, ...]) -> str:
    return "[" + ", ".join(verdicts) + "]"


def _range(value: tuple[float, float]) -> str:
    low, high = value
    return fmt_number(low) if low == high else f"[{fmt_number(low)}, {fmt_number(high)}]"


_CHECKS: dict[str, Callable[[Any, Sequence[Result], Timing], list[str]]] = {
    "permitted_testcase_verdicts": _permitted_verdicts,
    "required_testcase_verdicts": _required_verdicts,
    "permitted_aggregate_verdict": _aggregate_verdict,
    "message": _message,
    "permitted_testcase_scores": _testcase_scores,
    "permitted_aggregate_score": _aggregate_score,
    "with_margin": _with_margin,
    "min_exact_agreement": _exact_agreement,
    "min_qwk": _min_qwk,
}
