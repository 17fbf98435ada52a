"""Tune and suggest for the workbench, as jobs of the server's worker processes.

- ``"workbench.tune"``, ``(rule text, payload, options)`` → :func:`tune_job`: what
  :func:`coscore.tune.tune` finds on the dataset's marked answers — the figure before and
  after (held out, with 95 % intervals), the changes, the rule they give as JSON text laid
  out like the editor's, and the line diff from the editor's text to it;
- ``"workbench.suggest"``, ``(rule text, payload, options)`` → :func:`suggest_job`: what
  :func:`coscore.suggest.suggest` finds — the phrases no atom covers and the answers
  scored furthest from their marks — and the rule's atoms a phrase can be added to.

``payload`` is a :class:`.scorings.Payload` (its ``load()`` reads the answers in the
worker); ``options["seconds"]`` (set by the server, never by the page) is the search's
time budget (:class:`coscore.search_budget.SearchBudget`), a little shorter than the
job's (the server stops the worker past that: :data:`.assists.ASSIST_TIME`), so that a
search past it answers 422 with what it found so far (``budget``, ``limit``,
``best_so_far``); memory is the pool's budget. A reason, an error or a refusal is the
library's English text; the page renders it in its language through :mod:`coscore.catalog`.
"""
from __future__ import annotations

import difflib
import json
from collections.abc import Callable
from typing import Any

import numpy as np

from ..catalog import message, said
from ..diagnostics import RuleError
from ..http.responses import ApiError, finite
from ..http.rules import Compiler
from .where import diagnostics_json

__all__ = [
    "MAX_FOLDS",
    "METRICS",
    "apply_changes",
    "assist_jobs",
    "line_diff",
    "rows_of",
    "suggest_job",
    "tune_job",
]

#: The figures tune may raise (those of :data:`coscore.tune.METRICS`), offered by the page.
METRICS = ("qwk", "exact_agreement", "adjacent_agreement", "kappa", "pearson_r", "rmse", "smd")
#: The most folds the page may ask for.
MAX_FOLDS = 10
#: The most lines of diff sent (a longer diff is cut; the rule text itself is whole).
MAX_DIFF_LINES = 400
#: Unchanged lines shown around each change of the diff.
CONTEXT = 3


def rows_of(blanks: Any) -> list[list[str]]:
    """Each row's blanks as a list of strings, from an Arrow table of blank columns (or of
    one column of lists of blanks); a missing blank is ``""``."""
    import pyarrow as pa

    kind = blanks.schema.field(0).type if blanks.num_columns == 1 else None
    if kind is not None and (pa.types.is_list(kind) or pa.types.is_large_list(kind)):
        return [[b if b is not None else "" for b in (row or [])] for row in blanks.column(0).to_pylist()]
    columns = [blanks.column(i).to_pylist() for i in range(blanks.num_columns)]
    return [[b if b is not None else "" for b in row] for row in zip(*columns)] if columns else []


