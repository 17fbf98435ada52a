"""A data file read whole for the rule author's tools (``explain``, ``report``, ``compare``):
its answers, the teacher's marks and every other column, row by row.

Rows are numbered from 1 in file order; ``places`` says where each row is in its file
(``{"line": n}`` or ``{"row": n}``), for messages.
"""
from __future__ import annotations

import bisect
import functools
import hashlib
import math
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .io import AnswerColumns, InputError, format_of, open_reader
from .io.identifiers import id_column as id_of
from .marks import MISSING_MARKS, mark_column, number_column
from .pipeline.tables import answer_lists

if TYPE_CHECKING:
    from .results import Batch
    from .rule import Rule

#: Columns ``coscore score`` adds; never taken as blanks.
RESULT_PREFIX = "coscore_"


class Rows(Sequence[Any]):
    """The values of one column over consecutive chunks, as one sequence. Each chunk's part
    is kept as it came (an Arrow array, a list, or a function making the list) and made a
    Python list only when one of its items is read."""

    def __init__(self) -> None:
        self._parts: list[Any] = []
        self._starts: list[int] = []
        self._size = 0
        self._lists: dict[int, list[Any]] = {}

    def add(self, part: Any, size: int) -> None:
        """Append ``size`` values: a list, an Arrow array, or a function returning the list."""
        self._parts.append(part)
        self._starts.append(self._size)
        self._size += size

    def parts(self) -> Iterator[tuple[int, Any]]:
        """Each part as it was added (a function's list made now), with the index of its first value."""
        for k, start in enumerate(self._starts):
            part = self._parts[k]
            yield start, part() if callable(part) else part

    def _list(self, k: int) -> list[Any]:
        part = self._parts[k]
        if isinstance(part, list):
            return part
        if k not in self._lists:  # the part itself is kept: parts() still gives the Arrow array
            self._lists[k] = part() if callable(part) else part.to_pylist()
        return self._lists[k]

    def __len__(self) -> int:
        return self._size

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._size))]
        if index < 0:
            index += self._size
        if not 0 <= index < self._size:
            raise IndexError(index)
        k = bisect.bisect_right(self._starts, index) - 1
        return self._list(k)[index - self._starts[k]]

    def __iter__(self) -> Iterator[Any]:
        for k in range(len(self._parts)):
            yield from self._list(k)

    def take(self, indices: np.ndarray) -> Rows:
        """The values at ``indices`` (ascending), as new :class:`Rows`: each part keeps its
        kind (an Arrow array is taken from, a function stays lazy)."""
        out = Rows()
        ends = np.asarray([*self._starts[1:], self._size], dtype=np.int64)
        bounds = np.searchsorted(indices, ends, side="left")
        first = 0
        for k, start in enumerate(self._starts):
            local = indices[first:bounds[k]] - start
            first = int(bounds[k])
            if local.size:
                out.add(_picked(self._parts[k], local), int(local.size))
        return out


def _picked(part: Any, local: np.ndarray) -> Any:
    """The values of one part of :class:`Rows` at the positions ``local``, of the same kind."""
    if callable(part):
        return functools.partial(_picked_list, part, local)
    if isinstance(part, list):
        return [part[j] for j in local.tolist()]
    import pyarrow as pa

    return part.take(pa.array(local))


def _picked_list(make: Callable[[], list[Any]], local: np.ndarray) -> list[Any]:
    values = make()
    return [values[j] for j in local.tolist()]


class _Ids(Sequence[str]):
    """The ``id`` column as text, read row by row as asked."""

    def __init__(self, values: Rows) -> None:
        self._values = values

    def __len__(self) -> int:
        return len(self._values)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        value = self._values[index]
        return "" if value is None else str(value)


