"""The one gate from what a caller holds to what the engine scores: a :class:`BlankTable`.

:func:`blank_table` takes what :meth:`coscore.Rule.score_many` may be given instead of
answers — a ``pyarrow.Table`` or ``RecordBatch`` (every column a blank, in order), a
list of Arrow arrays (one per blank), a pandas or polars DataFrame or anything else
exposing the Arrow C stream interface (``__arrow_c_stream__``), or a table of ONE
column of lists of text (each row's list is its answer's blanks, however many) — and
gives a :class:`BlankTable`; Python answers (a list of answers) give one too, read in
place (:func:`table_stream` cuts a stream of either into chunks). Every front reaches the
engine through it: the command's files (:mod:`coscore.pipeline.scoring`, through
:func:`from_columns`), the data read whole for reports, Dask partitions and the web app's
tasks.

Text stays Arrow text as it is (``string``, ``large_string``, ``string_view``, and
dictionaries of them, all read in place; an all-null column is empty blanks), or, for a
pandas column of Python strings, those strings (:mod:`.text_lists`); a null cell is the
empty blank ``""``. An Arrow array of another type is refused (``TypeError``); the
columns of a DataFrame that do not hold text (numbers, booleans) are turned into text
as Arrow writes them (``42``, ``0.5``, ``1e+20``, ``true``). Python answers are made
only for a front that needs them one by one (:func:`answers_from_columns`).

>>> import pyarrow as pa                                   # doctest: +SKIP
>>> answers_from_columns([pa.array(["a", None]), pa.array(["b", "c"])])   # doctest: +SKIP
[('a', 'b'), ('', 'c')]
"""
from __future__ import annotations

import itertools
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._fast import plain_strings
from .text_lists import TextList

__all__ = ["BlankTable", "answer_lists", "answers_from_columns", "blank_table", "blank_texts", "from_columns",
           "is_table", "table_stream", "text_array"]

#: What to pass, said by every refusal of a source that is neither answers nor columns.
WHAT_TO_PASS = ("pass answers (a list of answers, each a list of blanks or a string), or blank columns: "
                "a pyarrow Table/RecordBatch, a list of Arrow arrays (one per blank), or a pandas/polars "
                "DataFrame of the blank columns")


@dataclass
class BlankTable:
    """The answers of ``n_rows`` rows, as the engine scores them: blank columns in
    ``groups``, or Python ``answers``.

    ``groups`` are ``(rows, columns)`` each: the rows of the table it holds (an index
    array, increasing; ``None``: every row, in order) and their blank columns, one per
    blank (none for answers without blanks): Arrow text arrays or chunked arrays (see
    :func:`text_array`), or :class:`~.text_lists.TextList` columns of Python strings. A
    table whose answers all have as many blanks is one group of every row; a table of no
    rows has no group. ``answers``, when not ``None``, is a list of Python answers (each a
    string or a list of blanks, read in place; anything else fails its own answer), and
    ``groups`` is empty."""

    n_rows: int
    groups: list[tuple[np.ndarray | None, list[Any]]]
    answers: list[Any] | None = None

    @classmethod
    def of_answers(cls, answers: list[Any]) -> BlankTable:
        """A table of Python answers (the list itself, not copied)."""
        return cls(len(answers), [], answers)

    def slice(self, start: int, stop: int) -> BlankTable:
        """Rows ``start:stop`` (the columns sliced, not copied)."""
        if self.answers is not None:
            return BlankTable(stop - start, [], self.answers[start:stop])
        groups: list[tuple[np.ndarray | None, list[Any]]] = []
        for rows, columns in self.groups:
            if rows is None:
                groups.append((None, [c.slice(start, stop - start) for c in columns]))
                continue
            first, last = np.searchsorted(rows, [start, stop])
            if last > first:
                groups.append((rows[first:last] - start, [c.slice(first, last - first) for c in columns]))
        return BlankTable(stop - start, groups)

    def chunks(self, size: int) -> Iterator[BlankTable]:
        """The table ``size`` rows at a time."""
        for start in range(0, self.n_rows, size):
            yield self.slice(start, min(self.n_rows, start + size))


