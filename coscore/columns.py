"""Answers given as blank COLUMNS (one column per blank) instead of one list per answer.

:func:`score_columns` scores Arrow string columns without making a Python object per
row: each chunk of rows is read from the arrays' UTF-8 buffers in C, the text the rule
reads is picked and deduplicated on its bytes, and the *distinct* texts go to the
kernels decoded in C, as a ``Texts`` (:class:`coscore._fast.BlankColumns`; the engine
makes their ``str`` only for a rule that reads the text otherwise, see
:attr:`coscore.engine.ColumnarPlan.kernel_texts`). One-blank answers are their text,
several blanks a tuple; a null cell is the empty blank ``""``. The results equal, bit for
bit, those of the same answers given as Python lists (docs/columns.md).

:func:`answers_from_columns` turns columns into those Python answers (for front ends that
need them one by one).

>>> import pyarrow as pa                                   # doctest: +SKIP
>>> answers_from_columns([pa.array(["a", None]), pa.array(["b", "c"])])   # doctest: +SKIP
[('a', 'b'), ('', 'c')]
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from . import engine as _engine
from ._fast import BlankColumns
from .results import Batch

__all__ = ["answers_from_columns", "as_blank_columns", "blank_texts", "score_columns", "text_array"]


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


def text_array(column: Any) -> Any:
    """One blank column as an Arrow ``string`` or ``large_string`` array (or chunked
    array) that :class:`~coscore._fast.BlankColumns` reads: dictionary-encoded text is
    decoded, ``string_view`` cast, an all-null column made an all-null string column.
    Raises ``TypeError`` for a column that does not hold text."""
    import pyarrow as pa

    if not _is_arrow(column) or not hasattr(column, "type"):
        raise TypeError(f"a blank column must be an Arrow array, not {type(column).__name__}")
    kind = column.type
    if pa.types.is_null(kind):
        return pa.nulls(len(column), pa.string())
    if pa.types.is_dictionary(kind):
        column = column.cast(kind.value_type)
        kind = kind.value_type
    if _is_string_view(pa, kind):
        return column.cast(pa.large_string())
    if not (pa.types.is_string(kind) or pa.types.is_large_string(kind)):
        raise TypeError(f"a blank column must hold text, this one holds {kind}")
    return column


def blank_texts(column: Any) -> list[str]:
    """One blank column as a list of ``str``, nulls as ``""``.

    ``column`` is an Arrow array or chunked array of strings (``string``,
    ``large_string``, ``string_view``, dictionary-encoded, or all null), or a sequence
    of ``str``/``None``. Raises ``TypeError`` for a column that does not hold text.
    """
    if not _is_arrow(column):
        values = list(column)
        if all(type(v) is str for v in values):
            return values
        for v in values:
            if v is not None and not isinstance(v, str):
                raise TypeError(f"a blank must be a string, got {type(v).__name__} {v!r}")
        return ["" if v is None else v for v in values]
    import pyarrow.compute as pc

    column = text_array(column)
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


def score_columns(plan: _engine.Plan, columns: Sequence[Any], jobs: int = 1, chunk_size: int | None = None,
                  read_ahead: bool = True) -> Batch:
    """Score the answers held by equally long Arrow blank ``columns`` (see
    :func:`text_array` for the types taken) with ``plan``: the same :class:`Batch` as
    :func:`coscore.engine.score_many` on the same answers as Python lists. With one
    worker and ``read_ahead``, each chunk's texts are read in a second thread while the
    chunk before is scored. Raises ``TypeError``/``ValueError`` for a column that does
    not hold text or columns of different lengths."""
    table = BlankColumns([text_array(c) for c in columns])
    columnar = plan.columnar
    key = columnar.key if columnar is not None else None

    def read_texts(start: int, stop: int) -> tuple:
        return table.texts(key, start, stop)

    def score_texts(start: int, stop: int, texts: tuple) -> Batch:
        distinct, inverse, missing = texts
        flag = np.zeros(stop - start, dtype=bool)
        if missing is not None:
            flag |= missing
        return _engine.score_distinct(plan, distinct, inverse, key, flag, lambda i: table.answer(start + i))

    def score_answers(start: int, stop: int) -> Batch:
        distinct, inverse = table.answers(start, stop)
        view = 0 if table.n_columns == 1 else None
        return _engine.score_distinct(plan, distinct, inverse, view, np.zeros(stop - start, dtype=bool),
                                      lambda i: distinct[inverse[i]])

    if key is None:   # the rule reads whole answers: made as Python objects, with the GIL
        return _engine.score_ranges(plan, table.n_rows, score_answers, jobs, chunk_size)
    # the rule reads one text per answer: only that is picked, in C, without the GIL
    return _engine.score_ranges(plan, table.n_rows, score_texts, jobs, chunk_size, read_texts, read_ahead)
