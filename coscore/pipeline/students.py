"""Each student's item scores and total, from the scored rows of an exam in the long
layout (``coscore score EXAM … --totals FILE``).

A long table holds one row per student and item. :class:`StudentTotals` takes each
scored chunk as it is written (it is a writer: :class:`Tee` hands it the chunks the
output's writer gets, on the write-behind thread) and keeps, per student in order of first
appearance, the score of each item, in blocks of :data:`BLOCK` students (memory grows with
the students, never by copying what is held); the student ids are mapped to rows once per
chunk's distinct ids. A student with two rows for one item is refused (which one counts
would be a guess); a student with no row for an item, or whose answer failed, has no
total — ``total_error`` says why.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..io.errors import InputError
from ..io.table import Chunk
from .results import ERROR_COLUMN, SCORE_COLUMN
from .scoring import TOTAL_COLUMN, Scoring

if TYPE_CHECKING:
    from ..io import Writer

__all__ = ["BLOCK", "TOTAL_ERROR_COLUMN", "StudentTotals", "Tee"]

#: The column of :meth:`StudentTotals.write` that says why a student has no total.
TOTAL_ERROR_COLUMN = "total_error"
#: Students per block of the arrays the scores are kept in.
BLOCK = 1 << 16

_MISSING, _SCORED, _FAILED = 0, 1, 2   # what is known of a student's item


class StudentTotals:
    """The per-student totals of a long-layout run of ``scoring``, keyed by ``id_column``."""

    def __init__(self, scoring: Scoring, id_column: str, source: str) -> None:
        self.scoring = scoring
        self.id_column = id_column
        self.source = source
        self.names = [str(item.name) for item in scoring.items]
        self.weights = np.array([item.weight for item in scoring.items], dtype=np.float64)
        self._index: dict[str, int] = {}
        self._scores: list[np.ndarray] = []   # blocks of BLOCK × items: the score, NaN unless scored
        self._states: list[np.ndarray] = []   # the same: _MISSING, _SCORED or _FAILED

    def __len__(self) -> int:
        return len(self._index)

    def write(self, chunk: Chunk) -> None:
        """Take the scored rows of ``chunk`` (its input columns and ``coscore_score``)."""
        import pyarrow as pa
        import pyarrow.compute as pc

        from ..io.arrays import float_values

        if self.id_column not in chunk.data:
            raise InputError(chunk.source, "no such column (the exam's student id)", column=self.id_column)
        ids = _texts(chunk, self.id_column)
        if ids.null_count:
            bad = int(np.flatnonzero(~np.asarray(ids.is_valid()))[0])
            raise InputError(chunk.source, "a row without a student id: every row of the long layout needs one "
                             "for --totals", column=self.id_column, **chunk.where(bad))
        encoded = pc.dictionary_encode(ids)
        index = self._index
        rows = np.fromiter((index.setdefault(v, len(index)) for v in encoded.dictionary.to_pylist()),
                           dtype=np.int64)[np.asarray(encoded.indices, dtype=np.int64)]
        self._grow(len(index))
        items = np.empty(len(chunk), dtype=np.int64)
        for k, taken in enumerate(self.scoring.item_rows(chunk)):
            items[taken] = k
        errors = chunk.data[ERROR_COLUMN]
        failed = np.asarray(errors.is_valid()) if isinstance(errors, pa.Array) else \
            np.array([e is not None for e in errors], dtype=bool)
        scores = float_values(chunk.data[SCORE_COLUMN])
        states = np.where(failed, _FAILED, _SCORED).astype(np.uint8)
        blocks, at = np.divmod(rows, BLOCK)
        for block in np.unique(blocks).tolist():
            mine = np.flatnonzero(blocks == block)
            held = self._states[block]
            where, what = at[mine], items[mine]
            again = held[where, what] != _MISSING
            key = where * len(self.names) + what
            twice = np.ones(len(key), dtype=bool)
            twice[np.unique(key, return_index=True)[1]] = False
            if again.any() or twice.any():
                bad = int(mine[np.flatnonzero(again | twice)[0]])
                raise InputError(chunk.source, f"student {ids[bad].as_py()!r} has a second row for item "
                                 f"{self.names[items[bad]]!r}: give each student one row per item",
                                 column=self.id_column, **chunk.where(bad))
            held[where, what] = states[mine]
            self._scores[block][where, what] = scores[mine]

    def close(self) -> None:
        """Nothing to release (the totals are written by :meth:`write_totals`)."""

    def write_totals(self, writer: Writer) -> None:
        """Write the totals with ``writer``: the id, each item's score, the total and
        ``total_error``, one row per student in order of first appearance."""
        import pyarrow as pa

        from ..io.arrays import float_array, string_array

        n = len(self._index)
        k = len(self.names)
        data: dict[str, Any] = {self.id_column: string_array(list(self._index))}
        total = np.zeros(n)
        for j, name in enumerate(self.names):
            column = self._column(self._scores, j, n)
            data[f"{name}_score"] = float_array(column)
            total += self.weights[j] * column   # NaN (no row, or failed) makes the total NaN: null
        if self.scoring.decimals is not None:
            total = np.round(total, self.scoring.decimals)
        data[TOTAL_COLUMN] = float_array(total)
        notes: list[str | None] = [None] * n
        for b, held in enumerate(self._states):
            held = held[: max(0, min(BLOCK, n - b * BLOCK))]
            for row in np.flatnonzero((held != _SCORED).any(axis=1)).tolist():
                missing = [self.names[j] for j in range(k) if held[row, j] == _MISSING]
                broken = [self.names[j] for j in range(k) if held[row, j] == _FAILED]
                parts = ([f"no row for {_listed(missing)}"] if missing else []) + \
                    ([f"{_listed(broken)} could not be scored"] if broken else [])
                notes[b * BLOCK + row] = "; ".join(parts)
        data[TOTAL_ERROR_COLUMN] = string_array(notes) if any(notes) else pa.nulls(n, pa.string())
        types = {name: "float64" for name in data}
        types[self.id_column] = types[TOTAL_ERROR_COLUMN] = "string"
        writer.write(Chunk(list(data), data, range(1, n + 1), "row", self.source, None, types))

    @staticmethod
    def _column(blocks: list[np.ndarray], j: int, n: int) -> np.ndarray:
        """Column ``j`` of the first ``n`` rows of ``blocks``, as one array."""
        parts = [block[:, j] for block in blocks]
        return np.concatenate(parts)[:n] if parts else np.empty(0)

    def _grow(self, n: int) -> None:
        """Blocks enough for ``n`` students."""
        k = len(self.names)
        while len(self._scores) * BLOCK < n:
            self._scores.append(np.full((BLOCK, k), np.nan))
            self._states.append(np.zeros((BLOCK, k), dtype=np.uint8))


class Tee:
    """A writer that hands each chunk to ``writer`` and then to ``also`` (both on the
    thread that writes); ``close`` closes neither (their owners do)."""

    def __init__(self, writer: Writer, also: StudentTotals) -> None:
        self.writer, self.also = writer, also

    def write(self, chunk: Chunk) -> None:
        self.writer.write(chunk)
        self.also.write(chunk)

    def close(self) -> None:
        """Nothing: the owners close the writers."""


def _listed(names: list[str]) -> str:
    return ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")


def _texts(chunk: Chunk, column: str) -> Any:
    """``column`` of ``chunk`` as an Arrow ``string`` array (numbers written as text)."""
    import pyarrow as pa

    values = chunk.data[column]
    if not isinstance(values, (pa.Array, pa.ChunkedArray)):
        values = pa.array([None if v is None else str(v) for v in chunk.pylist(column)], pa.string())
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if pa.types.is_dictionary(values.type):
        values = values.cast(values.type.value_type)
    return values if pa.types.is_string(values.type) else values.cast(pa.string())
