"""A reader's chunks scored into a writer: what ``coscore score`` does (for a rule or an
exam), and its Dask workers.

One chunk takes this path (each step in a thread of its own, so that they overlap):

1. the **read-ahead** thread (:func:`~coscore.pipeline.stages.read_ahead`) takes the next
   chunk from the reader — the reader parses it there, into Arrow columns — and picks
   each item's blank columns (:meth:`~coscore.pipeline.scoring.Scoring.work`); the next
   read-ahead thread reads the texts each item's rule reads;
2. this thread scores each item's answers (:func:`~coscore.pipeline.stream.score_work`)
   into result arrays, assembled once
   (:meth:`~coscore.pipeline.scoring.Scoring.results`) and appended to the chunk's columns;
3. the **write-behind** thread (:class:`~coscore.pipeline.stages.WriteBehind`) writes it.

Rows are never dropped or reordered; memory stays bounded by a few chunks, whatever
the file's length. An error in any step, or Ctrl-C, stops all of them.
"""
from __future__ import annotations

import contextlib
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..io.table import Chunk
from .results import ERROR_COLUMN
from .scoring import Scoring
from .stages import WriteBehind
from .stream import Work, score_work

if TYPE_CHECKING:
    from ..io import Writer


@dataclass
class Totals:
    """What a run did: rows scored, answers scored (a row holds one answer per item in the
    wide layout), how many of those answers failed, and the columns that say why."""

    rows: int = 0
    errors: int = 0
    answers: int = 0
    error_columns: list[str] = field(default_factory=lambda: [ERROR_COLUMN])


def scored_chunks(
    scoring: Scoring,
    chunks: Iterable[Chunk],
    *,
    jobs: int = 1,
    totals: Totals | None = None,
) -> Generator[Chunk, None, None]:
    """Each chunk of ``chunks`` with the result columns of ``scoring`` appended as Arrow
    arrays (rows never dropped or reordered); ``chunks`` are taken, and their texts read,
    by the read-ahead threads. A chunk holding a result column already (a scored file)
    is refused (:class:`~coscore.io.InputError`)."""
    names = scoring.columns()
    types = scoring.types()

    def works() -> Iterator[Work]:
        for chunk in chunks:
            scoring.check_no_clash(chunk.source, chunk.columns)
            yield scoring.work(chunk)

    with contextlib.closing(score_work(works(), jobs)) as scored:
        for work in scored:
            chunk = work.context[0]
            n = len(chunk)
            data = dict(chunk.data)
            data.update(scoring.results(work))
            if totals is not None:
                totals.rows += n
                for builder in work.builders:
                    totals.answers += builder.n
                    totals.errors += builder.n - builder.errors.count(None)
            del work
            yield Chunk([*chunk.columns, *names], data, chunk.lines, chunk.unit, chunk.source, chunk.position,
                        {**chunk.types, **types})


def score_into(
    scoring: Scoring,
    chunks: Iterable[Chunk],
    writer: Writer,
    *,
    jobs: int = 1,
    totals: Totals | None = None,
    each: Callable[[Chunk], None] | None = None,
) -> Totals:
    """Score ``chunks`` (:func:`scored_chunks`) and write each scored chunk with
    ``writer`` (its ``write``; the caller closes it), from a thread behind this one;
    ``each(chunk)`` is called with each scored chunk after it is handed over (a progress
    bar, the students' totals). Returns what was scored."""
    totals = totals if totals is not None else Totals()
    behind = WriteBehind(writer)  # encoding and writing overlap with what comes next
    try:
        with contextlib.closing(scored_chunks(scoring, chunks, jobs=jobs, totals=totals)) as scored:
            for chunk in scored:
                behind.write(chunk)
                if each is not None:
                    each(chunk)
    except BaseException:
        behind.abort()
        raise
    behind.close()
    return totals
