"""Run a suite: score every rule on every answer, then check the registry."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from time import perf_counter
from typing import Any, Protocol

from ..reading import load
from .checks import Timing, check_expectation
from .registry import Entry
from .report import ExpectationReport, Report, RuleReport
from .suite import Case, Settings, Suite, load_suite
from .verdicts import Result, make_result


class Scorer(Protocol):
    """What a compiled rule offers: ``score(answer)`` → an outcome with ``score`` and ``error``."""

    def score(self, answer: list[str]) -> Any: ...


Compiler = Callable[[dict[str, Any]], Scorer]


def run(path: str | Path, *, compiler: Compiler | None = None) -> Report:
    """Run the suite at ``path`` and return its :class:`Report`.

    Raises :class:`~coscore.expect.errors.SuiteError` when the suite is
    malformed.  ``compiler`` turns a rule's JSON object into something with a
    ``score`` method; it defaults to :func:`coscore.compile`.
    """
    suite = load_suite(path)
    compile_rule = compiler or _default_compiler()
    timing = Timing(suite.settings.time_limit, suite.settings.ac_margin, suite.settings.tle_margin)
    reports: dict[str, RuleReport] = {}
    for name, file in suite.rules:
        results, compile_error = _score_rule(file, suite.cases, suite.settings, compile_rule)
        checked = tuple(_check(entry, results, timing) for entry in suite.registry.for_rule(name))
        reports[name] = RuleReport(name, results, checked, compile_error)
    return Report(suite.root, suite.settings, reports, len(suite.cases), tuple(_warnings(suite)))


def _default_compiler() -> Compiler:
    import coscore

    return coscore.compile


def _score_rule(
    file: Path, cases: tuple[Case, ...], settings: Settings, compile_rule: Compiler
) -> tuple[tuple[Result, ...], str | None]:
    """Score one rule on every case, timing each answer on its own."""
    try:
        rule = compile_rule(load(file))
    except ValueError as exc:  # RuleError (the file unreadable, not JSON, or not a rule) is a ValueError
        error = f"rule does not compile: {exc}"
        first_line = error.splitlines()[0]
        return tuple(_result(case, 0.0, first_line, None, settings) for case in cases), error
    _warm_up(rule, cases)
    results = []
    for case in cases:
        answer = list(case.answer)
        start = perf_counter()
        try:
            outcome = rule.score(answer)
            error, score = outcome.error, outcome.score
        except Exception as exc:  # noqa: BLE001 - a crash is this answer's RTE, never the run's
            error, score = f"{type(exc).__name__}: {exc}", None
        elapsed = perf_counter() - start
        results.append(_result(case, elapsed, error, score, settings))
    return tuple(results), None


def _warm_up(rule: Scorer, cases: tuple[Case, ...]) -> None:
    """Score one answer untimed, so one-off start-up costs are not charged to a test case."""
    if cases:
        try:
            rule.score(list(cases[0].answer))
        except Exception:  # noqa: BLE001 - the timed run reports it
            pass


def _result(case: Case, time: float, error: str | None, score: float | None, settings: Settings) -> Result:
    return make_result(
        case.name,
        time=time,
        error=error,
        score=None if score is None else float(score),
        mark=case.mark,
        time_limit=settings.time_limit,
        tolerance=settings.tolerance,
    )


def _check(entry: Entry, results: tuple[Result, ...], timing: Timing) -> ExpectationReport:
    selected = [r for r in results if entry.scope is None or entry.scope.matches(r.name)]
    return ExpectationReport(entry, len(selected), tuple(check_expectation(entry.expectation.checks, selected, timing)))


def _warnings(suite: Suite) -> list[str]:
    """Patterns that match nothing — usually a typo."""
    warnings = []
    names = [name for name, _ in suite.rules]
    for name in names:
        if not suite.registry.for_rule(name):
            warnings.append(f"no expectation applies to rule {name}")
    seen: set[str] = set()
    for entry in suite.registry.entries:
        text = entry.rules.text
        if text not in seen and not any(entry.rules.matches(n) for n in names):
            warnings.append(f"expectations.yaml: rule pattern {text!r} matches no rule")
        seen.add(text)
        if entry.scope is not None and not any(entry.scope.matches(c.name) for c in suite.cases):
            warnings.append(f"expectations.yaml: test case pattern {entry.scope.text!r} matches no test case")
    return warnings