def is_table(source: Any) -> bool:
    """Whether ``source`` is a table (Arrow, a DataFrame, an Arrow C stream) rather than
    one answer or a list of answers: what tells a stream of tables from a stream of answers."""
    if isinstance(source, BlankTable):
        return True
    if isinstance(source, (str, bytes, list, tuple, Mapping)):
        return False
    return _is_arrow(source) or hasattr(source, "__arrow_c_stream__") or hasattr(source, "__dataframe__")


def blank_table(source: Any, reads: Collection[int] | None = None,
                need: tuple[int, bool] | None = None) -> BlankTable | None:
    """``source`` as a :class:`BlankTable` when it is held whole: Python answers (a list
    or tuple of answers: ``answers``), or blank columns (groups; a pandas DataFrame whose
    object columns hold values that are not text gives its answers as Python lists, see
    :class:`_OddCells`). ``None`` when ``source`` is a stream: any other iterable, read as
    it comes (see :func:`table_stream`). Raises ``TypeError`` (saying what to pass) for a
    mapping or a DataFrame-like object it cannot read, or for columns that do not hold
    text, and ``ValueError`` for blank columns of different lengths.

    ``reads``, when given, are the only blanks (0-based) the rule to score reads
    (:attr:`coscore.engine.Plan.blanks_read`): the other columns of a DataFrame are
    checked but not converted, and stand as empty blanks (the rule never sees them).

    ``need`` — how many blanks the rule reads (:class:`coscore.expr.reads.BlankNeed`) —
    guards a table whose columns are named (a DataFrame, an Arrow table): when it has more
    columns than the rule reads and one of them looks like student ids or groups (学号,
    班级, ``id``, ``class``…), the whole sheet, not its blank columns, was given: a
    ``ValueError`` says to pass the blank columns (a list of Arrow arrays is taken as given)."""
    if isinstance(source, BlankTable):
        return source
    if need is not None:
        _check_named_columns(source, need)
    if isinstance(source, Mapping):
        raise TypeError(f"cannot score a {type(source).__name__}: {WHAT_TO_PASS}")
    if isinstance(source, list) and source and _is_column(source[0]):
        return from_columns([_as_column(c) for c in source], reads, cast=not all(_is_arrow(c) for c in source))
    if isinstance(source, list):
        return BlankTable.of_answers(source)
    if isinstance(source, tuple):
        return BlankTable.of_answers(list(source))
    if isinstance(source, (str, bytes)):
        return None
    if _is_arrow(source) and hasattr(source, "columns") and hasattr(source, "num_rows"):
        return from_columns(list(source.columns), reads)
    if _is_arrow(source) and hasattr(source, "read_all"):   # a RecordBatchReader: read whole
        return from_columns(list(source.read_all().columns), reads)
    if _is_arrow(source) and hasattr(source, "type"):       # one Arrow array: one blank
        return from_columns([source], reads)
    frame = _frame(source, reads)
    if isinstance(frame, _OddCells):
        return BlankTable.of_answers(frame.answers())
    if isinstance(frame, list):
        return from_columns(frame, reads, cast=True)
    if frame is not None:
        return from_columns(list(frame.columns), reads, cast=True)
    if hasattr(source, "columns") and (hasattr(source, "dtypes") or hasattr(source, "schema")):
        raise TypeError(f"cannot read the {type(source).__name__} as Arrow columns: {WHAT_TO_PASS}")
    return None


