"""Percentile bootstrap confidence intervals, seeded so that reruns print the same.

A resample draws ``n`` rows with replacement; a figure is computed on each resample,
resamples where it is undefined are dropped, and the interval is the 2.5th and 97.5th
percentiles of the rest (linear interpolation between order statistics, numpy's default).

Every figure depends on a resample only through how often each distinct tuple of values
(mark, second mark, each score) occurs in it (:mod:`.counts`), and those counts follow the
multinomial distribution with ``n`` trials and the observed shares of the tuples. So
:class:`Resampling` draws the counts directly -- ``Generator(PCG64(seed)).multinomial``,
one row per resample -- whenever the distinct tuples are at most half the rows
(``"counts"``); the work per resample then grows with the tuples, not the rows. Otherwise
(``"rows"``) it draws row indexes with ``integers(0, n)`` as :func:`resamples` does and
counts each row's draws. Either way the resamples come in blocks of at most
:data:`BLOCK_CELLS` counts, so memory stays bounded. Both methods sample the same
distribution: their intervals differ only by Monte-Carlo error.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import numpy as np

from .counts import Sample, tally, tally_within

#: Default number of resamples and seed.
RESAMPLES = 1000
SEED = 20240601
#: The most resamples asked for (``tune``, ``compare``): 100,000 already fix an interval's
#: ends to about 0.1 % of its width.
MAX_RESAMPLES = 100_000
#: The coverage of the intervals.
LEVEL = 0.95
#: The most counts (resamples × tuples) one block of resamples holds.
BLOCK_CELLS = 1 << 20
#: The two ways of resampling.
METHODS = ("counts", "rows")


def resamples(n: int, count: int = RESAMPLES, seed: int = SEED) -> np.ndarray:
    """A ``(count, n)`` array of row indexes, each row one resample with replacement."""
    rng = np.random.Generator(np.random.PCG64(seed))
    return rng.integers(0, n, size=(count, n)) if n else np.zeros((count, 0), dtype=np.int64)


def interval(values: Sequence[float | None] | np.ndarray, level: float = LEVEL) -> tuple[float, float] | None:
    """The central ``level`` percentile interval of ``values`` (``None`` entries and NaN
    dropped); ``None`` when nothing is left."""
    if isinstance(values, np.ndarray):
        kept = values.astype(np.float64)
    else:
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


class Resampling:
    """The rows of equal-length float ``columns`` (NaN allowed), ready to be resampled.

    ``values`` holds one tuple per row of it (a column per input column) and ``counts``
    how often each occurs: the distinct tuples with ``method`` ``"counts"``, every row
    with ``"rows"``. ``method`` ``None`` chooses (counts when the distinct tuples are at
    most half the rows); a method may also be asked for.
    """

    def __init__(self, columns: Sequence[np.ndarray], method: str | None = None):
        if method not in (None, *METHODS):
            raise ValueError(f"no resampling method {method!r} (methods: {', '.join(METHODS)})")
        self.n = len(columns[0]) if columns else 0
        found = None
        if method == "counts":
            found = tally(columns)
        elif method is None:
            found = tally_within(columns, self.n // 2)
        self.method = "counts" if found is not None else "rows"
        if found is not None:
            self.values, self.counts = found.values, found.counts
        else:
            self.values = np.column_stack([np.asarray(c, dtype=np.float64) for c in columns]) if columns \
                else np.zeros((0, 0))
            self.counts = np.ones(self.n, dtype=np.int64)

    def column(self, j: int) -> np.ndarray:
        """Column ``j`` of the tuples."""
        return self.values[:, j]

    def observed(self) -> Sample:
        """The rows themselves, as one sample of the tuples."""
        return Sample(self.counts[None, :].astype(np.float64))

    def samples(self, count: int = RESAMPLES, seed: int = SEED) -> Iterator[Sample]:
        """``count`` resamples in blocks (each a :class:`.counts.Sample` of up to
        :data:`BLOCK_CELLS` counts), the same for the same ``seed``."""
        rng = np.random.Generator(np.random.PCG64(seed))
        tuples = self.counts.size
        size = max(1, BLOCK_CELLS // max(1, tuples))
        shares = self.counts / self.n if self.n else self.counts
        for start in range(0, count, size):
            b = min(size, count - start)
            if not self.n:
                yield Sample(np.zeros((b, tuples)))
            elif self.method == "counts":
                yield Sample(rng.multinomial(self.n, shares, size=b).astype(np.float64))
            else:
                rows = rng.integers(0, self.n, size=(b, self.n))
                rows += np.arange(b, dtype=np.int64)[:, None] * self.n
                yield Sample(np.bincount(rows.reshape(-1), minlength=b * self.n).reshape(b, self.n)
                             .astype(np.float64))
