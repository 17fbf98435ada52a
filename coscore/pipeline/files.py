"""A file's chunks scored into a writer: what ``coscore score`` does, and its Dask workers.

One chunk takes this path (each step in a thread of its own, so that the three overlap):

1. the **read-ahead** thread (:func:`~coscore.pipeline.stages.read_ahead`, run by
   :meth:`coscore.Rule.score_chunks`) takes the next chunk from the reader — the reader
   parses it there, into Arrow columns — picks its blank columns
   (:meth:`coscore.io.AnswerColumns.select`) and reads the texts the rule reads;
2. this thread scores it (:mod:`coscore.pipeline.stream`) into result arrays, wraps
   them as Arrow arrays (:func:`~coscore.pipeline.results.result_arrays`) and appends
   them to the chunk's columns;
3. the **write-behind** thread (:class:`~coscore.pipeline.stages.WriteBehind`) writes it.

Rows are never dropped or reordered; memory stays bounded by a few chunks, whatever
the file's length. An error in any step, or Ctrl-C, stops all three.
"""
from __future__ import annotations

import contextlib
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from ..io.blanks import AnswerColumns
from ..io.table import Chunk
from .results import ERROR_COLUMN, ERROR_TYPE, SCORE_TYPE, check_no_clash, result_arrays, result_columns
from .stages import WriteBehind


@dataclass
class Totals:
    """What a run did: rows scored and how many of them failed."""

    rows: int = 0
    errors: int = 0


def scored_chunks(
    rule: Any,
    chunks: Iterable[Chunk],
    columns: AnswerColumns,
    *,
    jobs: int = 1,
    totals: Totals | None = None,
    decimals: int | None = None,
) -> Iterator[Chunk]:
    """Each chunk of ``chunks`` with the result columns appended as Arrow arrays (rows
    never dropped or reordered), scored by ``rule`` (a :class:`coscore.Rule`); ``chunks``
    are taken, and their texts read, by the read-ahead thread. With ``decimals``, the
    score and combo columns are rounded to that many decimal places (as
    ``numpy.round``: halves to even). A chunk holding a result column already (a scored
    file) is refused (:class:`~coscore.io.InputError`)."""
    combo_ids = list(rule.combo_ids)
    names = result_columns(combo_ids)
    types = {name: SCORE_TYPE for name in names}
    types[ERROR_COLUMN] = ERROR_TYPE
    taken: deque[Chunk] = deque()   # the chunks whose blank columns went to be scored, in order

    def blank_tables() -> Iterator[Any]:
        for chunk in chunks:
            check_no_clash(chunk.source, chunk.columns, combo_ids)
            taken.append(chunk)
            yield columns.select(chunk)

    with contextlib.closing(iter(rule.score_chunks(blank_tables(), jobs=jobs))) as batches:
        for batch in batches:
            chunk = taken.popleft()
            n = len(chunk)
            if len(batch) != n:
                raise RuntimeError(f"the engine returned {len(batch)} scores for {n} answers")
            data = dict(chunk.data)
            data.update(result_arrays(batch, combo_ids, decimals))
            if totals is not None:
                totals.rows += n
                totals.errors += n - batch.errors.count(None)
            del batch
            yield Chunk([*chunk.columns, *names], data, chunk.lines, chunk.unit, chunk.source, chunk.position,
                        {**chunk.types, **types})


def score_into(
    rule: Any,
    chunks: Iterable[Chunk],
    columns: AnswerColumns,
    writer: Any,
    *,
    jobs: int = 1,
    totals: Totals | None = None,
    decimals: int | None = None,
    each: Callable[[Chunk], None] | None = None,
) -> Totals:
    """Score ``chunks`` (:func:`scored_chunks`) and write each scored chunk with
    ``writer`` (its ``write``; the caller closes it), from a thread behind this one;
    ``each(chunk)`` is called after each chunk is handed over (a progress bar). Returns
    what was scored."""
    totals = totals if totals is not None else Totals()
    behind = WriteBehind(writer)  # encoding and writing overlap with what comes next
    try:
        with contextlib.closing(scored_chunks(rule, chunks, columns, jobs=jobs, totals=totals,
                                              decimals=decimals)) as scored:
            for chunk in scored:
                behind.write(chunk)
                if each is not None:
                    each(chunk)
    except BaseException:
        behind.abort()
        raise
    behind.close()
    return totals
