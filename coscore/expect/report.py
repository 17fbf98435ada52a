"""What a suite run found: per rule, per expectation, per check."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .checks import Checked, CheckResult
from .registry import Entry
from .suite import Settings
from .verdicts import VERDICTS, Result, aggregate_verdict


@dataclass(frozen=True)
class ExpectationReport(Checked):
    """One registry entry checked on one rule's results."""

    entry: Entry
    cases: int
    checks: tuple[CheckResult, ...]

    @property
    def failures(self) -> list[str]:  # type: ignore[override]  # Checked names the attribute; this works it out
        """``<why> (<key>; <expectation>)`` for every reason a check fails."""
        return [f"{why} ({check.key}; {self.entry.label})" for check in self.checks for why in check.failures]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "rules": self.entry.rules.text,
            "testcases": None if self.entry.scope is None else self.entry.scope.text,
            "expectation": self.entry.expectation.label,
            "line": self.entry.expectation.line,
            "matched": self.cases,
            "ok": self.ok,
            "checks": {check.key: list(check.failures) for check in self.checks},
        }


@dataclass(frozen=True)
class RuleReport(Checked):
    """Everything about one rule: its results and every expectation that applies to it."""

    name: str
    results: tuple[Result, ...]
    expectations: tuple[ExpectationReport, ...]
    compile_error: str | None = None

    @property
    def failures(self) -> list[str]:  # type: ignore[override]  # Checked names the attribute; this works it out
        """Every reason an expectation fails, over all expectations."""
        return [line for expectation in self.expectations for line in expectation.failures]

    def verdict_counts(self) -> dict[str, int]:
        """How many results got each verdict."""
        counts = Counter(result.verdict for result in self.results)
        return {verdict: counts[verdict] for verdict in VERDICTS}

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "ok": self.ok,
            "failures": self.failures,
            "compile_error": self.compile_error,
            "aggregate_verdict": aggregate_verdict(self.results),
            "verdicts": self.verdict_counts(),
            "expectations": [expectation.to_dict() for expectation in self.expectations],
            "results": {
                r.name: {"verdict": r.verdict, "score": r.score, "mark": r.mark, "time": r.time, "message": r.message}
                for r in self.results
            },
        }


@dataclass(frozen=True)
class Report:
    """The result of :func:`coscore.expect.run`."""

    suite: Path
    settings: Settings
    rules: dict[str, RuleReport]
    cases: int
    warnings: tuple[str, ...] = field(default=())

    @property
    def ok(self) -> bool:
        """True iff every expectation of every rule holds."""
        return all(rule.ok for rule in self.rules.values())

    def to_dict(self) -> dict[str, Any]:
        """``{"ok": bool, "rules": {name: {"ok": bool, "failures": [...], ...}}, ...}``."""
        return {
            "ok": self.ok,
            "rules": {name: rule.to_dict() for name, rule in self.rules.items()},
            "suite": str(self.suite),
            "settings": vars(self.settings),
            "testcases": self.cases,
            "warnings": list(self.warnings),
        }