def _check_named_columns(source: Any, need: tuple[int, bool]) -> None:
    """Refuse a table with named columns that is a whole sheet rather than its blank
    columns: more columns than the rule reads (or any number, for ``'*'``), one of them
    named like student ids or groups (see :func:`blank_table`)."""
    if isinstance(source, (str, bytes, list, tuple, Mapping)):
        return
    names = getattr(source, "column_names", None) if _is_arrow(source) else None
    if names is None and hasattr(source, "columns") and (hasattr(source, "dtypes") or hasattr(source, "schema")):
        names = [str(c) for c in source.columns]
    count, any_number = need
    if names is None or (len(names) <= count and not any_number):
        return   # at most the blanks the rule reads: the columns were chosen
    from ..io.identifiers import kind_of_name

    for name in names:
        kind = kind_of_name(str(name))
        if kind is not None:
            listed = ", ".join(repr(str(n)) for n in names[:8]) + (", ..." if len(names) > 8 else "")
            reads = "any number of blanks" if any_number else f"{count} blank{'s' * (count != 1)}"
            raise ValueError(f"column {str(name)!r} looks like {kind}, not a blank, and the rule reads {reads} of "
                             f"the table's {len(names)} columns ({listed}): pass only the blank columns, in order "
                             f"(e.g. df[['q1_a', 'q1_b']])")


def table_stream(source: Any, reads: Collection[int] | None, chunk_size: int,
                 need: tuple[int, bool] | None = None) -> tuple[Iterator[BlankTable], bool]:
    """``source`` as a stream of :class:`BlankTable` chunks, and whether they hold Python
    answers (cut here from a stream, to be scored by the caller's thread as they come)
    rather than columns. A table held whole (:func:`blank_table`) is cut into chunks of
    ``chunk_size`` rows; an Arrow ``RecordBatchReader`` gives its batches; a stream (or
    a list) of tables gives each table as one chunk; any other stream of answers is cut
    into lists of ``chunk_size`` answers."""
    if isinstance(source, Iterator):   # a stream: of tables when its first item is one
        first = next(source, _END)
        if first is _END:
            return iter(()), True
        if is_table(first):
            return _each_table(itertools.chain([first], source), reads, need), False
        return _answer_chunks(itertools.chain([first], source), chunk_size), True
    if isinstance(source, list) and source and is_table(source[0]) and not _is_column(source[0]):
        return _each_table(source, reads, need), False
    if _is_arrow(source) and hasattr(source, "read_next_batch"):   # an Arrow RecordBatchReader: its batches
        if need is not None:
            _check_named_columns(source.schema, need)
        return _each_table(source, reads, None), False
    table = blank_table(source, reads, need)
    if table is None:
        return _answer_chunks(source, chunk_size), True
    return table.chunks(chunk_size), table.answers is not None


_END = object()


def _each_table(tables: Iterable[Any], reads: Collection[int] | None,
                need: tuple[int, bool] | None) -> Iterator[BlankTable]:
    for source in tables:
        table = blank_table(source, reads, need) if is_table(source) else None
        if table is None:
            raise TypeError(f"a stream of tables holds a {type(source).__name__}: each item must be a "
                            f"table of blank columns (see coscore.pipeline.tables)")
        yield table


def _answer_chunks(answers: Iterable[Any], size: int) -> Iterator[BlankTable]:
    """A stream of answers as tables of ``size`` answers (the last one shorter)."""
    iterator = iter(answers)
    while True:
        chunk = list(itertools.islice(iterator, size))
        if not chunk:
            return
        yield BlankTable.of_answers(chunk)


def _frame(source: Any, reads: Collection[int] | None = None) -> Any:
    """A pyarrow Table of a DataFrame (polars, …) or of an Arrow C stream; a one column
    table for a Series; the columns of a pandas DataFrame (see :func:`_pandas_columns`),
    or :class:`_OddCells` when its object columns hold values that are not text;
    ``None`` for anything else."""
    if not (hasattr(source, "__arrow_c_stream__") or hasattr(source, "__dataframe__")):
        return None   # answers: pyarrow is not imported for them
    import pyarrow as pa

    if _is_pandas_frame(source):
        return _pandas_columns(source, reads)
    if hasattr(source, "__arrow_c_stream__"):
        try:
            return pa.table(source)
        except (TypeError, ValueError, pa.ArrowException) as exc:
            if hasattr(source, "columns"):
                raise TypeError(f"cannot read the {type(source).__name__} as Arrow columns ({exc}): "
                                f"{WHAT_TO_PASS}") from None
        try:   # a stream of one column (a Series): one blank
            return pa.table({"blank": pa.chunked_array(source)})
        except (TypeError, ValueError, pa.ArrowException):
            return None   # odd values: its items are taken as answers, each failing on its own
    if hasattr(source, "__dataframe__"):
        import pyarrow.interchange

        try:
            return pyarrow.interchange.from_dataframe(source)
        except (TypeError, ValueError, NotImplementedError, pa.ArrowException) as exc:
            raise TypeError(f"cannot read the {type(source).__name__} as Arrow columns ({exc}): "
                            f"{WHAT_TO_PASS}") from None
    return None


