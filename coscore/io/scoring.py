"""Score a table chunk by chunk: read, score each chunk's answers, append the result
columns, write. Memory stays bounded by the chunk size, whatever the file's length."""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from .answers import AnswerColumns
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


#: A scoring engine: (rule, list of answers, jobs) -> the rule's batch result
#: (``scores``, ``combos``, ``errors`` as in :meth:`coscore.Rule.score_many`).
Engine = Callable[[Any, list[list[str]], int], Any]


def local_engine(rule: Any, answers: list[list[str]], jobs: int) -> Any:
    """Score in this process (``jobs`` worker processes/threads as the engine decides)."""
    return rule.score_many(answers, jobs=jobs)


def scored_chunks(
    rule: Any,
    chunks: Iterable[Chunk],
    columns: AnswerColumns,
    *,
    jobs: int = 1,
    engine: Engine = local_engine,
    totals: Totals | None = None,
) -> Iterator[Chunk]:
    """Each chunk with the result columns appended (rows never dropped or reordered)."""
    combo_ids = list(rule.combo_ids)
    names = result_columns(combo_ids)
    types = {name: "float64" for name in names}
    types[ERROR_COLUMN] = "string"
    for chunk in chunks:
        answers = columns.answers(chunk)
        batch = engine(rule, answers, jobs)
        scores = _floats(batch.scores)
        errors = list(batch.errors)
        if len(scores) != len(chunk) or len(errors) != len(chunk):
            raise RuntimeError(f"the engine returned {len(scores)} scores for {len(chunk)} answers")
        data = dict(chunk.data)
        data[SCORE_COLUMN] = scores
        for cid in combo_ids:
            data[COMBO_PREFIX + cid] = _floats(batch.combos[cid])
        data[ERROR_COLUMN] = errors
        if totals is not None:
            totals.rows += len(chunk)
            totals.errors += sum(e is not None for e in errors)
        yield Chunk(
            [*chunk.columns, *names], data, chunk.lines, chunk.unit, chunk.source, chunk.position,
            {**chunk.types, **types},
        )


def _floats(values: Any) -> list[float | None]:
    """A float array as a list, NaN (a failed answer) as ``None``."""
    listed = values.tolist() if hasattr(values, "tolist") else list(values)
    return [None if v != v else v for v in listed]
