"""Judging a search honestly: k-fold cross-validation, and a paired bootstrap of the
held-out figure against the original rule's.

The distinct answers are dealt into ``folds`` folds by a seeded permutation
(``numpy.random.Generator(PCG64(seed))``), so that every copy of an answer falls in one
fold: a held-out answer's text was never seen by the search that scores it. For each
fold, the search runs on the marked rows of the other folds, and the rule it found
scores the fold's rows (the engine scoring that rule itself). The held-out scores of
all folds together are then compared with the original rule's scores on the same rows:
each figure with a 95 % percentile bootstrap interval, and the improvement (the
difference oriented so that larger is better) with a paired interval from the same
resamples (:class:`coscore.report.bootstrap.Resampling`, as ``coscore compare`` draws
them).
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..report.bootstrap import Resampling, interval
from ..report.compare import Estimate
from ..report.counts import PairColumns, centre, value
from .outcomes import Outcomes
from .search import METRICS, Found, Objective, gain, search
from .space import Space, State


def deal(count: int, folds: int, seed: int) -> np.ndarray:
    """The fold (0 … ``folds`` − 1) of each of ``count`` distinct answers, seeded."""
    rng = np.random.Generator(np.random.PCG64(seed))
    fold = np.empty(count, dtype=np.int64)
    fold[rng.permutation(count)] = np.arange(count) % folds
    return fold


def cross_validate(space: Space, outcomes: Outcomes, marks: np.ndarray, answers: np.ndarray, metric: str,
                   folds: int, seed: int, clean: Callable[[State], bool]) -> tuple[np.ndarray, list[Found]]:
    """Held-out scores of the marked rows (row ``i`` answered by distinct answer
    ``answers[i]``, marked ``marks[i]``) and what each fold's search found."""
    fold = deal(len(outcomes.answers), folds, seed)[answers]
    held_out = np.full(len(marks), np.nan)
    found = []
    for k in range(folds):
        outcomes.meter.stage = f"the cross-validation (fold {k + 1} of {folds})"
        train, test = fold != k, fold == k
        result = search(space, outcomes, Objective(marks[train], answers[train], metric), clean)
        found.append(result)
        distinct = np.unique(answers[test])
        scores = np.full(len(outcomes.answers), np.nan)
        scores[distinct] = outcomes.exact(result.state, distinct)
        held_out[test] = scores[answers[test]]
    return held_out, found


def paired(marks: np.ndarray, before: np.ndarray, after: np.ndarray, metric: str, resamples: int,
           seed: int, check: Callable[[], None] | None = None) -> tuple[Estimate, Estimate, Estimate, int]:
    """``metric`` of ``before`` and of ``after`` against ``marks``, and the improvement
    (:func:`.search.gain` of after minus that of before), each with its bootstrap interval
    over the rows that have all three; and the number of those rows. ``check`` is called
    before each batch of resamples (a budget's :meth:`~coscore.search_budget.Meter.check`)."""
    keep = ~(np.isnan(marks) | np.isnan(before) | np.isnan(after))
    resampling = Resampling([marks[keep], before[keep], after[keep]])
    h = resampling.column(0)
    observed = resampling.observed()
    weights = observed.weights[0]
    pairs = [PairColumns(h, p, (centre(h, weights), centre(p, weights)))
             for p in (resampling.column(1), resampling.column(2))]
    draws: list[list[np.ndarray]] = [[], []]
    for sample in resampling.samples(resamples, seed):
        if check is not None:
            check()
        for k, pair in enumerate(pairs):
            draws[k].append(pair.figures(sample)[metric])
    b, a = (np.concatenate(d) if d else np.empty(0) for d in draws)
    point = [value(pair.figures(observed), metric) for pair in pairs]
    improvement = _oriented(metric, a) - _oriented(metric, b)
    difference = None if None in point else gain(metric, point[1]) - gain(metric, point[0])
    return (Estimate(point[0], interval(b)), Estimate(point[1], interval(a)),
            Estimate(difference, interval(improvement[np.isfinite(improvement)])), int(keep.sum()))


def _oriented(metric: str, figures: np.ndarray) -> np.ndarray:
    """:func:`.search.gain` over an array (NaN stays NaN)."""
    direction = METRICS[metric]
    return figures * direction if direction else -np.abs(figures)
