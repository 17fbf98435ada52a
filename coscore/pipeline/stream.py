"""Blank columns scored chunk by chunk, with the one read-ahead.

A chunk of blank columns (:class:`~coscore.pipeline.tables.BlankTable`) is cut into
*units*: the rows of one group (one number of blanks), as many as the engine scores at a
time. The read-ahead (:func:`~coscore.pipeline.stages.read_ahead`) runs in two stages, a
thread each: one takes the next chunk from its source — for the command, the file reader
parses it there — and the next reads each unit's texts in C without the GIL
(:func:`coscore.engine.chunk.read_texts`), while this thread scores the unit before
(:func:`coscore.engine.chunk.score_texts`). With more threads, each unit is read and
scored on a thread of the pool (:func:`coscore.engine.schedule.in_order`). Each unit's
results go straight to its rows of the chunk's :class:`~coscore.engine.builder.BatchBuilder`.

:func:`score_table` scores one table (cut into chunks here); :func:`score_tables` a
stream of tables, each one chunk as it comes (already sized by its source), giving a
:class:`~coscore.results.Batch` for each.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from .._fast import BlankColumns
from ..engine.builder import BatchBuilder
from ..engine.chunk import read_texts, score_list, score_texts
from ..engine.plan import Plan
from ..engine.schedule import even_chunk_size, in_order, ranges, workers
from ..results import Batch
from .stages import read_ahead
from .tables import BlankTable, blank_table
from .text_lists import TextColumns, TextList


class _Unit:
    """Rows ``start:stop`` of one group's blank columns, bound for ``part`` of a builder;
    ``texts`` once read ahead (see :func:`~coscore.engine.chunk.read_texts`)."""

    __slots__ = ("columns", "start", "stop", "part", "texts", "read")

    def __init__(self, columns: BlankColumns | None, start: int, stop: int, part: Any):
        self.columns, self.start, self.stop, self.part = columns, start, stop, part
        self.texts: Any = None
        self.read = False


class _Done:
    """The end of one chunk: its builder holds every row's results."""

    __slots__ = ("builder",)

    def __init__(self, builder: BatchBuilder):
        self.builder = builder


def score_table(plan: Plan, table: BlankTable, jobs: int = 1, chunk_size: int | None = None) -> Batch:
    """One :class:`~coscore.results.Batch` of every answer of ``table``, in order, scored
    ``chunk_size`` rows at a time (default: even chunks for the threads ``jobs`` asks for)."""
    if chunk_size is not None and chunk_size < 1:
        raise ValueError("chunk_size must be at least 1")
    threads = workers(jobs)
    builder = BatchBuilder(plan.combo_ids, table.n_rows)
    units = list(_units(table, builder, chunk_size, threads))
    threads = threads if len(units) > 1 else 1
    # the units are in memory: only their texts are read ahead, for one scoring thread
    for _ in _run(plan, units, threads, texts_ahead=len(units) > 1, taken_ahead=False):
        pass
    return builder.batch()


def score_tables(plan: Plan, tables: Iterable[Any], jobs: int = 1) -> Iterator[Batch]:
    """A :class:`~coscore.results.Batch` for each table of ``tables`` (anything
    :func:`~coscore.pipeline.tables.blank_table` reads), in order. Each is one chunk, cut
    no further than into its groups; the next ones are read (``tables`` is iterated, and
    their texts read) by the read-ahead thread while one is scored."""
    threads = workers(jobs)

    def chunks() -> Iterator[Any]:
        for source in tables:
            table = blank_table(source, plan.blanks_read)
            if not isinstance(table, BlankTable):
                raise TypeError(f"a stream of tables holds a {type(source).__name__}: each item must be a "
                                f"table of blank columns (see coscore.pipeline.tables)")
            builder = BatchBuilder(plan.combo_ids, table.n_rows)
            yield from _units(table, builder, 0, 1)
            yield _Done(builder)

    for item in _run(plan, chunks(), threads, texts_ahead=True, taken_ahead=True):
        if isinstance(item, _Done):
            yield item.builder.batch()


def _units(table: BlankTable, builder: BatchBuilder, chunk_size: int | None, threads: int) -> Iterator[_Unit]:
    """The units of ``table``: each group's rows, ``chunk_size`` at a time (``None``: even
    chunks for ``threads``; ``0``: one unit per group)."""
    for rows, arrays in table.groups:
        n = table.n_rows if rows is None else len(rows)
        columns = _blank_columns(arrays) if arrays else None
        size = chunk_size if chunk_size is not None else even_chunk_size(n, threads)
        for start, stop in ranges(n, size or max(n, 1)):
            part = builder.part(start, stop) if rows is None else builder.part(0, rows=rows[start:stop])
            yield _Unit(columns, start, stop, part)


def _blank_columns(arrays: list[Any]) -> Any:
    """A group's columns, read as Arrow text (:class:`~coscore._fast.BlankColumns`) or as
    the Python strings of a pandas column (:class:`~.text_lists.TextColumns`)."""
    if isinstance(arrays[0], TextList):
        return TextColumns(arrays)
    return BlankColumns(arrays)


def _run(plan: Plan, items: Iterable[Any], threads: int, texts_ahead: bool, taken_ahead: bool) -> Iterator[Any]:
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
        source = read_ahead(_read(plan, source))
        stages.append(source)
    try:
        if threads <= 1:
            for item in source:
                if isinstance(item, _Unit):
                    _score(plan, item)
                yield item
        else:
            yield from in_order(source, _scored(plan), threads)
    finally:
        for stage in reversed(stages):   # every read-ahead thread stops whenever this stops
            stage.close()


def _scored(plan: Plan) -> Any:
    """A function that scores a unit (each on a thread of the pool) and passes every item on."""
    def score(item: Any) -> Any:
        if isinstance(item, _Unit):
            _score(plan, item)
        return item
    return score


def _read(plan: Plan, items: Iterable[Any]) -> Iterator[Any]:
    """``items``, each unit's texts read first (on the read-ahead thread)."""
    for item in items:
        if isinstance(item, _Unit) and item.columns is not None:
            item.texts = read_texts(plan, item.columns, item.start, item.stop)
            item.read = True
        yield item


def _score(plan: Plan, unit: _Unit) -> None:
    if unit.columns is None:   # answers without blanks
        score_list(plan, [()] * (unit.stop - unit.start), 0, unit.stop - unit.start, unit.part)
        return
    texts = unit.texts if unit.read else read_texts(plan, unit.columns, unit.start, unit.stop)
    unit.texts = None
    score_texts(plan, unit.columns, unit.start, unit.stop, texts, unit.part)
