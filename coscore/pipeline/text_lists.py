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
from typing import Any, Optional

import numpy as np

from .._fast import dedup_answers, dedup_strings

__all__ = ["TextColumns", "TextList", "plain"]


class TextList:
    """One blank column of Python ``str`` (``values``: a list, or a 1-D ndarray of
    objects), or ``n`` empty blanks (``values`` ``None``: a column the rule does not
    read). Sliced like an Arrow array."""

    __slots__ = ("values", "n")

    def __init__(self, values: Sequence[str] | None, n: int | None = None):
        self.values = values
        self.n = len(values) if values is not None else int(n or 0)

    @classmethod
    def empty(cls, n: int) -> "TextList":
        """``n`` empty blanks."""
        return cls(None, n)

    def __len__(self) -> int:
        return self.n

    def __iter__(self) -> Iterator[str]:
        return iter(self.values) if self.values is not None else iter([""] * self.n)

    def slice(self, start: int, length: int) -> "TextList":
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
        return rows if isinstance(rows, list) else rows.tolist()


def plain(rows: list[str]) -> list[str]:
    """``rows`` with every instance of a subclass of ``str`` made a plain ``str`` (of the
    same characters, as Arrow would have taken it)."""
    return [v if type(v) is str else str.__getitem__(v, slice(None)) for v in rows]


def _dedup(rows: list[str]) -> tuple[list[str], np.ndarray]:
    try:
        return dedup_strings(rows)
    except TypeError:   # a subclass of str: the kernels read plain ones
        return dedup_strings(plain(rows))


class TextColumns:
    """Equally long :class:`TextList` columns, read as
    :class:`~coscore._fast.BlankColumns` reads Arrow ones: one column gives each answer as
    its text, several as a tuple of their texts."""

    def __init__(self, columns: list[TextList]) -> None:
        lengths = {len(column) for column in columns}
        if len(lengths) > 1:
            raise ValueError(f"the blank columns differ in length: {[len(c) for c in columns]}")
        self.n_rows: int = lengths.pop() if lengths else 0
        self._columns = columns

    @property
    def n_columns(self) -> int:
        return len(self._columns)

    def _range(self, start: int, stop: int) -> None:
        if not 0 <= start <= stop <= self.n_rows:
            raise IndexError(f"rows {start}:{stop} are not within the {self.n_rows} rows")

    def texts(self, key: Any, start: int, stop: int) -> tuple[list[str], np.ndarray, Optional[np.ndarray]]:
        """The one text of each row of ``start:stop`` that a rule reads, deduplicated:
        blank ``key`` (an int, negative from the end) or, for ``"*"``, the blanks
        joined. Returns ``(distinct, inverse, missing)``, ``missing`` the rows without
        blank ``key`` (``None``: none)."""
        self._range(start, stop)
        m, k = stop - start, len(self._columns)
        if m == 0:
            return [], np.zeros(0, dtype=np.intp), None
        if isinstance(key, str):
            if key != "*":
                raise ValueError(f"a text key is an int or '*', not {key!r}")
            rows = ["".join(blanks) for blanks in zip(*(c.texts(start, stop) for c in self._columns))] \
                if k else [""] * m
        else:
            index = key + k if key < 0 else key
            if not 0 <= index < k:
                return [""], np.zeros(m, dtype=np.intp), np.ones(m, dtype=bool)
            rows = self._columns[index].texts(start, stop)
        distinct, inverse = _dedup(rows)
        return distinct, inverse, None

    def answers(self, start: int, stop: int) -> tuple[list, np.ndarray]:
        """The distinct answers of rows ``start:stop`` in first-occurrence order and each
        row's position among them."""
        self._range(start, stop)
        if len(self._columns) == 1:
            return _dedup(self._columns[0].texts(start, stop))
        if stop == start:
            return [], np.zeros(0, dtype=np.intp)
        return dedup_answers(list(zip(*(plain(c.texts(start, stop)) for c in self._columns))))

    def answer(self, row: int) -> Any:
        """The answer of row ``row``: its text for one column, else a tuple of texts."""
        self._range(row, row + 1)
        texts = tuple(plain(c.texts(row, row + 1))[0] for c in self._columns)
        return texts[0] if len(texts) == 1 else texts