@dataclass
class Table:
    """A data file in memory: ``answers[i]`` (blanks), ``columns`` (name -> values) and,
    with a label, ``marks`` (floats, NaN where empty). Columns, answers and places are
    :class:`Rows`: kept as the reader gave them (Arrow arrays where it could), a value
    made a Python object only when it is read. ``blanks`` are the answers as the engine
    scores them (:meth:`coscore.io.AnswerColumns.select` of each chunk, joined):
    :meth:`score` scores them."""

    source: str
    columns: dict[str, Rows]
    answers: Rows
    places: Rows
    label: str | None
    marks: np.ndarray
    blanks: Any = None
    #: For a :meth:`subset`, the 0-based row of the file that each row is (``None``: row
    #: ``i`` is the file's row ``i``).
    origin: np.ndarray | None = None
    #: The column that names each row (``--id``; ``None``: ``id``, ``学号``… when there is one).
    id_column: str | None = None
    #: The columns left out of the default blanks: they look like identifiers or groups.
    skipped: tuple[tuple[str, str], ...] = ()
    #: What a mark that is not a number does (:data:`MISSING_MARKS`): ``error`` stops at it,
    #: ``skip`` leaves its row out (:meth:`marks_of`, :func:`left_out`).
    missing_marks: str = "error"

    def __len__(self) -> int:
        return len(self.answers)

    def row_number(self, i: int) -> int:
        """The number of row ``i`` in its file (1 = the first answer)."""
        return int(self.origin[i]) + 1 if self.origin is not None else i + 1

    def subset(self, rows: np.ndarray) -> Table:
        """The rows at ``rows`` (0-based, ascending) as a table of their own, each keeping its
        number in the file (:meth:`row_number`, and the ids when there is no ``id`` column)."""
        rows = np.asarray(rows, dtype=np.int64)
        origin = self.origin[rows] if self.origin is not None else rows
        blanks = self.blanks.take(rows) if self.blanks is not None else None
        return Table(self.source, {name: values.take(rows) for name, values in self.columns.items()},
                     self.answers.take(rows), self.places.take(rows), self.label, self.marks[rows], blanks, origin,
                     self.id_column, self.skipped, self.missing_marks)

    def score(self, rule: Rule) -> Batch:
        """Every answer scored by ``rule``: its :class:`~coscore.results.Batch`, in row order."""
        if self.blanks is None:
            return rule.score_many(list(self.answers))
        return rule.score_many(list(self.blanks.columns))   # the columns as chosen, in order (not a table)

    @property
    def ids(self) -> Sequence[str]:
        """The id column (:attr:`id_column`) as text, or the row numbers when there is none."""
        column = self.id_column if self.id_column is not None else id_of(list(self.columns))
        if column is not None and column in self.columns:
            return _Ids(self.columns[column])
        return [str(self.row_number(i)) for i in range(len(self))]

    def numbers(self, column: str, lenient: bool = False) -> np.ndarray:
        """``column`` as floats (NaN where empty); :class:`InputError` names a bad cell
        (``lenient``: a cell that is not a number is NaN too)."""
        if column not in self.columns:
            raise InputError(self.source, f"no such column (columns: {', '.join(self.columns)})", column=column)
        out = np.empty(len(self), dtype=np.float64)
        places = self.places
        for start, part in self.columns[column].parts():
            def where(j: int, start: int = start) -> dict[str, int]:
                return places[start + j]

            out[start : start + len(part)] = number_column(part, self.source, column, where, lenient)
        return out

    def marks_of(self, column: str, what: str = "mark") -> np.ndarray:
        """``column`` as marks, by :attr:`missing_marks` (:func:`mark_column`)."""
        return mark_column(self, column, self.missing_marks, what)


