"""``tune``: search a rule's thresholds and scores for better agreement with the marks,
and keep the change only if it holds up on answers the search never saw.

1. The search (:func:`.search.search`) runs on every marked row and proposes a rule.
2. If it proposes a change, k-fold cross-validation (:func:`.judge.cross_validate`)
   runs the same search on each fold's complement and scores the fold with what it
   found; the held-out scores are compared with the original rule's on the same rows,
   with a paired bootstrap interval (:func:`.judge.paired`).
3. The proposed rule is accepted only if that interval lies above zero; otherwise the
   rule is left as it was, and :attr:`Tuning.reason` says why.

All of it runs within a budget (:class:`coscore.search_budget.SearchBudget`: 120 s and
1 GiB unless told otherwise); past it, :class:`~coscore.search_budget.SearchStopped` says
where the search was and the best it had found (never made: it was not checked held
out).

Every rule the search moves to checks as cleanly as the original (no diagnostic of
``coscore check`` that the original does not have, with the data's blank counts).
"""
from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..marks import marks_array
from ..report.bootstrap import MAX_RESAMPLES, RESAMPLES, SEED
from ..report.compare import Estimate
from ..search_budget import DEFAULT_SEARCH_BUDGET, Meter, SearchBudget, SearchStopped
from .judge import cross_validate, paired
from .outcomes import Outcomes, Work
from .search import METRICS, NAMES, Found, Objective, search
from .space import Change, Space, State

if TYPE_CHECKING:
    from ..rule import Rule
    from ..spec import RuleSource

#: The most folds of the cross-validation.
MAX_FOLDS = 100
#: Figures whose best value is reached when the scores equal the marks.
PERFECT: dict[str, float] = {"qwk": 1.0, "kappa": 1.0, "exact_agreement": 1.0, "adjacent_agreement": 1.0,
                             "pearson_r": 1.0, "r2": 1.0, "rmse": 0.0, "smd": 0.0}


