"""Blank columns held as Python ``str``: a pandas ``object`` or ``category`` column of
text, taken as it is instead of being encoded to Arrow first.

A pandas column of Python strings already holds what the kernels read; encoding each
string to UTF-8 for Arrow, to decode the distinct ones back, would cost more than
scoring them. :class:`TextList` is such a column (no null: a missing cell is ``""``,
or the whole column is ``""`` when a rule does not read it), and :class:`TextColumns`
reads a group of them as :class:`~coscore._fast.BlankColumns` reads Arrow columns,
deduplicating with the same kernels that deduplicate a list of answers.

>>> columns = TextColumns([TextList(["a", "b", "a"]), TextList.empty(3)])
>>> columns.texts(0, 0, 3)
(['a', 'b'], array([0, 1, 0]), None)
>>> columns.answer(1)
('b', '')
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from .._fast import StrColumns, dedup_answers, dedup_strings, plain_strings

__all__ = ["TextColumns", "TextList", "plain"]


class TextList:
    """One blank column of Python ``str`` (``values``: a list, or a 1-D ndarray of
    objects), or ``n`` empty blanks (``values`` ``None``: a column the rule does not
    read). Sliced like an Arrow array."""

    __slots__ = ("n", "values")

    def __init__(self, values: Sequence[str] | np.ndarray | None, n: int | None = None) -> None:
        self.values = values
        self.n = len(values) if values is not None else int(n or 0)

    @classmethod
    def empty(cls, n: int) -> TextList:
        """``n`` empty blanks."""
        return cls(None, n)

    def __len__(self) -> int:
        return self.n

    def __iter__(self) -> Iterator[str]:
        return iter(self.values) if self.values is not None else iter([""] * self.n)

    def slice(self, start: int, length: int) -> TextList:
        """Rows ``start:start + length`` (as ``pyarrow.Array.slice``)."""
        stop = min(self.n, start + length)
        if self.values is None:
            return TextList.empty(max(0, stop - start))
        return TextList(self.values[start:stop])

    def texts(self, start: int, stop: int) -> list[str]:
        """Rows ``start:stop`` as a list (of ``str``, maybe of a subclass: see :func:`plain`)."""
        if self.values is None:
            return [""] * (stop - start)
        rows = self.values[start:stop]
        if isinstance(rows, np.ndarray):
            texts: list[str] = rows.tolist()
            return texts
        return rows if isinstance(rows, list) else list(rows)


def plain(rows: list[str]) -> list[str]:
    """``rows`` with every instance of a subclass of ``str`` made a plain ``str`` (of the
    same characters, as Arrow would have taken it): the kernels read plain ones."""
    if plain_strings(rows) == len(rows):   # checked in C: the usual case, no copy
        return rows
    return [v if type(v) is str else str.__getitem__(v, slice(None)) for v in rows]


class TextColumns(StrColumns):
    """Equally long :class:`TextList` columns, read as
    :class:`~coscore._fast.BlankColumns` reads Arrow ones: one column gives each answer as
    its text, several as a tuple of their texts."""

    _dedup_texts = staticmethod(dedup_strings)
    _dedup_answers = staticmethod(dedup_answers)

    def _rows(self, index: int, start: int, stop: int) -> list[str]:
        return plain(self._columns[index].texts(start, stop))
