"""The agreement report of an exam (``coscore report SCORED --exam EXAM``): each item's
report, exactly what :func:`.sections.build_report` gives for that item alone, an overview
of the items (worst first) and the report of the students' totals (:mod:`.totals`).

The score column of an item is ``<item>_score`` in the wide layout and ``coscore_score``
(on the item's rows) in the long one. An item without a ``label`` has no marks: it is
listed in the overview and has no report. The total counts the items with marks:
``total_score`` against Σ weight × mark when every item has marks and the file has that
column (the wide layout), else Σ weight × score of those items.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..io import InputError
from ..labelled import Rows, Table, file_hash
from .bootstrap import RESAMPLES, SEED
from .compare import agreement_intervals
from .humans import DEGRADATION, DISATTENUATED_R, HH_ADJACENT, HH_EXACT, HH_QWK, HH_R, Consistency
from .items import item_provenance
from .sections import FullReport, Provenance, build_report, json_ready
from .stats import QWK_THRESHOLD, SMD_THRESHOLD, Agreement
from .totals import ItemScores, StudentTotals, divisor_of, student_totals, total_label

if TYPE_CHECKING:
    from ..exam import Exam, ExamItem

__all__ = ["ExamReport", "ExamTotal", "OverviewLine", "build_exam_report", "exam_summary", "flags_of", "score_column"]

#: The column of ``coscore score EXAM``'s wide output that holds each student's total.
TOTAL_COLUMN = "total_score"
#: The long layout's score column.
LONG_SCORE_COLUMN = "coscore_score"

_CONSISTENCY_FLAGS = {
    "exact_agreement_ok": f"H–H exact < {HH_EXACT * 100:.0f} %",
    "adjacent_agreement_ok": f"H–H adjacent < {HH_ADJACENT * 100:.0f} %",
    "qwk_ok": f"H–H QWK < {HH_QWK:.2f}",
    "pearson_r_ok": f"H–H r < {HH_R:.2f}",
    "qwk_degradation_ok": f"QWK degradation < {DEGRADATION:.2f}",
    "pearson_r_degradation_ok": f"r degradation < {DEGRADATION:.2f}",
    "disattenuated_r_ok": f"disattenuated r < {DISATTENUATED_R:.2f}",
}


@dataclass
class OverviewLine:
    """One line of an exam's overview: an item (or ``total``), its mark column and
    weight, its figures (``None``: no marks), the 95 % bootstrap interval of its QWK,
    its PRMSE (with second marks) and the flags it raises."""

    item: str
    label: str | None
    weight: float | None
    agreement: Agreement | None = None
    qwk_ci: tuple[float, float] | None = None
    prmse: float | None = None
    flags: tuple[str, ...] = ()

    @property
    def marked(self) -> bool:
        """Whether the item has marks (a report)."""
        return self.agreement is not None

    def to_dict(self) -> dict[str, Any]:
        """``{"item", "label", "weight", "marked", "n", "mean_mark", "mean_score", "qwk":
        {"value", "ci"}, "exact_agreement", "smd", "prmse", "flags"}``."""
        a = self.agreement
        return {"item": self.item, "label": self.label, "weight": self.weight, "marked": self.marked,
                "n": a.n if a else None, "mean_mark": a.mean_human if a else None,
                "mean_score": a.mean_pred if a else None,
                "qwk": {"value": a.qwk if a else None, "ci": list(self.qwk_ci) if self.qwk_ci else None},
                "exact_agreement": a.exact_agreement if a else None, "smd": a.smd if a else None,
                "prmse": self.prmse, "flags": list(self.flags)}


@dataclass
class ExamTotal:
    """The students' totals against their marks: the ``report`` on the students' table
    (:class:`.totals.StudentTotals`), its overview ``line``, and the items left out for
    want of marks (``unmarked``)."""

    report: FullReport
    students: StudentTotals
    line: OverviewLine
    unmarked: tuple[str, ...]
    weights: dict[str, float]

    def to_dict(self) -> dict[str, Any]:
        """What :meth:`.sections.FullReport.to_dict` gives for the totals, with the items
        counted and their weights, the ``divisor``, the counts of students, the mean
        totals in points and the QWK's interval."""
        s = self.students
        means = s.raw_means()
        return json_ready({**self.report.to_dict(), "items": list(s.items), "weights": self.weights,
                           "without_marks": list(self.unmarked), "divisor": s.divisor, "students": s.students,
                           "incomplete": s.incomplete, "duplicated": s.duplicated, "without_id": s.without_id,
                           "mean_total_mark": means["mark"], "mean_total_score": means[self.report.pred],
                           "qwk_ci": list(self.line.qwk_ci) if self.line.qwk_ci else None})


@dataclass
class ExamReport:
    """Everything ``coscore report SCORED --exam EXAM`` shows: each marked item's
    ``reports`` (exam order), the ``overview`` (worst first, then the items without
    marks) and the ``total``."""

    exam: Exam
    data: str
    date: str
    reports: dict[str, FullReport]
    overview: list[OverviewLine]
    total: ExamTotal | None
    resamples: int = RESAMPLES
    seed: int = SEED

    def to_dict(self) -> dict[str, Any]:
        """``{"exam", "data", "date", "bootstrap", "overview": [...], "items": {name:
        <report of the item alone>}, "total"}``."""
        return json_ready({
            "exam": exam_summary(self.exam), "data": self.data, "date": self.date,
            "bootstrap": {"resamples": self.resamples, "seed": self.seed, "level": 0.95},
            "overview": [line.to_dict() for line in self.overview],
            "items": {name: report.to_dict() for name, report in self.reports.items()},
            "total": self.total.to_dict() if self.total else None,
        })