def read_table(
    path: str | os.PathLike[str],
    fmt: str | None = None,
    blanks: Sequence[str] | None = None,
    label: str | None = None,
    exclude: Sequence[str] = (),
    *,
    need: tuple[int, bool] | None = None,
    reader_name: str = "the rule",
    id_column: str | None = None,
    missing_marks: str = "error",
    **reading: Any,
) -> Table:
    """Read ``path`` whole. Blank columns: ``blanks``, else the columns but ``id``, the
    label, ``exclude``, ``coscore score``'s result columns and those that look like
    identifiers or groups, taken only when they fit ``need`` — how many blanks the rule to
    score (``reader_name``) reads (:meth:`coscore.io.AnswerColumns.resolve`). ``id_column``
    names the rows (``--id``; default ``id`` or ``学号``… when the file has one).
    ``reading`` are the options of :func:`coscore.io.open_reader` (``encoding``, ``sheet``,
    ``max_cell_chars``, …). A CSV/TSV whose header is ``text`` or ``text,score`` is read in
    the original CoScore layout, and so is the ``text`` column of a file ``coscore score``
    wrote from that layout (``text``, ``score`` and ``coscore_*`` columns: blanks split on
    ``-``, the mark in ``score``). The marks are :func:`mark_column`'s (``missing_marks``:
    what a mark that is not a number does)."""
    try:
        chosen = fmt or format_of(path)
    except ValueError as exc:
        raise InputError(str(path), str(exc)) from None
    if chosen in ("csv", "tsv") and not blanks:
        with open_reader(path, chosen, 1, **_quiet(reading)) as reader:
            if reader.columns in (["text"], ["text", "score"]):
                chosen = "coscore"
    with open_reader(path, chosen, **reading) as reader:
        source = reader.source
        legacy = False  # a file 'coscore score' wrote from the original layout: split 'text' on '-'
        if not blanks and chosen not in ("coscore", "jsonl"):
            own = [c for c in reader.columns if not c.startswith(RESULT_PREFIX)]
            legacy = own in (["text"], ["text", "score"]) and len(own) < len(reader.columns) \
                and label in (None, "score") and not exclude
            label = "score" if legacy and "score" in own else label
        if id_column is not None and id_column not in reader.columns and chosen != "jsonl":
            raise InputError(source, f"no such column (the --id column; columns: {', '.join(reader.columns)})",
                             column=id_column)
        chunks = iter(reader.chunks())
        first = next(chunks, None)   # its rows tell a column of student ids from a blank
        if legacy:
            how = AnswerColumns("coscore", (), label)
        else:
            how = AnswerColumns.resolve(chosen, source, reader.columns, blanks, label,
                                        exclude=[*exclude, *([id_column] if id_column else [])], need=need,
                                        sample=first, reader=reader_name, required=False,
                                        header_at=getattr(reader, "header_row", None))
        columns, places, [(answers, selected)] = _read_whole(_again(first, chunks), [how.select])
    table = _marked_table(source, columns, places, answers, selected, how.label, missing_marks)
    table.id_column = id_of(list(columns), id_column)
    table.skipped = how.skipped
    return table


def _again(first: Any, chunks: Iterator[Any]) -> Iterator[Any]:
    """``first`` (unless ``None``: no chunk), then the rest of ``chunks``."""
    if first is not None:
        yield first
    yield from chunks


def read_tables(
    path: str | os.PathLike[str],
    fmt: str | None,
    choices: Sequence[tuple[Sequence[str], str | None]],
    *,
    missing_marks: str = "error",
    **reading: Any,
) -> list[Table]:
    """Read ``path`` whole once, for several sets of blank columns (the items of an exam):
    one :class:`Table` per ``(blanks, label)`` of ``choices``, each as :func:`read_table`
    with those ``blanks`` and that ``label`` gives it, all sharing the file's columns and
    places (read once). ``blanks`` may not be empty; ``missing_marks`` as for
    :func:`read_table`. Raises :class:`~coscore.io.InputError` naming the first column
    missing."""
    try:
        chosen = fmt or format_of(path)
    except ValueError as exc:
        raise InputError(str(path), str(exc)) from None
    with open_reader(path, chosen, **reading) as reader:
        source = reader.source
        hows = [AnswerColumns.resolve(chosen, source, reader.columns, list(blanks), label,
                                      header_at=getattr(reader, "header_row", None))
                for blanks, label in choices]
        columns, places, picked = _read_whole(reader.chunks(), [how.select for how in hows])
    return [_marked_table(source, columns, places, answers, selected, how.label, missing_marks)
            for how, (answers, selected) in zip(hows, picked)]


