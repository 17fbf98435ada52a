"""The one result builder: every :class:`~coscore.results.Batch` the engine gives is made here.

A :class:`BatchBuilder` holds the result arrays of ``n`` answers, allocated once. Each
chunk is scored into a :class:`Part` of it — a run of rows, or any set of rows (the
answers of one number of blanks) — straight from the chunk's distinct results: one
gather per column, no intermediate arrays. :func:`gather` joins the batches of a stream
whose length is not known in advance.
"""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from ..results import Batch, Outcome

#: Answers per block of the arrays :func:`gather` collects a stream's results in: one
#: float64 column of a block (32 MB) is at the malloc tuning's mmap threshold (see
#: :func:`coscore._fast.tune_malloc`), so each block is mapped on its own, holds memory
#: only for the rows written, and is given back whole once joined.
BLOCK = 1 << 22


class BatchBuilder:
    """The results of ``n`` answers, written part by part, then :meth:`batch`."""

    def __init__(self, combo_ids: Iterable[str], n: int):
        self.n = n
        self.scores = np.empty(n)
        self.combos = {cid: np.empty(n) for cid in combo_ids}
        self.errors: list[str | None] = [None] * n
        self.completed: dict[int, int] = {}

    def part(self, start: int, stop: int | None = None, rows: np.ndarray | None = None) -> Part:
        """Rows ``start:stop``, or (``rows``) the rows an index array names, in order."""
        if stop is None:
            assert rows is not None, "give stop or rows"
            stop = start + len(rows)
        return Part(self, start, stop, rows)

    def batch(self) -> Batch:
        """The :class:`~coscore.results.Batch` of every row written."""
        return Batch(self.scores, self.errors, self.combos, self.completed)


class Part:
    """Some rows of a :class:`BatchBuilder` that one chunk's results go to: row ``i`` of
    the chunk is builder row ``start + i``, or ``rows[i]`` when ``rows`` is given."""

    def __init__(self, builder: BatchBuilder, start: int, stop: int, rows: np.ndarray | None = None):
        self.builder = builder
        self.start = start
        self.size = stop - start if rows is None else len(rows)
        self.rows = rows

    def __len__(self) -> int:
        return self.size

    def put_columns(self, total: np.ndarray, results: dict[str, np.ndarray], inverse: np.ndarray | None) -> None:
        """Every row's results from those of the distinct answers: row ``i`` takes
        ``total[inverse[i]]`` (``inverse`` ``None``: row ``i`` is distinct answer ``i``)."""
        b = self.builder
        for target, values in ((b.scores, total), *((b.combos[cid], v) for cid, v in results.items())):
            if self.rows is not None:
                target[self.rows] = values if inverse is None else values[inverse]
            elif inverse is None:
                target[self.start : self.start + self.size] = values
            else:   # the inverse indexes are in range (the dedup's): no check needed
                np.take(values, inverse, out=target[self.start : self.start + self.size], mode="clip")

    def put_outcome(self, i: int, outcome: Outcome) -> None:
        """Row ``i``'s results: an :class:`~coscore.results.Outcome`."""
        b = self.builder
        row = self.start + i if self.rows is None else int(self.rows[i])
        failed = outcome.error is not None
        b.scores[row] = np.nan if failed else outcome.score
        for cid, values in b.combos.items():
            values[row] = outcome.combos.get(cid, np.nan)
        if failed:
            b.errors[row] = outcome.error
            b.completed[row] = len(outcome.combos)


def gather(combo_ids: Iterable[str], batches: Iterable[Batch]) -> Batch:
    """One :class:`~coscore.results.Batch` of consecutive ones, each copied into blocks
    of result arrays as it comes and then dropped.

    The chunks' own arrays are released chunk by chunk (so their memory is reused by the
    next chunk's), not held to the end; the blocks of each column are joined and released
    before the next column, and the errors list is made last: the peak is the results
    once in blocks plus one joined column.
    """
    # None: the scores; each a list of blocks
    columns: dict[str | None, list[np.ndarray]] = {None: [], **{cid: [] for cid in combo_ids}}
    errors: dict[int, str] = {}
    completed: dict[int, int] = {}
    n = 0
    for batch in batches:
        m = len(batch)
        if batch.errors.count(None) != m:
            errors.update((n + i, e) for i, e in enumerate(batch.errors) if e is not None)
        completed.update((n + i, done) for i, done in batch.completed.items())
        values: dict[str | None, np.ndarray] = {None: batch.scores}
        values.update(batch.combos)
        del batch
        done = 0
        while done < m:
            at = n % BLOCK
            if at == 0:
                for blocks in columns.values():
                    blocks.append(np.empty(BLOCK))
            take = min(m - done, BLOCK - at)
            for key, blocks in columns.items():
                blocks[-1][at : at + take] = values[key][done : done + take]
            done += take
            n += take
        del values
    joined: dict[str | None, np.ndarray] = {}
    for key, blocks in columns.items():
        if blocks:
            blocks[-1] = blocks[-1][: n - (len(blocks) - 1) * BLOCK]
        joined[key] = np.concatenate(blocks) if blocks else np.empty(0)
        blocks.clear()
    error_list: list[str | None] = [None] * n
    for i, error in errors.items():
        error_list[i] = error
    scores = joined.pop(None)
    return Batch(scores, error_list, {str(key): column for key, column in joined.items()}, completed)
