"""Score a table chunk by chunk: read, score each chunk's answers, append the result
columns (Arrow arrays, made from the engine's arrays at once), write. Memory stays
bounded by the chunk size, whatever the file's length."""
from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from ..results import Batch
from .answers import AnswerColumns
from .arrays import float_array, string_array
from .background import read_ahead
from .errors import InputError
from .table import Chunk

#: The score column written after the input columns.
SCORE_COLUMN = "coscore_score"
#: The error column, empty unless that answer failed.
ERROR_COLUMN = "coscore_error"
#: Prefix of the per-combo columns (``coscore_combo_A``, ...).
COMBO_PREFIX = "coscore_combo_"


def result_columns(combo_ids: Iterable[str]) -> list[str]:
    """The columns scoring appends, in order."""
    return [SCORE_COLUMN, *(COMBO_PREFIX + cid for cid in combo_ids), ERROR_COLUMN]


def check_no_clash(source: str, columns: Iterable[str], combo_ids: Iterable[str]) -> None:
    """Refuse input that already has a column scoring would add (e.g. a scored file)."""
    added = set(result_columns(combo_ids))
    for name in columns:
        if name in added or name.startswith(COMBO_PREFIX):
            raise InputError(
                source,
                "the input already has this output column (is it a scored file?); drop the coscore_* columns first",
                column=name,
            )


@dataclass
class Totals:
    """What a run did: rows scored and how many of them failed."""

    rows: int = 0
    errors: int = 0


#: A scoring engine: (rule, answers, jobs) -> the rule's batch result (``scores``,
#: ``combos``, ``errors`` as in :meth:`coscore.Rule.score_many`); the answers are a list
#: of answers, or the blank columns as Arrow arrays, which ``score_many`` also takes.
Engine = Callable[[Any, list[Any], int], Any]


def local_engine(rule: Any, answers: list[Any], jobs: int) -> Any:
    """Score in this process (``jobs`` worker processes/threads as the engine decides;
    no read-ahead thread of the engine's own: the next chunk is being read already)."""
    return rule.score_many(answers, jobs=jobs, read_ahead=False)


def scored_chunks(
    rule: Any,
    chunks: Iterable[Chunk],
    columns: AnswerColumns,
    *,
    jobs: int = 1,
    engine: Engine = local_engine,
    totals: Totals | None = None,
    decimals: int | None = None,
) -> Iterator[Chunk]:
    """Each chunk with the result columns appended as Arrow arrays (rows never dropped
    or reordered). With ``decimals``, the score and combo columns are rounded to that
    many decimal places (as ``numpy.round``: halves to even)."""
    combo_ids = list(rule.combo_ids)
    names = result_columns(combo_ids)
    types = {name: "float64" for name in names}
    types[ERROR_COLUMN] = "string"
    with contextlib.closing(read_ahead(chunks)) as ahead:  # its thread stops whenever this stops
        yield from _scored(rule, ahead, columns, jobs, engine, totals, decimals, combo_ids, names, types)


def _scored(
    rule: Any, chunks: Iterable[Chunk], columns: AnswerColumns, jobs: int, engine: Engine, totals: Totals | None,
    decimals: int | None, combo_ids: list[str], names: list[str], types: dict[str, str],
) -> Iterator[Chunk]:
    for chunk in chunks:  # the next chunk is read (by read_ahead's thread) while this one is scored
        groups = columns.groups(chunk)  # lists of blanks: the rows by their number of blanks
        if groups is not None and len(groups) > 1:   # scored as columns, one number at a time
            batch = _grouped(rule, groups, len(chunk), jobs, engine)
        else:   # Arrow text columns are scored as they are
            arrays = groups[0][1] if groups is not None else columns.arrays(chunk)
            answers = arrays if arrays is not None else columns.answers(chunk)
            batch = engine(rule, answers, jobs)
            del answers, arrays
        del groups  # freed before the chunk goes on: no collector pass walks its tuples
        n = len(chunk)
        if len(batch.scores) != n or len(batch.errors) != n:
            raise RuntimeError(f"the engine returned {len(batch.scores)} scores for {n} answers")
        data = dict(chunk.data)
        data[SCORE_COLUMN] = _floats(batch.scores, decimals)
        for cid in combo_ids:
            data[COMBO_PREFIX + cid] = _floats(batch.combos[cid], decimals)
        errors = list(batch.errors)
        failed = n - errors.count(None)
        data[ERROR_COLUMN] = string_array(errors) if failed else pa.nulls(n, pa.string())
        if totals is not None:
            totals.rows += n
            totals.errors += failed
        del batch, errors
        yield Chunk(
            [*chunk.columns, *names], data, chunk.lines, chunk.unit, chunk.source, chunk.position,
            {**chunk.types, **types},
        )


def _grouped(rule: Any, groups: list[tuple[np.ndarray, list[Any]]], n: int, jobs: int, engine: Engine) -> Batch:
    """One :class:`~coscore.Batch` of ``n`` answers scored group by group (each group's
    rows and blank columns), every result put back at its row."""
    scores = np.empty(n)
    combos = {cid: np.empty(n) for cid in rule.combo_ids}
    errors: list[str | None] = [None] * n
    completed: dict[int, int] = {}
    for rows, arrays in groups:
        batch = engine(rule, arrays, jobs)
        scores[rows] = batch.scores
        for cid, values in batch.combos.items():
            combos[cid][rows] = values
        for i, error in enumerate(batch.errors):
            if error is not None:
                errors[rows[i]] = error
        completed.update((int(rows[i]), done) for i, done in batch.completed.items())
    return Batch(scores, errors, combos, completed)


def _floats(values: Any, decimals: int | None) -> Any:
    """A float array as an Arrow float64 array, NaN (a failed answer) as null."""
    array = np.asarray(values, dtype=np.float64)
    return float_array(np.round(array, decimals) if decimals is not None else array)
