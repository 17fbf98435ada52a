"""The readable table printed by ``coscore expect``."""

from __future__ import annotations

from .registry import Entry
from .report import Report
from .verdicts import fmt_number

#: Reasons shown per failing check before "… and N more".
MAX_REASONS = 8


def render(report: Report) -> str:
    """Rule × expectation → holds / FAILS, with the reasons under each failure."""
    s = report.settings
    lines = [
        f"suite {report.suite}: {s.type}, time limit {fmt_number(s.time_limit)} s "
        f"(ac_margin {fmt_number(s.ac_margin)}, tle_margin {fmt_number(s.tle_margin)}), "
        f"tolerance {fmt_number(s.tolerance)}; {_plural(len(report.rules), 'rule')}, "
        f"{_plural(report.cases, 'test case')}",
        "",
    ]
    width = max([len("rule")] + [len(name) for name in report.rules])
    lines.append(f"result  {'rule':<{width}}  expectation")
    for name, rule in report.rules.items():
        if not rule.expectations:
            lines.append(f"-       {name:<{width}}  (none applies)")
        for expectation in rule.expectations:
            verdict = "holds" if expectation.ok else "FAILS"
            lines.append(f"{verdict:<6}  {name:<{width}}  {_label(expectation.entry, name)}")
            for check in expectation.checks:
                lines.extend(_reasons(check.key, check.failures))
    lines.append("")
    for warning in report.warnings:
        lines.append(f"warning: {warning}")
    lines.append(_summary(report))
    return "\n".join(lines)


def _label(entry: Entry, rule: str) -> str:
    """The entry's label, without its rule pattern when that is just the rule's name."""
    if entry.rules.text != rule:
        return entry.label
    scope = "" if entry.scope is None else entry.scope.text
    return f"{scope}: {entry.expectation.label}" if scope else entry.expectation.label


def _reasons(key: str, failures: tuple[str, ...]) -> list[str]:
    shown = [f"          {key}: {why}" for why in failures[:MAX_REASONS]]
    if len(failures) > MAX_REASONS:
        shown.append(f"          {key}: … and {len(failures) - MAX_REASONS} more (see --json)")
    return shown


def _summary(report: Report) -> str:
    failing = [name for name, rule in report.rules.items() if not rule.ok]
    holding = len(report.rules) - len(failing)
    text = f"{_plural(len(report.rules), 'rule')}: {holding} {_verb(holding, 'hold')} every expectation"
    if failing:
        text += f", {len(failing)} {_verb(len(failing), 'fail')} ({', '.join(failing)})"
    return ("OK: " if report.ok else "FAILED: ") + text


def _verb(count: int, verb: str) -> str:
    return f"{verb}s" if count == 1 else verb


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"

