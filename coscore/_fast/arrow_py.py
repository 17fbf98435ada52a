"""Blank columns held as Arrow strings, in pure Python: the twin of the compiled
:mod:`coscore._fast.arrow` (same names, same results, distinct texts in the same order).

The columns are converted to Python lists once (nulls as ``""``; invalid UTF-8 raises
Python's ``UnicodeDecodeError`` then) and deduplicated with a dict; equal texts are equal
``str``, as they are equal UTF-8 bytes in the compiled form. :meth:`BlankColumns.texts`
gives the distinct texts as a list of ``str`` where the compiled form gives a ``Texts``
(there is no pure-Python ``Texts``: the twin kernels read any sequence of ``str``).
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np


def _texts(column: Any) -> list[str]:
    import pyarrow as pa

    kind = column.type
    values = kind.value_type if pa.types.is_dictionary(kind) else kind
    view = getattr(pa.types, "is_string_view", None)   # pyarrow >= 16
    if not (pa.types.is_string(values) or pa.types.is_large_string(values) or (view is not None and view(values))):
        raise TypeError(f"a blank column must be Arrow string, large_string or string_view (or a dictionary of "
                        f"them), not {kind}")
    return ["" if v is None else v for v in column.to_pylist()]


def _dedup(items: list) -> tuple[list, np.ndarray]:
    positions: dict = {}
    inverse = np.array([positions.setdefault(item, len(positions)) for item in items], dtype=np.intp)
    return list(positions), inverse


class BlankColumns:
    """Equally long blank columns, each an Arrow ``string``, ``large_string`` or
    ``string_view`` array or chunked array, or a dictionary of such values. Rows are
    answers: one column gives each answer as its text, several as a tuple of their texts."""

    def __init__(self, columns: list) -> None:
        lengths = {len(column) for column in columns}
        if len(lengths) > 1:
            raise ValueError(f"the blank columns differ in length: {[len(c) for c in columns]}")
        self.n_rows: int = lengths.pop() if lengths else 0
        self._columns = [_texts(column) for column in columns]

    @property
    def n_columns(self) -> int:
        return len(self._columns)

    def _range(self, start: int, stop: int) -> None:
        if not 0 <= start <= stop <= self.n_rows:
            raise IndexError(f"rows {start}:{stop} are not within the {self.n_rows} rows")

    def texts(self, key: Any, start: int, stop: int) -> tuple[list[str], np.ndarray, Optional[np.ndarray]]:
        """The one text of each row of ``start:stop`` that a rule reads, deduplicated:
        blank ``key`` (an int, negative from the end) or, for ``"*"``, the blanks
        joined. Returns ``(distinct, inverse, missing)`` (see the compiled module)."""
        self._range(start, stop)
        m, k = stop - start, len(self._columns)
        if m == 0:
            return [], np.zeros(0, dtype=np.intp), None
        if isinstance(key, str):
            if key != "*":
                raise ValueError(f"a text key is an int or '*', not {key!r}")
            rows = ["".join(blanks) for blanks in zip(*(c[start:stop] for c in self._columns))] if k else [""] * m
        else:
            index = key + k if key < 0 else key
            if not 0 <= index < k:
                return [""], np.zeros(m, dtype=np.intp), np.ones(m, dtype=bool)
            rows = self._columns[index][start:stop]
        distinct, inverse = _dedup(rows)
        return distinct, inverse, None

    def answers(self, start: int, stop: int) -> tuple[list, np.ndarray]:
        """The distinct answers of rows ``start:stop`` in first-occurrence order and each
        row's position among them."""
        self._range(start, stop)
        if len(self._columns) == 1:
            return _dedup(self._columns[0][start:stop])
        if stop == start:
            return [], np.zeros(0, dtype=np.intp)
        return _dedup(list(zip(*(c[start:stop] for c in self._columns))))

    def answer(self, row: int) -> Any:
        """The answer of row ``row``: its text for one column, else a tuple of texts."""
        self._range(row, row + 1)
        texts = tuple(c[row] for c in self._columns)
        return texts[0] if len(texts) == 1 else texts
