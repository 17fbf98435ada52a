"""Percentile bootstrap confidence intervals, seeded so that reruns print the same.

Resample ``i`` draws ``n`` row indexes with replacement from
``numpy.random.Generator(PCG64(seed))`` (:func:`resamples`); a statistic is computed on
each resample, resamples where it is undefined are dropped, and the interval is the
2.5th and 97.5th percentiles of the rest (linear interpolation between order
statistics, numpy's default).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

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