@dataclass
class Tuning:
    """The outcome of :func:`tune`.

    ``text`` is the rule to use, as JSON text: the tuned rule when ``accepted``, else the
    original as it was given. ``changes`` are the changes made (empty unless accepted),
    ``proposed`` those the search on every row found, ``reason`` why nothing changed
    (``None`` when something did). ``before`` is the original rule's figure, ``after``
    the held-out figure of the search (cross-validated), ``improvement`` their paired
    difference oriented so that larger is better (for ``rmse``: before − after; for
    ``smd``: |before| − |after|), each with a 95 % bootstrap interval; ``after`` and
    ``improvement`` are ``None`` when the search proposed nothing. ``in_sample`` is the
    figure of the rule to use on every row (optimistic: it was fitted there).
    """

    metric: str
    folds: int
    seed: int
    resamples: int
    n: int
    n_distinct: int
    searched: dict[str, Any]
    before: Estimate
    after: Estimate | None
    improvement: Estimate | None
    accepted: bool
    reason: str | None
    changes: list[Change]
    proposed: list[Change]
    fold_changes: list[list[Change]]
    in_sample: float | None
    text: str
    check: dict[str, int]
    work: Work = field(default_factory=Work)
    seconds: float = 0.0

    @property
    def rule(self) -> dict[str, Any]:
        """The rule to use, as JSON data."""
        return json.loads(self.text)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready data (the shape is documented in docs/tune.md)."""
        from ..report.sections import json_ready

        return json_ready({
            "metric": self.metric, "folds": self.folds, "seed": self.seed, "resamples": self.resamples,
            "n": self.n, "n_distinct": self.n_distinct, "searched": self.searched,
            "before": self.before.to_dict(), "after": self.after.to_dict() if self.after else None,
            "improvement": self.improvement.to_dict() if self.improvement else None,
            "accepted": self.accepted, "reason": self.reason,
            "changes": [c.to_dict() for c in self.changes], "proposed": [c.to_dict() for c in self.proposed],
            "fold_changes": [[c.to_dict() for c in fold] for fold in self.fold_changes],
            "in_sample": self.in_sample, "check": self.check, "work": self.work.to_dict(),
            "seconds": round(self.seconds, 3),
        })


def tune(rule: Rule | RuleSource, answers: Sequence[Any], marks: Sequence[Any] | np.ndarray, *, metric: str = "qwk",
         folds: int = 5, seed: int = SEED, resamples: int = RESAMPLES, drop: bool = False,
         limits: Any = None, budget: SearchBudget | None = None) -> Tuning:
    """Tune ``rule`` (a dict, JSON text, an ``os.PathLike`` to a rule file, or a compiled
    :class:`coscore.Rule`) on ``answers`` (each a list of blanks or a string) and their
    ``marks`` (numbers; ``None`` or NaN for an unmarked answer, left out).

    ``metric`` is the figure raised (:data:`.search.METRICS`; QWK by default), ``folds``
    and ``seed`` the cross-validation, ``resamples`` the bootstrap (seeded with ``seed``),
    ``drop`` whether combos may be left out, ``limits`` the rule's budgets
    (:class:`coscore.Limits`), ``budget`` the search's (time, memory, cancel:
    :class:`coscore.search_budget.SearchBudget`; 120 s and 1 GiB by default). Raises
    :class:`coscore.RuleError` for a rule that does not compile, ``ValueError`` for
    unusable arguments (no marked answer, a mark that is not a finite number, too few
    distinct answers for the folds, an unknown metric, folds or resamples out of range)
    and :class:`~coscore.search_budget.SearchStopped` past the budget, with the best
    found so far.
    """
    started = time.perf_counter()
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r} (metrics: {', '.join(METRICS)})")
    _whole("folds", folds, 2, MAX_FOLDS)
    _whole("resamples", resamples, 1, MAX_RESAMPLES)
    _whole("seed", seed, 0, None)
    meter = (DEFAULT_SEARCH_BUDGET if budget is None else budget).start()
    compiled, source, text = _compiled(rule, limits)
    keys, index, h = _marked(answers, marks)
    progress: dict[str, Found] = {}
    try:
        return _tune(compiled, source, text, keys, index, h, metric, folds, seed, resamples, drop, meter,
                     progress, started)
    except SearchStopped as stop:
        raise _stopped(stop, stop.stage or meter.stage, progress.get("all"), Space(source, compiled, drop=drop), metric,
                       len(h)) from None


def _tune(compiled: Rule, source: dict[str, Any], text: str, keys: list[tuple], index: np.ndarray, h: np.ndarray,
          metric: str, folds: int, seed: int, resamples: int, drop: bool, meter: Meter,
          progress: dict[str, Found], started: float) -> Tuning:
    """:func:`tune` once its arguments are checked; ``progress["all"]`` is where the search
    on every row stands."""
    import coscore

    from ..language import check_rule

    if len(keys) < folds:
        raise ValueError(f"{len(keys)} distinct marked answer{'s' * (len(keys) != 1)}: too few for {folds} folds")
    distinct = [list(k) for k in keys]
    lengths = [len(a) for a in distinct]
    blanks = (min(lengths), max(lengths))
    space = Space(source, compiled, drop=drop)
    meter.stage = "the first scoring of every answer"
    outcomes = Outcomes(space, distinct, compiled.limits, meter)
    space.idle = set(space.atoms) - outcomes.called(space.original)
    known = _diagnostics(compiled, check_rule(compiled, blanks))
    checked: dict[State, bool] = {}

    def clean(state: State) -> bool:
        if state not in checked:
            try:
                tuned = coscore.compile(space.rule(state), limits=compiled.limits)
                checked[state] = _diagnostics(tuned, check_rule(tuned, blanks)) <= known
            except coscore.RuleError:
                checked[state] = False
        return checked[state]

    everything = np.arange(len(distinct))
    original = outcomes.exact(space.original, everything)[index]
    meter.stage = "the search on all rows"
    full = search(space, outcomes, Objective(h, index, metric), clean,
                  lambda found: progress.__setitem__("all", found))
    proposed = space.changes(full.state)
    searched = {"thresholds": [a for a in space.atoms if a not in space.idle], "scores": list(space.combos),
                "drop": bool(drop and len(space.combos) > 1)}
    fold_changes: list[list[Change]] = []
    if not proposed:
        meter.stage = "the bootstrap"
        before = paired(h, original, original, metric, resamples, seed, meter.check)[0]
        after = improvement = None
        reason: str | None = _nothing_found(metric, before.value, len(h), searched)
    else:
        held_out, found = cross_validate(space, outcomes, h, index, metric, folds, seed, clean)
        fold_changes = [space.changes(f.state) for f in found]
        meter.stage = "the bootstrap of the held-out figures"
        before, after, improvement, _ = paired(h, original, held_out, metric, resamples, seed, meter.check)
        failing = int((np.isnan(held_out) & ~np.isnan(original)).sum())
        reason = _not_confident(metric, improvement) if not failing else (
            f"the rules the folds' searches found fail {failing} held-out answer{'s' * (failing != 1)} "
            "the original scores, so the change found on all rows is not made")
    accepted = reason is None
    state = full.state if accepted else space.original
    written = space.text(state, text) if accepted else text
    final = coscore.compile(written, limits=compiled.limits)
    report = check_rule(final, blanks)
    diagnostics = list(final.warnings) + report.diagnostics
    errors = sum(d.severity == "error" for d in diagnostics)
    in_sample = Objective(h, index, metric).figure(outcomes.exact(state, everything)) if accepted else before.value
    return Tuning(metric, folds, seed, resamples, len(h), len(distinct), searched, before, after, improvement,
                  accepted, reason, proposed if accepted else [], proposed, fold_changes, in_sample, written,
                  {"errors": errors, "warnings": len(diagnostics) - errors}, outcomes.work,
                  time.perf_counter() - started)


def _whole(name: str, value: Any, low: int, high: int | None) -> None:
    """Refuse ``value`` unless it is an int from ``low`` to ``high`` (``None``: unbounded)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low or (
            high is not None and value > high):
        bounds = f"{low:,} to {high:,}" if high is not None else f"at least {low:,}"
        raise ValueError(f"{name} must be a whole number, {bounds}; not {value!r}")


