"""The search: coordinate ascent over the knobs of a rule, judged by one agreement figure
on a set of marked rows.

:class:`Objective` computes the figure (``coscore report``'s own, from
:mod:`coscore.report.counts`) of the distinct answers' scores against the marks of the
rows it was given, from the counts of its distinct (mark, answer) pairs. :func:`search`
starts from the original rule and makes one move at a time (steepest ascent): it tries
every candidate value of every knob (thresholds, scores, leaving combos out) and moves
to the one that raises the figure most — of those whose rule ``coscore check`` finds no
new problem in, and that fail no more rows than the original — until no candidate
raises it (at most :data:`STEPS` moves). Ties go to the value nearest the original, then
to the knob first in the rule, so equal figures never change the rule. Everything is
deterministic.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..report.counts import PairColumns, Sample, centre, tally, value
from .outcomes import Outcomes
from .space import Knob, Space, State

#: The figures a search may raise: name -> how a larger value is better
#: (``1``: larger, ``-1``: smaller, ``0``: nearer zero).
METRICS: dict[str, int] = {
    "qwk": 1, "kappa": 1, "exact_agreement": 1, "adjacent_agreement": 1, "pearson_r": 1, "r2": 1, "rmse": -1,
    "smd": 0,
}
#: How each figure is named in text.
NAMES: dict[str, str] = {
    "qwk": "QWK", "kappa": "kappa", "exact_agreement": "exact agreement", "adjacent_agreement": "adjacent agreement",
    "pearson_r": "Pearson r", "r2": "R²", "rmse": "RMSE", "smd": "SMD",
}
#: The most moves a search makes.
STEPS = 12
#: Figures closer than this are equal (rounding of sums is not an improvement).
EQUAL = 1e-12


def gain(metric: str, figure: float | None) -> float:
    """``figure`` oriented so that larger is better (``-inf`` when it is undefined)."""
    if figure is None or math.isnan(figure):
        return -math.inf
    direction = METRICS[metric]
    return figure * direction if direction else -abs(figure)


class Objective:
    """The figure ``metric`` of scores against ``marks``, row ``i`` answered by distinct
    answer ``answers[i]``; rows whose answer fails are left out, as ``report`` leaves them."""

    def __init__(self, marks: np.ndarray, answers: np.ndarray, metric: str):
        pairs = tally([np.asarray(marks, dtype=np.float64), np.asarray(answers, dtype=np.float64)])
        self.marks = pairs.values[:, 0]
        self.answers = pairs.values[:, 1].astype(np.int64)
        self.weights = pairs.counts.astype(np.float64)
        self.metric = metric

    def figure(self, scores: np.ndarray) -> float | None:
        """The figure of ``scores`` (one per distinct answer; ``None`` when undefined)."""
        pred = scores[self.answers]
        ok = ~np.isnan(pred)
        if not ok.any():
            return None
        h, p, w = self.marks[ok], pred[ok], self.weights[ok]
        figures = PairColumns(h, p, (centre(h, w), centre(p, w))).figures(Sample(w[None, :]))
        return value(figures, self.metric)

    def failures(self, scores: np.ndarray) -> float:
        """How many rows fail under ``scores``."""
        return float(self.weights[np.isnan(scores[self.answers])].sum())


@dataclass
class Found:
    """What a search ended with (or has reached so far): the ``state``, the moves it made,
    its figure and the original rule's (``None`` when undefined; :func:`gain` orients them)."""

    state: State
    steps: int
    figure: float | None
    original_figure: float | None


def search(space: Space, outcomes: Outcomes, objective: Objective,
           clean: Callable[[State], bool] = lambda state: True,
           moved_to: Callable[[Found], None] | None = None) -> Found:
    """Coordinate ascent from ``space.original`` (see the module doc); ``clean(state)`` says
    whether the rule of a state checks as cleanly as the original; ``moved_to`` is told
    where the search stands at its start and after each move (the best so far, should its
    budget stop it: :attr:`Outcomes.meter`)."""
    state = space.original
    outcomes.pin(state)
    scores = outcomes.scores(state)
    figure = first_figure = objective.figure(scores)
    best = gain(objective.metric, figure)
    most_failures = objective.failures(scores)
    knobs = space.knobs()
    steps = 0
    if moved_to is not None:
        moved_to(Found(state, steps, figure, first_figure))
    while steps < STEPS:
        tried = []
        for position, knob in enumerate(knobs):
            for distance, candidate in space.candidates(knob, state):
                candidate_scores = outcomes.scores(candidate, state)
                if objective.failures(candidate_scores) > most_failures:
                    continue
                raw = objective.figure(candidate_scores)
                found = gain(objective.metric, raw)
                if found > best + EQUAL:
                    tried.append((-round(found, 12), distance, position, _order(candidate, knob), found, raw,
                                  candidate))
        tried.sort(key=lambda item: item[:4])
        moved = next(((found, raw, candidate) for *_, found, raw, candidate in tried if clean(candidate)), None)
        if moved is None:
            break
        best, figure, next_state = moved
        outcomes.pin(next_state)
        outcomes.unpin(state)
        state = next_state
        steps += 1
        if moved_to is not None:
            moved_to(Found(state, steps, figure, first_figure))
    return Found(state, steps, figure, first_figure)


def _order(state: State, knob: Knob) -> float:
    """The last tie-break between candidates: the smaller value (kept last when dropped)."""
    if knob.kind == "threshold":
        return state.thresholds[knob.index]
    if knob.kind == "score":
        return float(state.scores[knob.index])
    return float(knob.name in state.dropped)