class _OddCells:
    """A pandas DataFrame whose object columns hold values Arrow cannot take as text: its
    answers as Python lists of blanks, a null cell (``None``, NaN) the empty blank, every
    other value kept, so that it fails its own answer only (as a blank that is not a
    ``str`` does)."""

    def __init__(self, frame: Any):
        self.frame = frame

    def answers(self) -> list[list[Any]]:
        import pandas as pd

        columns = []
        for name in self.frame.columns:
            values = self.frame[name].astype(object).tolist()
            columns.append(["" if v is None or (not isinstance(v, (str, list, tuple)) and pd.isna(v)) else v
                            for v in values])
        return [list(row) for row in zip(*columns)] if columns else [[] for _ in range(len(self.frame))]


def _pandas_columns(frame: Any, reads: Collection[int] | None) -> Any:
    """The columns of a pandas DataFrame, or :class:`_OddCells` when an object column
    the rule reads holds values Arrow cannot take as text. A column of Python strings
    (``object``, or ``category`` of them) is kept as those strings (:class:`TextList`:
    ``None`` and NaN are ``""``); every other column is as Arrow takes it (text,
    categories, numbers). A text, object or category column outside ``reads`` is not
    looked at (a rule does not see what a blank it does not read holds)."""
    import pandas as pd
    import pyarrow as pa

    columns: list[Any] = []
    for i in range(frame.shape[1]):
        column = frame.iloc[:, i]
        if reads is not None and i not in reads and (
                column.dtype == object or isinstance(column.dtype, (pd.CategoricalDtype, pd.StringDtype))):
            columns.append(TextList.empty(len(column)))   # not read, so not looked at (as a list's blank)
            continue
        strings = _python_strings(column)
        if strings is not None:
            columns.append(strings)
        elif column.dtype == object:
            try:
                columns.append(pa.array(column, type=pa.string(), from_pandas=True))
            except (TypeError, ValueError, pa.ArrowException):
                return _OddCells(frame)
        else:
            columns.append(pa.array(column, from_pandas=True))
    return columns


def _python_strings(column: Any) -> TextList | None:
    """A pandas column of Python strings (``object``; ``category`` of such categories) as a
    :class:`TextList`, else ``None``."""
    import pandas as pd
    from pandas.api.types import infer_dtype

    kind = column.dtype
    if isinstance(kind, pd.CategoricalDtype):
        if kind.categories.dtype != object:   # numbers, or pandas' own text: as Arrow takes them
            return None
        categories = np.ascontiguousarray(kind.categories.to_numpy())
        if plain_strings(categories) != len(categories):
            return None
        values = np.empty(len(categories) + 1, dtype=object)   # code -1 (a missing value) is the last: ""
        values[:-1] = categories
        values[-1] = ""
        return TextList(values[column.cat.codes.to_numpy()])
    if kind != object:  # noqa: E721 - a numpy dtype, equal to object or not
        return None
    values = np.ascontiguousarray(column.to_numpy())
    if plain_strings(values) == len(values):   # strings, none missing: checked in C
        return TextList(values)
    if infer_dtype(values, skipna=True) not in ("string", "empty"):
        return None
    values = values.copy()
    values[pd.isna(values)] = ""
    return TextList(values)


def _is_pandas_frame(source: Any) -> bool:
    return type(source).__module__.startswith("pandas") and hasattr(source, "iloc") and hasattr(source, "columns")


