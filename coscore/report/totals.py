"""Each student's total over an exam's items: Σ weight × score of one or more scorers
against Σ weight × mark, as a :class:`~coscore.labelled.Table` of students that the
reports take as they take answers.

In the wide layout a row is a student. In the long layout a student is the exam's ``id``
column: their rows (one per item) are gathered, in order of first appearance; a student
without a row for some item, or with two rows for one, has no total (counted), and so
has a row without an id. A missing mark or score of any item leaves the total undefined
(NaN), as in ``total_score``.

The totals are divided by the sum of the weights (when it is neither 0 nor 1), so that
they lie on the items' 0–10 scale, where the kappas, exact agreement and the confusion
matrix are defined; correlation, R² and SMD do not change.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..io import ID_COLUMN, InputError
from ..labelled import Rows, Table
from .format import fmt
from .groups import cells

if TYPE_CHECKING:
    from ..exam import Exam

__all__ = ["ItemScores", "StudentTotals", "divisor_of", "student_totals", "total_label"]


@dataclass(frozen=True)
class ItemScores:
    """One scorer of an exam's total: its ``name``, and for each item counted its
    ``weight`` and its scores over the rows of the item's table."""

    name: str
    weights: Mapping[str, float]
    scores: Mapping[str, np.ndarray]


@dataclass
class StudentTotals:
    """The students of an exam with their totals.

    ``table`` has one row per student: its marks are Σ weight × mark ÷ ``divisor`` (NaN
    where a mark is missing), its ``id`` column the student id (when the exam has one),
    its ``by`` column the group (a student's first row's) and its answers each item's
    mark and scores in words. ``totals`` are each scorer's Σ weight × score ÷ its divisor
    (``divisors``). ``items`` were counted; ``incomplete`` students lack a row for one of
    them, ``duplicated`` have two rows for one, ``without_id`` rows name no student (the
    long layout; 0 in the wide one).
    """

    table: Table
    totals: dict[str, np.ndarray]
    divisor: float
    divisors: dict[str, float]
    items: tuple[str, ...]
    incomplete: int = 0
    duplicated: int = 0
    without_id: int = 0

    @property
    def students(self) -> int:
        """How many students (rows of :attr:`table`)."""
        return len(self.table)

    def raw_means(self) -> dict[str, float | None]:
        """The mean total mark and each scorer's mean total, in points (× the divisor),
        over the students with a total mark and every scorer's total."""
        both = ~np.isnan(self.table.marks)
        for values in self.totals.values():
            both &= ~np.isnan(values)
        if not both.any():
            return {"mark": None, **{name: None for name in self.totals}}
        return {"mark": float(self.table.marks[both].mean() * self.divisor),
                **{name: float(values[both].mean() * self.divisors[name]) for name, values in self.totals.items()}}


def divisor_of(weights: Sequence[float]) -> float:
    """What a total of these item weights is divided by: their sum, or 1 when that is 0."""
    total = float(math.fsum(weights))
    return total if total > 0 else 1.0


def student_totals(exam: Exam, tables: Mapping[str, Table], scorers: Sequence[ItemScores], by: str | None = None,
                   given: Mapping[str, np.ndarray] | None = None) -> StudentTotals:
    """The students of ``exam`` and their totals over the items of ``tables`` (each item's
    table, :func:`.items.item_tables`): marks weighted as ``exam`` weights them, each
    of ``scorers`` as it weights its items. ``given`` (wide layout only) replaces a
    scorer's sum by a column of totals read (``total_score``), in points. The long layout
    needs the exam's ``id``: ``ValueError`` without it, :class:`~coscore.io.InputError`
    when the file lacks that column."""
    names = tuple(tables)
    if exam.item_column is not None:
        if exam.id is None:
            raise ValueError("a total of the long layout gathers each student's rows by the exam's student id "
                             "column: name it with 'id:' in the exam")
        first = tables[names[0]]
        if exam.id not in first.columns:
            raise InputError(first.source, f"no such column (the student id column of the exam; columns: "
                             f"{', '.join(list(first.columns)[:12])})", column=exam.id)
    mark_weights = [exam.item(name).weight for name in names]
    divisor = divisor_of(mark_weights)
    divisors = {s.name: divisor_of([s.weights[name] for name in names]) for s in scorers}
    if exam.item_column is None:
        out = _wide(exam, tables, names, mark_weights, divisor, scorers, divisors, by, given or {})
    else:
        out = _long(exam, tables, names, mark_weights, divisor, scorers, divisors, by)
    out.table.missing_marks = tables[names[0]].missing_marks   # what the items' marks were read with
    return out


def _weighted(columns: Sequence[np.ndarray], weights: Sequence[float]) -> np.ndarray:
    """Σ weight × column, in order (NaN where any value is NaN)."""
    total = np.zeros(len(columns[0]) if columns else 0)
    for values, weight in zip(columns, weights):
        total = total + weight * values
    return total


