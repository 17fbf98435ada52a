"""Tables of answers scored chunk by chunk, by one rule's plan or several side by side,
with the one read-ahead.

A chunk's work (:class:`Work`) is each plan with the :class:`~.tables.BlankTable` it
scores. Each table is cut into *units*: the rows of one group (one number of blanks),
or a run of Python answers, as many as the engine scores at a time. The read-ahead
(:func:`~coscore.pipeline.stages.read_ahead`) runs in two stages, a thread each: one
takes the next chunk from its source — for the command, the file reader parses it there
and its columns are picked — and the next reads each unit's texts in C without the GIL
(:func:`coscore.engine.chunk.read_texts`), while this thread scores the unit before
(:func:`coscore.engine.chunk.score_texts`). With more threads, each unit — of any plan
of any chunk — is read and scored on a thread of the pool
(:func:`coscore.engine.schedule.in_order`). Each unit's results go straight to its rows
of its plan's :class:`~coscore.engine.builder.BatchBuilder` for the chunk.

:func:`score_work` is the one loop: every path to the engine is a call of it.
:func:`score_table` scores one table (cut into units here), :func:`score_tables` a stream
of tables, each one chunk as it comes (already sized by its source).
"""
from __future__ import annotations

from collections.abc import Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._fast import BlankColumns
from ..engine.builder import BatchBuilder, Part
from ..engine.chunk import read_texts, score_list, score_texts
from ..engine.plan import Plan
from ..engine.schedule import in_order, ranges, workers
from ..io.table import CHUNK_SIZE
from ..results import Batch
from .stages import read_ahead
from .tables import BlankTable
from .text_lists import TextColumns, TextList

__all__ = ["CHUNK_SIZE", "Work", "even_chunk_size", "score_table", "score_tables", "score_work"]

#: The fewest answers worth handing to another thread.
MIN_SHARE = 4_096


