"""A data file read whole for the rule author's tools (``explain``, ``report``, ``compare``):
its answers, the teacher's marks and every other column, row by row.

Rows are numbered from 1 in file order; ``places`` says where each row is in its file
(``{"line": n}`` or ``{"row": n}``), for messages.
"""
from __future__ import annotations

import hashlib
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .diagnostics import shorten
from .io import AnswerColumns, InputError, format_of, open_reader, split_blanks
from .io.answers import ID_COLUMN

#: Columns ``coscore score`` adds; never taken as blanks.
RESULT_PREFIX = "coscore_"


@dataclass
class Table:
    """A data file in memory: ``answers[i]`` (blanks), ``columns`` (name -> values) and,
    with a label, ``marks`` (floats, NaN where empty)."""

    source: str
    columns: dict[str, list[Any]]
    answers: list[list[str]]
    places: list[dict[str, int]]
    label: str | None
    marks: np.ndarray

    def __len__(self) -> int:
        return len(self.answers)

    @property
    def ids(self) -> list[str]:
        """The ``id`` column as text, or the row numbers when there is none."""
        if ID_COLUMN in self.columns:
            return ["" if v is None else str(v) for v in self.columns[ID_COLUMN]]
        return [str(i + 1) for i in range(len(self))]

    def numbers(self, column: str) -> np.ndarray:
        """``column`` as floats (NaN where empty); :class:`InputError` names a bad cell."""
        if column not in self.columns:
            raise InputError(self.source, f"no such column (columns: {', '.join(self.columns)})", column=column)
        out = np.empty(len(self), dtype=np.float64)
        for i, value in enumerate(self.columns[column]):
            out[i] = number_cell(value, self.source, column, self.places[i])
        return out


def number_cell(value: Any, source: str, column: str, where: dict[str, int]) -> float:
    """A cell as a float: NaN when empty; :class:`InputError` at ``where`` when it is not a number."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return math.nan
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise InputError(source, f"expected a number, got {shorten(repr(value), 80)}", column=column, **where)
    try:
        return float(value)
    except ValueError:
        raise InputError(source, f"expected a number, got {shorten(repr(value), 80)}", column=column, **where) from None


def read_table(
    path: str | os.PathLike[str],
    fmt: str | None = None,
    blanks: Sequence[str] | None = None,
    label: str | None = None,
    exclude: Sequence[str] = (),
) -> Table:
    """Read ``path`` whole. Blank columns: ``blanks``, else every column except ``id``, the
    label, ``exclude`` and ``coscore score``'s result columns. A CSV/TSV whose header is
    ``text`` or ``text,score`` is read in the original CoScore layout, and so is the
    ``text`` column of a file ``coscore score`` wrote from that layout (``text``,
    ``score`` and ``coscore_*`` columns: blanks split on ``-``, the mark in ``score``)."""
    try:
        chosen = fmt or format_of(path)
    except ValueError as exc:
        raise InputError(str(path), str(exc)) from None
    if chosen in ("csv", "tsv") and not blanks:
        with open_reader(path, chosen, 1) as reader:
            if reader.columns in (["text"], ["text", "score"]):
                chosen = "coscore"
    columns: dict[str, list[Any]] = {}
    answers: list[list[str]] = []
    places: list[dict[str, int]] = []
    with open_reader(path, chosen) as reader:
        source = reader.source
        names = blanks
        legacy = False  # a file 'coscore score' wrote from the original layout: split 'text' on '-'
        if not names and chosen not in ("coscore", "jsonl"):
            own = [c for c in reader.columns if not c.startswith(RESULT_PREFIX)]
            legacy = own in (["text"], ["text", "score"]) and len(own) < len(reader.columns) \
                and label in (None, "score") and not exclude
            label = "score" if legacy and "score" in own else label
            skip = {ID_COLUMN, label, *exclude}
            names = [c for c in own if c not in skip]
        how = AnswerColumns.resolve(chosen, source, reader.columns, names or None, label)
        for chunk in reader.chunks():
            before = len(answers)
            if legacy:
                answers.extend(split_blanks("" if text is None else str(text)) for text in chunk.pylist("text"))
            else:
                answers.extend([a] if isinstance(a, str) else list(a) for a in how.answers(chunk))
            for name in chunk.columns:
                columns.setdefault(name, [None] * before).extend(chunk.pylist(name))
            for values in columns.values():
                values.extend([None] * (len(answers) - len(values)))
            places.extend(chunk.where(i) for i in range(len(chunk)))
    table = Table(source, columns, answers, places, how.label, np.full(len(answers), math.nan))
    if how.label is not None:
        if how.label not in columns and answers:
            raise InputError(source, "no such column", column=how.label)
        if how.label in columns:
            table.marks = table.numbers(how.label)
    return table


def file_hash(path: str | os.PathLike[str]) -> str:
    """The SHA-256 of a file's bytes, as hex (names a rule version in reports)."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 16), b""):
            digest.update(block)
    return digest.hexdigest()
