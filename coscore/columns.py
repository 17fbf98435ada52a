"""Answers given as blank COLUMNS (one column per blank) instead of one list per answer.

:func:`answers_from_columns` turns the columns into the answers the engine reads, once
per column and without a Python loop per row: a column of Arrow strings is converted
in one call, one-blank answers are their text, and several blanks are zipped into
tuples. A null cell is the empty blank ``""``.

>>> import pyarrow as pa                                   # doctest: +SKIP
>>> answers_from_columns([pa.array(["a", None]), pa.array(["b", "c"])])   # doctest: +SKIP
[('a', 'b'), ('', 'c')]
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["answers_from_columns", "as_blank_columns", "blank_texts"]


def _is_arrow(value: Any) -> bool:
    return type(value).__module__.startswith("pyarrow")


def as_blank_columns(answers: Any) -> list[Any] | None:
    """The blank columns of ``answers`` if it holds columns rather than answers: a
    ``pyarrow.Table`` or ``RecordBatch`` (every column a blank, in order) or a list
    whose first item is an Arrow array (one per blank); else ``None``."""
    if _is_arrow(answers) and hasattr(answers, "columns") and hasattr(answers, "num_rows"):
        return list(answers.columns)
    if isinstance(answers, list) and answers and _is_arrow(answers[0]) and hasattr(answers[0], "type"):
        return answers
    return None


def blank_texts(column: Any) -> list[str]:
    """One blank column as a list of ``str``, nulls as ``""``.

    ``column`` is an Arrow array or chunked array of strings (``string``,
    ``large_string``, ``string_view``, or all null), or a sequence of ``str``/``None``.
    Raises ``TypeError`` for a column that does not hold text.
    """
    if not _is_arrow(column):
        values = list(column)
        if all(type(v) is str for v in values):
            return values
        for v in values:
            if v is not None and not isinstance(v, str):
                raise TypeError(f"a blank must be a string, got {type(v).__name__} {v!r}")
        return ["" if v is None else v for v in values]
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = column.type
    if pa.types.is_null(kind):
        return [""] * len(column)
    if pa.types.is_dictionary(kind):
        column = column.cast(kind.value_type)
        kind = kind.value_type
    if not (pa.types.is_string(kind) or pa.types.is_large_string(kind) or _is_string_view(pa, kind)):
        raise TypeError(f"a blank column must hold text, this one holds {kind}")
    if column.null_count:
        column = pc.fill_null(column, "")
    return column.to_pylist()


def _is_string_view(pa: Any, kind: Any) -> bool:
    check = getattr(pa.types, "is_string_view", None)  # pyarrow >= 16
    return bool(check and check(kind))


def answers_from_columns(columns: Sequence[Any]) -> list[Any]:
    """The answers of equally long blank ``columns``: each answer's text for one
    column, else a tuple of its blanks. Raises ``TypeError``/``ValueError`` for a
    column that does not hold text or columns of different lengths."""
    texts = [blank_texts(c) for c in columns]
    if not texts:
        return []
    n = len(texts[0])
    if any(len(t) != n for t in texts):
        raise ValueError(f"the blank columns differ in length: {[len(t) for t in texts]}")
    if len(texts) == 1:
        return texts[0]
    return list(zip(*texts))