def exam_summary(exam: Exam) -> dict[str, Any]:
    """``{"name", "file", "sha256", "layout", "id", "item_column", "items"}`` of ``exam``."""
    return {"name": exam.name, "file": exam.source, "sha256": file_hash(exam.source) if exam.source else None,
            "layout": exam.layout, "id": exam.id, "item_column": exam.item_column, "items": list(exam.names)}


def score_column(exam: Exam, item: ExamItem) -> str:
    """The column of a file ``coscore score EXAM`` wrote that holds ``item``'s scores."""
    return f"{item.name}_score" if exam.item_column is None else LONG_SCORE_COLUMN


def flags_of(a: Agreement, c: Consistency | None = None) -> tuple[str, ...]:
    """The figures of ``a`` (and ``c``) outside the usual thresholds, in words."""
    out = []
    if a.qwk is None:
        out.append("QWK undefined")
    elif not a.qwk_ok:
        out.append(f"QWK < {QWK_THRESHOLD:.2f}")
    if a.smd_ok is False:
        out.append(f"|SMD| > {SMD_THRESHOLD:.2f}")
    if c is not None:
        out.extend(name for key, name in _CONSISTENCY_FLAGS.items() if c.flags.get(key) is False)
    return tuple(out)


def build_exam_report(exam: Exam, tables: Mapping[str, Table], data: str, date: str, by: str | None = None,
                      top: int = 10, resamples: int = RESAMPLES, seed: int = SEED) -> ExamReport:
    """The report on a scored file of ``exam``: ``tables`` holds the table of each item
    with marks (:func:`.items.item_tables`), ``data`` names the file and ``date`` the
    moment. ``by`` and ``top`` are ``build_report``'s; ``resamples`` and ``seed`` draw
    the overview's QWK intervals. Raises :class:`~coscore.io.InputError` for a score
    column the file lacks, and ``ValueError`` for the long layout without an ``id``
    (:func:`.totals.student_totals`)."""
    reports: dict[str, FullReport] = {}
    lines: list[OverviewLine] = []
    scores: dict[str, np.ndarray] = {}
    for item in exam.items:
        if item.label is None:
            continue
        table = tables[item.name]
        pred = score_column(exam, item)
        _need(table, pred, f"item {item.name}'s scores")
        report = build_report(table, pred, item_provenance(exam, item, data, date), item.rule, by, top, item.label2)
        reports[item.name] = report
        scores[item.name] = table.numbers(pred)
        lines.append(_line(item.name, item.label, item.weight, report, table.marks, scores[item.name], resamples,
                           seed))
    order = sorted(lines, key=lambda line: _worst_first(line, exam))
    unmarked = [OverviewLine(item.name, None, item.weight) for item in exam.items if item.label is None]
    total = _total(exam, tables, scores, data, date, by, top, resamples, seed) if reports else None
    return ExamReport(exam, data, date, reports, [*order, *unmarked], total, resamples, seed)


def _need(table: Table, column: str, what: str) -> None:
    if column not in table.columns:
        raise InputError(table.source, f"no such column ({what}; a file written by 'coscore score EXAM DATA -o "
                         "SCORED' has it)", column=column)


def _line(name: str, label: str | None, weight: float | None, report: FullReport, marks: np.ndarray,
          scores: np.ndarray, resamples: int, seed: int) -> OverviewLine:
    a = report.agreement
    ci = agreement_intervals(marks, scores, resamples, seed)["qwk"] if a.n else None
    prmse = report.consistency.true_score.prmse if report.consistency else None
    return OverviewLine(name, label, weight, a, ci, prmse, flags_of(a, report.consistency))


def _worst_first(line: OverviewLine, exam: Exam) -> tuple[int, float, int]:
    """Undefined QWK first, then the lowest QWK; ties in the exam's order."""
    qwk = line.agreement.qwk if line.agreement else None
    return (0 if qwk is None else 1, qwk or 0.0, exam.names.index(line.item))


def _total(exam: Exam, tables: Mapping[str, Table], scores: dict[str, np.ndarray], data: str, date: str,
           by: str | None, top: int, resamples: int, seed: int) -> ExamTotal:
    marked = {name: tables[name] for name in scores}
    weights = {name: exam.item(name).weight for name in marked}
    first = next(iter(marked.values()))
    read_total = (exam.item_column is None and len(marked) == len(exam.items) and TOTAL_COLUMN in first.columns)
    divisor = divisor_of(list(weights.values()))
    pred = TOTAL_COLUMN + (f" ÷ {divisor:g}" if divisor != 1 else "") if read_total else \
        total_label("score", divisor)
    given = {pred: first.numbers(TOTAL_COLUMN)} if read_total else None
    students = student_totals(exam, marked, [ItemScores(pred, weights, scores)], by, given)
    table = students.table
    column = Rows()
    column.add(_arrow(students.totals[pred]), len(table))
    table.columns[pred] = column
    provenance = Provenance(os.path.basename(exam.source) if exam.source else None,
                            file_hash(exam.source) if exam.source else None,
                            data, date)
    report = build_report(table, pred, provenance, None, by, top)
    line = _line("total", table.label, None, report, table.marks, students.totals[pred], resamples, seed)
    unmarked = tuple(item.name for item in exam.items if item.label is None)
    return ExamTotal(report, students, line, unmarked, weights)


def _arrow(values: np.ndarray) -> Any:
    import pyarrow as pa

    return pa.array(values, pa.float64())
