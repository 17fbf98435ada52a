"""Percentile bootstrap confidence intervals, seeded so that reruns print the same.

Resample ``i`` draws ``n`` row indexes with replacement from
``numpy.random.Generator(PCG64(seed))`` (:func:`resamples`); a statistic is computed on
each resample, resamples where it is undefined are dropped, and the interval is the
2.5th and 97.5th percentiles of the rest (linear interpolation between order
statistics, numpy's default).

Figures that depend only on the confusion matrix of rounded marks and scores (QWK,
kappa, exact and adjacent agreement) can be resampled without the rows: drawing ``n`` rows
with replacement gives cell counts that are multinomial with the cells' shares, so
:func:`confusion_resamples` draws those counts directly (``count`` matrices of 121 cells
whatever ``n`` is) and :func:`confusion_intervals` reads the intervals off them. The
intervals have the same distribution as those of row resamples, not the same numbers.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from .stats import confusion_figures

#: Default number of resamples and seed.
RESAMPLES = 1000
SEED = 20240601
#: The coverage of the intervals.
LEVEL = 0.95


def resamples(n: int, count: int = RESAMPLES, seed: int = SEED) -> np.ndarray:
    """A ``(count, n)`` array of row indexes, each row one resample with replacement."""
    rng = np.random.Generator(np.random.PCG64(seed))
    return rng.integers(0, n, size=(count, n)) if n else np.zeros((count, 0), dtype=np.int64)


def interval(values: Sequence[float | None], level: float = LEVEL) -> tuple[float, float] | None:
    """The central ``level`` percentile interval of ``values`` (``None`` entries and NaN
    dropped); ``None`` when nothing is left."""
    kept = np.asarray([v for v in values if v is not None], dtype=np.float64)
    kept = kept[~np.isnan(kept)]
    if not kept.size:
        return None
    tail = (1 - level) / 2 * 100
    lo, hi = np.percentile(kept, [tail, 100 - tail])
    return float(lo), float(hi)


def bootstrap(statistic: Callable[[np.ndarray], float | None], draws: np.ndarray,
              level: float = LEVEL) -> tuple[float, float] | None:
    """The interval of ``statistic(indexes)`` over the resamples in ``draws``."""
    return interval([statistic(indexes) for indexes in draws], level)


def confusion_resamples(confusion: Sequence[Sequence[int]] | np.ndarray, count: int = RESAMPLES,
                        seed: int = SEED) -> np.ndarray:
    """``(count, k, k)`` confusion matrices of ``count`` resamples of the ``n`` rows behind
    ``confusion`` (``k × k`` counts), each cell count drawn as the rows would fall."""
    matrix = np.asarray(confusion, dtype=np.int64)
    n = int(matrix.sum())
    if n == 0:
        return np.zeros((count, *matrix.shape), dtype=np.int64)
    rng = np.random.Generator(np.random.PCG64(seed))
    return rng.multinomial(n, matrix.ravel() / n, size=count).reshape((count, *matrix.shape))


def confusion_intervals(confusion: Sequence[Sequence[int]] | np.ndarray, count: int = RESAMPLES, seed: int = SEED,
                        level: float = LEVEL) -> dict[str, tuple[float, float] | None]:
    """The ``level`` intervals of each figure of :func:`~.stats.confusion_figures`
    (``qwk``, ``kappa``, ``exact_agreement``, ``adjacent_agreement``) over
    :func:`confusion_resamples` of ``confusion``."""
    figures = confusion_figures(confusion_resamples(confusion, count, seed))
    return {name: interval(values.tolist(), level) for name, values in figures.items()}