def line_diff(before: str, after: str, context: int = CONTEXT) -> list[dict[str, Any]]:
    """The lines of ``after`` against ``before``, in order: ``{"op": " " | "-" | "+", "line"}``,
    with ``context`` unchanged lines around each change; a longer unchanged stretch is one
    ``{"op": "…", "skipped": N}``. At most :data:`MAX_DIFF_LINES` entries (then one
    ``{"op": "…", "skipped": N}`` for the rest)."""
    old, new = before.splitlines(), after.splitlines()
    out: list[dict[str, Any]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            same = old[i1:i2]
            head = context if out else 0                      # the lines after the last change
            tail = context if j2 < len(new) or i2 < len(old) else 0   # the lines before the next change
            if len(same) > head + tail + 1:
                out += [{"op": " ", "line": line} for line in same[:head]]
                out.append({"op": "…", "skipped": len(same) - head - tail})
                out += [{"op": " ", "line": line} for line in same[len(same) - tail:]]
            else:
                out += [{"op": " ", "line": line} for line in same]
            continue
        out += [{"op": "-", "line": line} for line in old[i1:i2]]
        out += [{"op": "+", "line": line} for line in new[j1:j2]]
    if len(out) > MAX_DIFF_LINES:
        out = [*out[:MAX_DIFF_LINES], {"op": "…", "skipped": len(out) - MAX_DIFF_LINES}]
    return out


def _indent(text: str) -> int:
    for line in text.splitlines()[1:2]:
        spaces = len(line) - len(line.lstrip(" "))
        if spaces:
            return spaces
    return 2


def apply_changes(text: str, changes: list[dict[str, Any]]) -> str:
    """The rule ``text`` with tune's ``changes`` made (``{"path", "before", "after"}``:
    ``atoms.ID.desc`` and ``combos.ID.score`` set, ``combos.ID`` removed when ``after`` is
    null), laid out as ``text`` is (its indentation, its final newline)."""
    source = json.loads(text)
    for change in changes:
        section, rest = change["path"].split(".", 1)
        if change["after"] is None:
            source[section].pop(rest, None)
            continue
        key, field = rest.rsplit(".", 1)
        source[section][key][field] = change["after"]
    end = "\n" if text.endswith("\n") else ""
    return json.dumps(source, ensure_ascii=False, indent=_indent(text)) + end


def _marked(compiler: Compiler, payload: tuple[Any, Any, dict[str, Any]],
            what: str) -> tuple[Any, list[list[str]], np.ndarray]:
    text, data, _ = payload
    try:
        rule = compiler.get(text)
    except RuleError as exc:
        raise ApiError(422, message("server.rule_not_compile"), diagnostics=diagnostics_json(text, exc.diagnostics)) \
            from None
    answers = data.load()
    if answers.marks is None or not np.any(~np.isnan(answers.marks)):
        raise ApiError(422, message(f"bench.{what}_needs_marks"))
    return rule, rows_of(answers.blanks), answers.marks


def _budget(options: dict[str, Any]) -> Any:
    """The search's budget: the time the server gives it; memory is the pool's to watch."""
    from ..search_budget import SearchBudget

    seconds = options.get("seconds")
    return SearchBudget(seconds=float(seconds) if seconds else None, memory=None)


def _stopped(stop: Any) -> ApiError:
    """A search stopped by its budget, as the page's error: the line, and the best so far."""
    return ApiError(422, str(stop), budget=stop.budget, limit=stop.limit, best_so_far=finite(stop.partial))


def tune_job(compiler: Compiler, payload: tuple[Any, Any, dict[str, Any]]) -> dict[str, Any]:
    """:func:`coscore.tune.tune` of the editor's rule on the dataset (see the module)."""
    from ..search_budget import SearchStopped
    from ..tune import tune

    text, _, options = payload
    rule, answers, marks = _marked(compiler, payload, "tune")
    source = text if isinstance(text, str) else json.dumps(text, ensure_ascii=False, indent=2)
    try:
        found = tune(source, answers, [None if np.isnan(m) else float(m) for m in marks],
                     metric=options.get("metric", "qwk"), folds=options.get("folds", 5),
                     drop=bool(options.get("drop", False)), limits=rule.limits, budget=_budget(options))
    except SearchStopped as stop:
        raise _stopped(stop) from None
    except ValueError as exc:
        raise ApiError(422, str(exc)) from None
    out = found.to_dict()
    proposed = out["proposed"]
    tuned = found.text if found.accepted else (apply_changes(source, proposed) if proposed else None)
    out.update(text=tuned, diff=line_diff(source, tuned) if tuned is not None else [],
               reason_said=said(found.reason) if found.reason else None)
    out.pop("fold_changes", None)
    tuned_json: dict[str, Any] = finite(out)
    return tuned_json


def _atoms(rule: Any) -> list[dict[str, Any]]:
    """The rule's atoms a phrase can be added to: ``{"id", "type", "desc"}``."""
    atoms = (rule.spec.source or {}).get("atoms", {})
    return [{"id": str(k), "type": a.get("type"), "desc": a.get("desc")} for k, a in atoms.items()
            if isinstance(a, dict) and isinstance(a.get("desc"), str)]


def suggest_job(compiler: Compiler, payload: tuple[Any, Any, dict[str, Any]]) -> dict[str, Any]:
    """:func:`coscore.suggest.suggest` of the editor's rule on the dataset (see the module)."""
    from ..search_budget import SearchStopped
    from ..suggest import suggest

    rule, answers, marks = _marked(compiler, payload, "suggest")
    try:
        found = suggest(rule, answers, [None if np.isnan(m) else float(m) for m in marks],
                        budget=_budget(payload[2]))
    except SearchStopped as stop:
        raise _stopped(stop) from None
    except ValueError as exc:
        raise ApiError(422, str(exc)) from None
    suggested: dict[str, Any] = finite({**found.to_dict(), "atoms": _atoms(rule)})
    return suggested


def assist_jobs(compiler: Compiler) -> dict[str, Callable[[Any], Any]]:
    """The jobs by kind, for a worker's job table (beside :func:`.jobs.workbench_jobs`)."""
    return {"workbench.tune": lambda payload: tune_job(compiler, payload),
            "workbench.suggest": lambda payload: suggest_job(compiler, payload)}
