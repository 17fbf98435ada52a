"""Test case results and their verdicts (Expectations 0.7.2)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

Verdict = Literal["AC", "WA", "RTE", "TLE"]
VERDICTS: tuple[Verdict, ...] = ("AC", "WA", "RTE", "TLE")


@dataclass(frozen=True)
class Result:
    """One rule scored on one marked answer.

    Attributes:
        name: the test case name, e.g. ``secret/batch1/0017``.
        time: seconds spent scoring this answer alone.
        error: the scoring error, or ``None`` when it terminated successfully.
        score: the rule's score, or ``None`` after an error.
        mark: the teacher's mark, or ``None`` for an unmarked answer.
        verdict: AC, WA, RTE or TLE (see :func:`verdict_of`).
        message: the error text, or ``expected <mark>, got <score>`` on a mismatch, or "".
    """

    name: str
    time: float
    error: str | None
    score: float | None
    mark: float | None
    verdict: Verdict
    message: str

    def describe(self, time_limit: float | None = None) -> str:
        """``secret/mixed/m02: WA, expected 2, got 0`` — why this result is what it is."""
        parts: list[str] = [self.verdict]
        if self.verdict == "TLE":
            limit = "" if time_limit is None else f" (time limit {fmt_number(time_limit)} s)"
            parts.append(f"took {self.time:.3g} s{limit}")
        if self.message:
            parts.append(self.message)
        return f"{self.name}: {', '.join(parts)}"


def make_result(
    name: str,
    *,
    time: float,
    error: str | None,
    score: float | None,
    mark: float | None,
    time_limit: float,
    tolerance: float = 0.0,
) -> Result:
    """Build a :class:`Result`, computing its verdict and message."""
    validated = error is None and (mark is None or (score is not None and abs(score - mark) <= tolerance))
    if error is not None:
        message = error
    elif not validated:
        message = f"expected {fmt_number(mark)}, got {fmt_number(score)}"
    else:
        message = ""
    verdict = verdict_of(time=time, time_limit=time_limit, error=error is not None, validated=validated)
    return Result(name, time, error, score if error is None else None, mark, verdict, message)


def verdict_of(*, time: float, time_limit: float, error: bool, validated: bool) -> Verdict:
    """TLE if ``time >= time_limit``; else RTE on error; else WA if not validated; else AC."""
    if time >= time_limit:
        return "TLE"
    if error:
        return "RTE"
    return "AC" if validated else "WA"


def first_failure(results: Iterable[Result]) -> Result | None:
    """The first non-AC result in code-point order of test case names, or ``None``."""
    for result in sorted(results, key=lambda r: r.name):
        if result.verdict != "AC":
            return result
    return None


def aggregate_verdict(results: Iterable[Result]) -> Verdict:
    """The first WA, TLE or RTE by test case name (``secret/10`` < ``secret/2``); AC if none."""
    failure = first_failure(results)
    return "AC" if failure is None else failure.verdict


def fmt_number(value: float | None) -> str:
    """``2.0`` → ``2``, ``2.5`` → ``2.5``, ``None`` → ``nothing``."""
    if value is None:
        return "nothing"
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return str(int(value))
    return repr(value) if isinstance(value, float) else str(value)
