"""What the workbench asks of its server's worker processes: check a rule, explain an
answer, score a dataset; and, in ``coscore workbench`` only, look at a data file, import it
and score an exam's items (:mod:`.datasets`, :mod:`.exams`). Each job compiles its rule through the worker's
:class:`coscore.http.rules.Compiler` (kept by content, so the rule an author is editing is
compiled once per worker, not once per keystroke) and runs within the pool's budgets.

- ``"workbench.check"``, ``(rule text, blanks)`` → what ``coscore check`` says:
  ``{"ok", "errors", "warnings", "diagnostics", "score_range", "combos", …}``, each
  diagnostic placed in the text (:mod:`.where`);
- ``"workbench.explain"``, ``(rule text, blanks of one answer)`` → :func:`.evidence.explanation_json`;
- ``"workbench.dataset"``, ``(rule text, payload)`` → :class:`.analysis.Scored` (the
  payload, a :class:`.scorings.Payload`, loads the answers in the worker).

A rule that does not compile is a 422 ``{"error", "diagnostics"}`` for the last two.
"""
from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import Any

from ..catalog import said
from ..diagnostics import RuleError
from ..http.responses import ApiError, finite
from ..http.rules import Compiler
from ..language import check_rule
from .analysis import Scored, analyse, warm
from .evidence import explanation_json
from .scorings import Payload
from .where import diagnostics_json  # placed diagnostics: where.py, which assist_jobs shares

__all__ = ["workbench_jobs", "check", "explain_answer", "score", "diagnostics_json"]


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
                           "warnings": len(found) - errors, "diagnostics": diagnostics_json(text, found)}
    if report is not None:
        out.update(report.to_dict(), range_text=report.describe_range())
        out["combo_ids"] = list(rule.combo_ids)
        need = rule.blank_need  # the blanks it reads, for the page to say when a dataset's columns do not fit
        out["blank_need"] = {"count": need.count, "any_number": need.any_number, "said": said(need.describe())}
    else:
        out.update(blanks_needed=None, reads_all_blanks=None, always_fails=True, score_range=None, combos=[],
                   range_text=None, combo_ids=[], blank_need=None)
    return finite(out)


def _rule(compiler: Compiler, text: Any) -> Any:
    """The compiled rule; 422 with its placed diagnostics when it does not compile."""
    try:
        return compiler.get(text)
    except RuleError as exc:
        raise ApiError(422, "the rule does not compile", diagnostics=diagnostics_json(text, exc.diagnostics)) from None


def explain_answer(compiler: Compiler, payload: tuple[Any, list[str]]) -> dict[str, Any]:
    """One answer explained (see :func:`.evidence.explanation_json`)."""
    text, blanks = payload
    return explanation_json(_rule(compiler, text), blanks)


def score(compiler: Compiler, payload: tuple[Any, Payload]) -> Scored:
    """A dataset scored (see :func:`.analysis.analyse`); the payload's own error (422) when
    its answers cannot be read."""
    text, data = payload
    rule = _rule(compiler, text)
    began = time.perf_counter()
    return analyse(rule, data.load(), began)


def workbench_jobs(compiler: Compiler) -> dict[str, Callable[[Any], Any]]:
    """The workbench's jobs by kind, for a worker's job table (:func:`.work.handler`,
    :mod:`coscore.webapp.work`);
    called once in each worker as it starts, which loads what scoring a dataset needs."""
    from .assist_jobs import assist_jobs

    warm()
    return {"workbench.check": functools.partial(check, compiler),
            "workbench.explain": functools.partial(explain_answer, compiler),
            "workbench.dataset": functools.partial(score, compiler),
            **assist_jobs(compiler)}  # tune and suggest (:mod:`.assist_jobs`)