def _stopped(stop: SearchStopped, stage: str, found: Found | None, space: Space, metric: str,
             rows: int) -> SearchStopped:
    """``stop`` saying the best the search on every row had found (never made: it was not
    checked held out)."""
    name = NAMES[metric]
    if found is None:
        return stop.with_result("tune", stage, "", {"metric": metric, "n": rows})
    changes = space.changes(found.state)
    before, after = (_shown(f) for f in (found.original_figure, found.figure))
    partial = {"metric": metric, "n": rows, "before": found.original_figure, "in_sample": found.figure,
               "changes": [c.to_dict() for c in changes], "steps": found.steps}
    if not changes:
        best = f"no change raised {name} yet ({name} {before} on the {rows:,} marked rows); the rule is unchanged"
    else:
        listed = "; ".join(str(c) for c in changes[:5]) + (f"; … ({len(changes)} in all)" if len(changes) > 5
                                                                else "")
        best = (f"{name} {before} → {after} on the {rows:,} marked rows with {len(changes)} change"
                f"{'s' * (len(changes) != 1)} ({listed}), fitted there and not checked held out, so the rule is "
                "unchanged")
    return stop.with_result("tune", stage, best, partial)


def _shown(figure: float | None) -> str:
    return "undefined" if figure is None or math.isnan(figure) else f"{figure:.3f}"


def _compiled(rule: Rule | RuleSource, limits: Any) -> tuple[Rule, dict[str, Any], str]:
    """The compiled rule, its JSON data (key order kept) and its text as given."""
    import coscore

    if isinstance(rule, coscore.Rule):
        source = rule.spec.source
        return rule, source, json.dumps(source, ensure_ascii=False, indent=2) + "\n"
    if isinstance(rule, os.PathLike):
        with open(rule, "rb") as f:
            rule = f.read()
    if isinstance(rule, (bytes, bytearray)):
        rule = bytes(rule).decode("utf-8-sig")
    compiled = coscore.compile(rule, limits=limits)
    text = rule if isinstance(rule, str) else json.dumps(rule, ensure_ascii=False, indent=2) + "\n"
    return compiled, compiled.spec.source, text


def _marked(answers: Sequence[Any], marks: Sequence[Any] | np.ndarray) -> tuple[list[tuple], np.ndarray, np.ndarray]:
    """The distinct marked answers (as tuples of blanks), each marked row's answer (an
    index into them) and the rows' marks."""
    h_all = marks_array(marks)
    if len(h_all) != len(answers):
        raise ValueError(f"{len(answers)} answers but {len(h_all)} marks")
    keys: dict[tuple, int] = {}
    index, h = [], []
    for answer, mark in zip(answers, h_all):
        if math.isnan(mark):
            continue
        key = (answer,) if isinstance(answer, str) else tuple(answer)
        index.append(keys.setdefault(key, len(keys)))
        h.append(mark)
    if not h:
        raise ValueError("no marked answers: give marks for some of them")
    return list(keys), np.asarray(index, dtype=np.int64), np.asarray(h, dtype=np.float64)


def _diagnostics(rule: Rule, report: Any) -> set[tuple[str, str, str]]:
    """What ``coscore check`` says of a rule, as comparable tuples."""
    return {(d.path, d.message, d.severity) for d in [*rule.warnings, *report.diagnostics]}


def _nothing_found(metric: str, figure: float | None, rows: int, searched: dict[str, Any]) -> str:
    """Why the search on every row proposed nothing."""
    knobs = []
    if searched["thresholds"]:
        knobs.append("a threshold")
    if searched["scores"]:
        knobs.append("a score")
    if searched["drop"]:
        knobs.append("leaving out a combo")
    if not knobs:
        return "nothing to tune: the rule has no combos"
    if figure is not None and figure == PERFECT[metric]:
        return f"the rule already agrees perfectly with the marks ({NAMES[metric]} {figure:.3f}): nothing to gain"
    shown = "undefined" if figure is None else f"{figure:.3f}"
    what = ", ".join(knobs[:-1]) + (" or " if len(knobs) > 1 else "") + knobs[-1]
    return f"no change of {what} raises {NAMES[metric]} on the {rows:,} marked rows (it stays {shown})"


def _not_confident(metric: str, improvement: Estimate) -> str | None:
    """Why the change found is not made (``None``: it is)."""
    if improvement.value is not None and improvement.value > 0 and improvement.ci is not None \
            and improvement.ci[0] > 0:
        return None
    value = "undefined" if improvement.value is None else f"{improvement.value:+.3f}"
    ci = "no interval" if improvement.ci is None else f"[{improvement.ci[0]:+.3f}, {improvement.ci[1]:+.3f}]"
    return (f"held-out {NAMES[metric]} does not improve with confidence: {value} {ci} (the interval must lie above 0), "
            "so the change found on all rows is not made")
