"""Blank columns held as Arrow strings, in pure Python: the twin of the compiled
:mod:`coscore._fast.arrow` (same names, same results, distinct texts in the same order).

The columns are converted to Python lists once (nulls as ``""``; invalid UTF-8 raises
Python's ``UnicodeDecodeError`` then) and deduplicated with a dict; equal texts are equal
``str``, as they are equal UTF-8 bytes in the compiled form. :meth:`BlankColumns.texts`
gives the distinct texts as a list of ``str`` where the compiled form gives a ``Texts``
(there is no pure-Python ``Texts``: the twin kernels read any sequence of ``str``).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ._common import StrColumns


def _texts(column: Any) -> list[str]:
    import pyarrow as pa

    kind = column.type
    values = kind.value_type if pa.types.is_dictionary(kind) else kind
    view = getattr(pa.types, "is_string_view", None)   # pyarrow >= 16
    if not (pa.types.is_string(values) or pa.types.is_large_string(values) or (view is not None and view(values))):
        raise TypeError(f"a blank column must be Arrow string, large_string or string_view (or a dictionary of "
                        f"them), not {kind}")
    return ["" if v is None else v for v in column.to_pylist()]


def _dedup(items: list[Any]) -> tuple[list[Any], np.ndarray]:
    positions: dict[Any, Any] = {}
    inverse = np.array([positions.setdefault(item, len(positions)) for item in items], dtype=np.intp)
    return list(positions), inverse


class BlankColumns(StrColumns):
    """Equally long blank columns, each an Arrow ``string``, ``large_string`` or
    ``string_view`` array or chunked array, or a dictionary of such values. Rows are
    answers: one column gives each answer as its text, several as a tuple of their texts."""

    _dedup_texts = _dedup_answers = staticmethod(_dedup)

    def __init__(self, columns: list[Any]) -> None:
        lengths = {len(column) for column in columns}
        if len(lengths) > 1:
            raise ValueError(f"the blank columns differ in length: {[len(c) for c in columns]}")
        super().__init__([_texts(column) for column in columns])

    def _rows(self, index: int, start: int, stop: int) -> list[str]:
        rows: list[str] = self._columns[index][start:stop]
        return rows
