"""What the workbench asks of the app's worker processes: check a rule, explain an
answer, score a dataset. Each job compiles its rule through the worker's
:class:`coscore.http.rules.Compiler` (kept by content, so the rule an author is editing is
compiled once per worker, not once per keystroke) and runs within the pool's budgets.

- ``"workbench.check"``, ``(rule text, blanks)`` → what ``coscore check`` says:
  ``{"ok", "errors", "warnings", "diagnostics", "score_range", "combos", …}``, each
  diagnostic placed in the text (:mod:`.where`);
- ``"workbench.explain"``, ``(rule text, blanks of one answer)`` → :func:`.evidence.explanation_json`;
- ``"workbench.dataset"``, ``(rule text, dataset text, length, labelled)`` →
  :class:`.analysis.Scored`.

A rule that does not compile is a 422 ``{"error", "diagnostics"}`` for the last two.
"""
from __future__ import annotations

import functools
from typing import Any, Callable

from ...diagnostics import Diagnostic, RuleError, shorten
from ...expr.types import check_rule
from ...http.responses import ApiError, finite
from ...http.rules import Compiler
from ..answers import TaskFailed
from .analysis import Scored, score_dataset, warm
from .evidence import explanation_json
from .where import json_error_place, locate

__all__ = ["workbench_jobs", "check", "explain_answer", "score"]


def _diagnostics(text: Any, found: list[Diagnostic]) -> list[dict[str, Any]]:
    """Diagnostics as JSON, each with the expression it is in (``source``) and its place
    in the rule's text (``at``, ``null`` when it has none)."""
    places = locate(text, found) if isinstance(text, str) else [None] * len(found)
    if isinstance(text, str) and any(d.path == "rule" for d in found):
        error = json_error_place(text)
        places = [error if d.path == "rule" and error is not None else p for d, p in zip(found, places)]
    return [{**d.to_dict(), "message": shorten(d.message), "source": None if d.source is None else shorten(d.source),
             "at": None if place is None else place.to_dict()} for d, place in zip(found, places)]


def check(compiler: Compiler, payload: tuple[Any, Any]) -> dict[str, Any]:
    """``coscore check`` of a rule (see the module's description); ``blanks`` is the
    number of blanks the data has (``[fewest, most]``; ``None``: unknown)."""
    text, blanks = payload
    report = None
    try:
        rule = compiler.get(text)
    except RuleError as exc:
        found = list(exc.diagnostics)
    else:
        report = check_rule(rule, tuple(blanks) if isinstance(blanks, list) else blanks)
        found = list(rule.warnings) + report.diagnostics
    errors = sum(d.severity == "error" for d in found)
    out: dict[str, Any] = {"ok": errors == 0, "compiles": report is not None, "errors": errors,
                           "warnings": len(found) - errors, "diagnostics": _diagnostics(text, found)}
    if report is not None:
        out.update(report.to_dict(), range_text=report.describe_range())
        out["combo_ids"] = list(rule.combo_ids)
    else:
        out.update(blanks_needed=None, reads_all_blanks=None, always_fails=True, score_range=None, combos=[],
                   range_text=None, combo_ids=[])
    return finite(out)


def _rule(compiler: Compiler, text: Any) -> Any:
    """The compiled rule; 422 with its placed diagnostics when it does not compile."""
    try:
        return compiler.get(text)
    except RuleError as exc:
        raise ApiError(422, "the rule does not compile", diagnostics=_diagnostics(text, exc.diagnostics)) from None


def explain_answer(compiler: Compiler, payload: tuple[Any, list[str]]) -> dict[str, Any]:
    """One answer explained (see :func:`.evidence.explanation_json`)."""
    text, blanks = payload
    return explanation_json(_rule(compiler, text), blanks)


def score(compiler: Compiler, payload: tuple[Any, str, Any, bool]) -> Scored:
    """A dataset scored (see :func:`.analysis.score_dataset`); 422 when its length does not
    fit its lines."""
    text, data, count, labelled = payload
    rule = _rule(compiler, text)
    try:
        return score_dataset(rule, data, count, labelled)
    except TaskFailed as exc:
        raise ApiError(422, str(exc)) from None


def workbench_jobs(compiler: Compiler) -> dict[str, Callable[[Any], Any]]:
    """The workbench's jobs by kind, for a worker's job table (see :mod:`coscore.webapp.work`);
    called once in each worker as it starts, which loads what scoring a dataset needs."""
    warm()
    return {"workbench.check": functools.partial(check, compiler),
            "workbench.explain": functools.partial(explain_answer, compiler),
            "workbench.dataset": functools.partial(score, compiler)}