def from_columns(columns: list[Any], reads: Collection[int] | None = None, cast: bool = False) -> BlankTable:
    """Blank columns (Arrow arrays or chunked arrays of text, :class:`~.text_lists.TextList`
    columns; with ``cast``, numbers and booleans too, written as text) as a
    :class:`BlankTable`; ONE column of lists of text is each row's blanks. The columns
    a rule does not read (outside ``reads``) are checked, not converted."""
    n = len(columns[0]) if columns else 0
    if any(len(c) != n for c in columns):
        raise ValueError(f"the blank columns differ in length: {[len(c) for c in columns]}")
    if len(columns) == 1 and _is_lists(columns[0]):
        return BlankTable(n, _groups(columns[0]))
    read = [reads is None or i in reads for i in range(len(columns))]
    for column, wanted in zip(columns, read):
        if not wanted and not isinstance(column, TextList):
            _check_text(column, cast)
    if any(read) and all(isinstance(c, TextList) for c, wanted in zip(columns, read) if wanted):
        texts = [c if wanted else TextList.empty(n) for c, wanted in zip(columns, read)]
    else:   # Arrow text: Python strings encoded, the columns not read empty
        texts = [text_array(_arrow_text(c), cast) if wanted else _null_text(n) for c, wanted in zip(columns, read)]
    return BlankTable(n, [(None, texts)] if n else [])


def _arrow_text(column: Any) -> Any:
    import pyarrow as pa

    if not isinstance(column, TextList):
        return column
    return pa.array(column.values, type=pa.string()) if column.values is not None else _null_text(len(column))


def _null_text(n: int) -> Any:
    import pyarrow as pa

    return pa.nulls(n, pa.string())


def text_array(column: Any, cast: bool = False) -> Any:
    """One blank column as Arrow text that :class:`~coscore._fast.BlankColumns` reads as it
    is: ``string``, ``large_string``, ``string_view`` or a dictionary of them (none is
    decoded or copied); an all-null column made an all-null string column; with ``cast``,
    numbers and booleans (a dictionary of them decoded first) written as text. Raises
    ``TypeError`` for a column that does not hold text."""
    import pyarrow as pa

    kind = _check_text(column, cast)
    if pa.types.is_null(kind):
        return pa.nulls(len(column), pa.string())
    value = kind.value_type if pa.types.is_dictionary(kind) else kind
    if pa.types.is_string(value) or pa.types.is_large_string(value) or _is_string_view(pa, value):
        return column
    if pa.types.is_dictionary(kind):
        column = column.cast(value)
    return column.cast(pa.string())


def _check_text(column: Any, cast: bool) -> Any:
    """The Arrow type of ``column`` when :func:`text_array` can make it text; else ``TypeError``."""
    import pyarrow as pa

    if not _is_arrow(column) or not hasattr(column, "type"):
        raise TypeError(f"a blank column must be an Arrow array, not {type(column).__name__}")
    kind = column.type
    if pa.types.is_null(kind):
        return kind
    value = kind.value_type if pa.types.is_dictionary(kind) else kind
    if _is_string_view(pa, value) or pa.types.is_string(value) or pa.types.is_large_string(value):
        return kind
    if cast and (pa.types.is_integer(value) or pa.types.is_floating(value) or pa.types.is_boolean(value)
                 or pa.types.is_decimal(value)):
        return kind
    raise TypeError(f"a blank column must hold text, this one holds {value}")


def blank_texts(column: Any) -> list[str]:
    """One blank column as a list of ``str``, nulls as ``""``.

    ``column`` is an Arrow array or chunked array of strings (see :func:`text_array`), or
    a sequence of ``str``/``None``. Raises ``TypeError`` for a column that does not hold text.
    """
    if not _is_arrow(column):
        values = list(column)
        if all(type(v) is str for v in values):
            return values
        for v in values:
            if v is not None and not isinstance(v, str):
                raise TypeError(f"a blank must be a string, got {type(v).__name__} {v!r}")
        return ["" if v is None else v for v in values]
    column = text_array(column)
    values = column.to_pylist()
    return ["" if v is None else v for v in values] if column.null_count else values