def _read_whole(chunks: Iterable[Any], selects: Sequence[Callable[[Any], list[Any]]]
                ) -> tuple[dict[str, Rows], Rows, list[tuple[Rows, list[Any]]]]:
    """Every chunk of ``chunks`` (a reader's): its columns and places, and for each of
    ``selects`` (an :meth:`AnswerColumns.select`) the answers and the blank columns it picks."""
    columns: dict[str, Rows] = {}
    places = Rows()
    picked: list[tuple[Rows, list[Any]]] = [(Rows(), []) for _ in selects]
    for chunk in chunks:
        n = len(chunk)
        before = len(places)
        for select, (answers, selected) in zip(selects, picked):
            blanks = select(chunk)   # checked now: a bad value is an error now
            selected.append(blanks)
            answers.add(functools.partial(answer_lists, blanks), n)
        for name in chunk.columns:
            if name not in columns:
                columns[name] = Rows()
                if before:
                    columns[name].add(_nulls(before), before)
            columns[name].add(chunk.data[name], n)
        for name, values in columns.items():
            if name not in chunk.data:
                values.add(_nulls(n), n)
        places.add(functools.partial(_places, chunk.lines, chunk.unit, n), n)
    return columns, places, picked


def _marked_table(source: str, columns: dict[str, Rows], places: Rows, answers: Rows, selected: list[Any],
                  label: str | None, missing_marks: str = "error") -> Table:
    """The :class:`Table` of what :func:`_read_whole` read, with the marks of ``label``
    (:func:`mark_column`)."""
    if missing_marks not in MISSING_MARKS:
        raise ValueError(f"missing_marks must be one of {', '.join(MISSING_MARKS)}, not {missing_marks!r}")
    table = Table(source, columns, answers, places, label, np.full(len(answers), math.nan), _joined(selected))
    table.missing_marks = missing_marks
    if label is not None:
        if label not in columns and len(answers):
            raise InputError(source, "no such column", column=label)
        if label in columns:
            table.marks = table.marks_of(label)
    return table


def read_marked(
    path: str | os.PathLike[str],
    fmt: str | None = None,
    blanks: Sequence[str] | None = None,
    label: str = "score",
    exclude: Sequence[str] = (),
    **options: Any,
) -> Table:
    """:func:`read_table` of a file that must have the mark column ``label`` (``options``:
    its ``need``, ``reader_name``, ``id_column`` and reading options): an
    :class:`~coscore.io.InputError` naming the columns it has when it has not."""
    table = read_table(path, fmt, blanks, label, exclude, **options)
    if table.label is None or table.label not in table.columns:
        raise InputError(table.source, f"no such column (columns: {', '.join(table.columns)})", column=label)
    return table


def _joined(selected: list[list[Any]]) -> Any:
    """The chunks' blank columns (each chunk's list of arrays) as one table (their types
    unified where chunks differ)."""
    import pyarrow as pa

    if not selected:
        return None
    try:
        tables = [pa.table(columns, names=_blank_names(columns)) for columns in selected]
        return pa.concat_tables(tables, promote_options="permissive")
    except (pa.ArrowException, TypeError):   # e.g. a JSON Lines file mixing 'answer' and 'answers'
        return None


def _blank_names(columns: list[Any]) -> list[str]:
    """``blank0``, ``blank1``… for blank columns; ``answers`` for one column of lists of blanks."""
    import pyarrow as pa

    if len(columns) == 1 and (pa.types.is_list(columns[0].type) or pa.types.is_large_list(columns[0].type)):
        return ["answers"]
    return [f"blank{i}" for i in range(len(columns))]


def _nulls(size: int) -> Any:
    import pyarrow as pa

    return pa.nulls(size)


def _places(lines: Sequence[int], unit: str, size: int) -> list[dict[str, int]]:
    return [{unit: lines[i]} for i in range(size)]


def _quiet(reading: dict[str, Any]) -> dict[str, Any]:
    """``reading`` for a first look at a file: what ``auto`` chose is said once, when it is read."""
    return {**reading, "on_encoding": None, "on_header": None}


def file_hash(path: str | os.PathLike[str]) -> str:
    """The SHA-256 of a file's bytes, as hex (names a rule version in reports)."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 16), b""):
            digest.update(block)
    return digest.hexdigest()