def even_chunk_size(n: int, threads: int) -> int:
    """A chunk size near :data:`CHUNK_SIZE` that cuts ``n`` answers into a multiple of
    ``threads`` chunks of equal size, so that no thread is left with the tail alone."""
    if threads <= 1:
        return CHUNK_SIZE
    count = max(1, round(n / CHUNK_SIZE))
    if count > 1 or n >= threads * MIN_SHARE:  # else one chunk: threads would not pay off
        count = -(-count // threads) * threads
    return max(1, -(-n // count))


@dataclass
class Work:
    """One chunk's work: each plan with the table it scores (of the chunk's rows, or of
    some of them), and ``context``, given back with the results (the reader's chunk)."""

    tables: Sequence[tuple[Plan, BlankTable]]
    context: Any = None
    builders: list[BatchBuilder] = field(default_factory=list)


class _Unit:
    """Rows ``start:stop`` of one group's blank columns (``columns``; ``None`` for answers
    without blanks) or of a list of Python answers (``answers``), scored by ``plan`` into
    ``part``; ``texts`` once read ahead (see :func:`~coscore.engine.chunk.read_texts`)."""

    __slots__ = ("answers", "columns", "part", "plan", "read", "start", "stop", "texts")

    def __init__(self, plan: Plan, columns: Any, answers: list[Any] | None, start: int, stop: int, part: Part):
        self.plan, self.columns, self.answers = plan, columns, answers
        self.start, self.stop, self.part = start, stop, part
        self.texts: Any = None
        self.read = False


def score_work(works: Iterable[Work], jobs: int = 1, *, unit_size: int | None = 0,
               ahead: bool = True) -> Generator[Work, None, None]:
    """Score each :class:`Work` of ``works`` and give it back, in order, its ``builders``
    (one per table, in order) holding every row's results.

    ``unit_size`` cuts each table's groups into units of that many rows (``0``: one unit
    per group; ``None``: even units for the threads ``jobs`` asks for). With ``ahead``,
    ``works`` are taken from their source by a read-ahead thread (a file reader parses
    there); with one scoring thread, the next units' texts are read by another."""
    threads = workers(jobs)

    def units() -> Iterator[Any]:
        for work in works:
            for plan, table in work.tables:
                builder = BatchBuilder(plan.combo_ids, table.n_rows)
                work.builders.append(builder)
                yield from _units(plan, table, builder, unit_size, threads)
            yield work

    yield from (item for item in _run(units(), threads, texts_ahead=ahead, taken_ahead=ahead)
                if isinstance(item, Work))


def score_table(plan: Plan, table: BlankTable, jobs: int = 1, chunk_size: int | None = None) -> Batch:
    """One :class:`~coscore.results.Batch` of every answer of ``table``, in order, scored
    ``chunk_size`` rows at a time (default: even chunks for the threads ``jobs`` asks for)."""
    if chunk_size is not None and chunk_size < 1:
        raise ValueError("chunk_size must be at least 1")
    threads = workers(jobs)
    builder = BatchBuilder(plan.combo_ids, table.n_rows)
    units = list(_units(plan, table, builder, chunk_size, threads))
    if len(units) <= 1:   # one unit (a small batch): scored here, no loop to set up
        for unit in units:
            _score(unit)
        return builder.batch()
    # the units are in memory: only their texts are read ahead, for one scoring thread
    texts_ahead = len(units) > 1 and table.answers is None
    for _ in _run(units, threads, texts_ahead=texts_ahead, taken_ahead=False):
        pass
    return builder.batch()


def score_tables(plan: Plan, tables: Iterable[BlankTable], jobs: int = 1, ahead: bool = True) -> Iterator[Batch]:
    """A :class:`~coscore.results.Batch` for each table of ``tables``, in order. Each is
    one chunk, cut no further than into its groups; with ``ahead``, the next ones are
    taken from ``tables`` (and their texts read) by the read-ahead threads while one is
    scored (without, as for Python answers cut from a stream, by this thread)."""
    for work in score_work((Work([(plan, table)]) for table in tables), jobs, ahead=ahead):
        yield work.builders[0].batch()


def _units(plan: Plan, table: BlankTable, builder: BatchBuilder, chunk_size: int | None,
           threads: int) -> Iterator[_Unit]:
    """The units of ``table``: each group's rows (or its Python answers), ``chunk_size``
    at a time (``None``: even chunks for ``threads``; ``0``: one unit per group)."""
    if table.answers is not None:
        n = table.n_rows
        size = chunk_size if chunk_size is not None else even_chunk_size(n, threads)
        for start, stop in ranges(n, size or max(n, 1)):
            yield _Unit(plan, None, table.answers, start, stop, builder.part(start, stop))
        return
    for rows, arrays in table.groups:
        n = table.n_rows if rows is None else len(rows)
        columns = _blank_columns(arrays) if arrays else None
        size = chunk_size if chunk_size is not None else even_chunk_size(n, threads)
        for start, stop in ranges(n, size or max(n, 1)):
            part = builder.part(start, stop) if rows is None else builder.part(0, rows=rows[start:stop])
            yield _Unit(plan, columns, None, start, stop, part)


def _blank_columns(arrays: list[Any]) -> Any:
    """A group's columns, read as Arrow text (:class:`~coscore._fast.BlankColumns`) or as
    the Python strings of a pandas column (:class:`~.text_lists.TextColumns`)."""
    if isinstance(arrays[0], TextList):
        return TextColumns(arrays)
    return BlankColumns(arrays)


def _run(items: Iterable[Any], threads: int, texts_ahead: bool, taken_ahead: bool) -> Iterator[Any]:
    """Score each unit of ``items`` and pass every item on, in order. The read-ahead runs
    in stages, each a thread of its own (:func:`~coscore.pipeline.stages.read_ahead`): with
    ``taken_ahead`` one takes ``items`` from their source (a file reader parses there);
    with ``texts_ahead`` (one scoring thread) the next reads each unit's texts. Two stages
    keep a reader that is busy parsing (Parquet) from holding the texts back."""
    source: Any = iter(items)
    stages = []
    if taken_ahead:
        source = read_ahead(source)
        stages.append(source)
    if texts_ahead and threads <= 1:
        source = read_ahead(_read(source))
        stages.append(source)
    try:
        if threads <= 1:
            for item in source:
                if isinstance(item, _Unit):
                    _score(item)
                yield item
        else:
            yield from in_order(source, _scored, threads)
    finally:
        for stage in reversed(stages):   # every read-ahead thread stops whenever this stops
            stage.close()


def _scored(item: Any) -> Any:
    """Score ``item`` if it is a unit (each on a thread of the pool); pass it on."""
    if isinstance(item, _Unit):
        _score(item)
    return item


def _read(items: Iterable[Any]) -> Iterator[Any]:
    """``items``, each unit's texts read first (on the read-ahead thread)."""
    for item in items:
        if isinstance(item, _Unit) and item.columns is not None:
            item.texts = read_texts(item.plan, item.columns, item.start, item.stop)
            item.read = True
        yield item


def _score(unit: _Unit) -> None:
    plan = unit.plan
    if unit.answers is not None:   # Python answers, read in place
        score_list(plan, unit.answers, unit.start, unit.stop, unit.part)
        return
    if unit.columns is None:   # answers without blanks
        score_list(plan, [()] * (unit.stop - unit.start), 0, unit.stop - unit.start, unit.part)
        return
    texts = unit.texts if unit.read else read_texts(plan, unit.columns, unit.start, unit.stop)
    unit.texts = None
    score_texts(plan, unit.columns, unit.start, unit.stop, texts, unit.part)