def answers_from_columns(columns: Sequence[Any]) -> list[Any]:
    """The answers of equally long blank ``columns``: each answer's text for one column,
    else a tuple of its blanks. Raises ``TypeError``/``ValueError`` for a column that does
    not hold text or columns of different lengths."""
    texts = [blank_texts(c) for c in columns]
    if not texts:
        return []
    n = len(texts[0])
    if any(len(t) != n for t in texts):
        raise ValueError(f"the blank columns differ in length: {[len(t) for t in texts]}")
    if len(texts) == 1:
        return texts[0]
    return list(zip(*texts))


def answer_lists(source: Any) -> list[list[str]]:
    """The answers of blank columns (anything :func:`blank_table` reads as columns) as
    Python lists of blanks, a null cell ``""``: for a front that needs them one by one."""
    table = blank_table(source)
    if table is None or table.answers is not None:
        raise TypeError(f"not blank columns: {type(source).__name__}")
    answers: list[Any] = [None] * table.n_rows
    for rows, columns in table.groups:
        columns = [column if isinstance(column, TextList) else text_array(column, cast=True) for column in columns]
        found = answers_from_columns(columns) if columns else [()] * (table.n_rows if rows is None else len(rows))
        made = [[a] if isinstance(a, str) else list(a) for a in found]
        if rows is None:
            answers = made
        else:
            for row, answer in zip(rows.tolist(), made):
                answers[row] = answer
    return answers


def _is_lists(column: Any) -> bool:
    import pyarrow as pa

    kind = getattr(column, "type", None)
    return kind is not None and (pa.types.is_list(kind) or pa.types.is_large_list(kind))


def _groups(lists: Any) -> list[tuple[np.ndarray | None, list[Any]]]:
    """The rows of a column of lists of blanks grouped by their number of blanks, fewest
    first: each group's rows and blank columns (none for answers without blanks).
    Raises ``TypeError`` for a column that is not lists of text or has a null list."""
    import pyarrow as pa

    from ..io.arrays import text_lists  # pyarrow: imported when a table is scored, not with the rule

    if isinstance(lists, pa.ChunkedArray):
        lists = lists.combine_chunks()
    if not text_lists(lists):
        raise TypeError(f"a column of answers must hold lists of text, without null lists; this one holds "
                        f"{lists.type}{' with nulls' if lists.null_count else ''}")
    if not len(lists):
        return []
    offsets = np.asarray(lists.offsets)
    widths = np.diff(offsets)
    values = lists.values
    if pa.types.is_null(lists.type.value_type):
        values = pa.nulls(len(values), pa.string())
    if (widths == widths[0]).all():   # one group: every row, its blanks at a fixed stride
        width = int(widths[0])
        if width == 1:
            return [(None, [values.slice(int(offsets[0]), len(lists))])]
        starts = offsets[:-1].astype(np.int64)
        return [(None, [_take(values, starts + j) for j in range(width)])]
    groups: list[tuple[np.ndarray | None, list[Any]]] = []
    for width in np.unique(widths):
        rows = np.flatnonzero(widths == width)
        starts = offsets[:-1][rows].astype(np.int64)
        groups.append((rows, [_take(values, starts + j) for j in range(int(width))]))
    return groups


def _take(values: Any, index: np.ndarray) -> Any:
    import pyarrow as pa
    import pyarrow.compute as pc

    return pc.take(values, pa.array(index))


def _as_column(column: Any) -> Any:
    """An Arrow array, chunked array, or an object exposing the Arrow C array/stream
    interface (a pandas or polars Series) as an Arrow (chunked) array."""
    if _is_arrow(column):
        return column
    import pyarrow as pa

    if hasattr(column, "__arrow_c_array__"):
        return pa.array(column)
    return pa.chunked_array(column)


def _is_column(value: Any) -> bool:
    return (_is_arrow(value) and hasattr(value, "type")) or hasattr(value, "__arrow_c_array__") \
        or (hasattr(value, "__arrow_c_stream__") and not hasattr(value, "columns"))


def _is_arrow(value: Any) -> bool:
    return type(value).__module__.startswith("pyarrow")


def _is_string_view(pa: Any, kind: Any) -> bool:
    check = getattr(pa.types, "is_string_view", None)  # pyarrow >= 16
    return bool(check and check(kind))