def _wide(exam: Exam, tables: Mapping[str, Table], names: tuple[str, ...], mark_weights: list[float],
          divisor: float, scorers: Sequence[ItemScores], divisors: dict[str, float], by: str | None,
          given: Mapping[str, np.ndarray]) -> StudentTotals:
    first = tables[names[0]]
    marks = [tables[name].marks for name in names]
    scores = {s.name: [np.asarray(s.scores[name], dtype=np.float64) for name in names] for s in scorers}
    totals = {s.name: (given[s.name] if s.name in given else _weighted(scores[s.name], [s.weights[n] for n in names]))
              / divisors[s.name] for s in scorers}
    id_column = exam.id or ID_COLUMN   # without the exam's, the 'id' column a report reads
    ids = cells(first.columns[id_column]) if id_column in first.columns else None
    groups = cells(first.columns[by]) if by is not None and by in first.columns else None
    table = _student_table(first.source, divisor, _weighted(marks, mark_weights) / divisor, ids, by, groups,
                           names, np.stack(marks, axis=1), {k: np.stack(v, axis=1) for k, v in scores.items()},
                           first.origin)
    return StudentTotals(table, totals, divisor, divisors, names)


def _long(exam: Exam, tables: Mapping[str, Table], names: tuple[str, ...], mark_weights: list[float],
          divisor: float, scorers: Sequence[ItemScores], divisors: dict[str, float],
          by: str | None) -> StudentTotals:
    parts = [tables[name] for name in names]
    source = parts[0].source
    origin = np.concatenate([t.origin if t.origin is not None else np.arange(len(t)) for t in parts])
    item = np.concatenate([np.full(len(t), k, dtype=np.int64) for k, t in enumerate(parts)])
    ids = np.asarray([c for t in parts for c in cells(t.columns[str(exam.id)])], dtype=object)
    marks = np.concatenate([t.marks for t in parts])
    scores = {s.name: np.concatenate([np.asarray(s.scores[name], dtype=np.float64) for name in names])
              for s in scorers}
    groups = np.asarray([c for t in parts for c in cells(t.columns[by])], dtype=object) \
        if by is not None and all(by in t.columns for t in parts) else None
    order = np.argsort(origin, kind="stable")
    named = order[ids[order] != ""]
    without_id = len(order) - len(named)
    distinct, first, inverse = np.unique(ids[named].astype(str), return_index=True, return_inverse=True)
    rank = np.empty(len(distinct), dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(distinct))
    student = rank[inverse.reshape(-1)]
    count = np.zeros((len(distinct), len(names)), dtype=np.int64)
    np.add.at(count, (student, item[named]), 1)

    def matrix(values: np.ndarray) -> np.ndarray:
        out = np.full((len(distinct), len(names)), np.nan)
        out[student, item[named]] = values[named]
        out[count != 1] = np.nan   # no row, or two: no value
        return out

    firsts = np.empty(len(distinct), dtype=np.int64)
    firsts[rank] = named[first]   # each student's first row (in file order)
    mark_matrix = matrix(marks)
    score_matrices = {name: matrix(values) for name, values in scores.items()}
    totals = {s.name: _weighted(list(score_matrices[s.name].T), [s.weights[n] for n in names]) / divisors[s.name]
              for s in scorers}
    table = _student_table(source, divisor, _weighted(list(mark_matrix.T), mark_weights) / divisor,
                           [str(v) for v in ids[firsts]], by,
                           [str(v) for v in groups[firsts]] if groups is not None else None,
                           names, mark_matrix, score_matrices, origin[firsts])
    return StudentTotals(table, totals, divisor, divisors, names, int((count == 0).any(axis=1).sum()),
                         int((count > 1).any(axis=1).sum()), without_id)


def _student_table(source: str, divisor: float, marks: np.ndarray, ids: list[str] | None, by: str | None,
                   groups: list[str] | None, names: tuple[str, ...], mark_matrix: np.ndarray,
                   score_matrices: dict[str, np.ndarray],
                   origin: np.ndarray | None) -> Table:
    """A table of students: marks, the ids and groups as columns, each item's numbers as its answer."""
    n = len(marks)
    columns: dict[str, Rows] = {}
    if ids is not None:
        columns[ID_COLUMN] = _rows(ids)
    if by is not None and groups is not None:
        columns[by] = _rows(groups)
    answers = Rows()
    answers.add(lambda: _breakdown(names, mark_matrix, score_matrices), n)
    places = _rows([{"row": i + 1} for i in range(n)])
    return Table(source, columns, answers, places, total_label("mark", divisor), marks, None, origin)


def total_label(what: str, divisor: float) -> str:
    """How a total of ``what`` (Σ weight × ``what``) is named: ``total mark``, and
    ``total mark ÷ 15`` when divided."""
    return f"total {what}" + (f" ÷ {divisor:g}" if divisor != 1 else "")


def _rows(values: list[Any]) -> Rows:
    out = Rows()
    out.add(values, len(values))
    return out


def _breakdown(names: tuple[str, ...], marks: np.ndarray, scores: dict[str, np.ndarray]) -> list[list[str]]:
    """Each student's items in words: ``q1: mark 5, score 3`` (one scorer), ``q1: mark 5,
    a.yaml 3, b.yaml 4`` (several)."""
    shown = {("score" if len(scores) == 1 else scorer): values for scorer, values in scores.items()}
    out = []
    for i in range(len(marks)):
        out.append([f"{name}: mark {_number(marks[i, k])}, "
                    + ", ".join(f"{scorer} {_number(values[i, k])}" for scorer, values in shown.items())
                    for k, name in enumerate(names)])
    return out


def _number(value: float) -> str:
    return "—" if math.isnan(value) else f"{value:g}" if value == round(value, 2) else fmt(value, 2)
