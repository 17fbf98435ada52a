"""Two versions of an exam's rules against the same marks (``coscore compare DATA --exam
EXAM_A EXAM_B``): per item, what :func:`.compare.compare` gives for the item's two rules
alone; then the students' totals, Σ weight × score of each exam against Σ weight × mark.

Items are matched by name; an item in one exam only is listed and left out, and so is an
item without marks. The marks, blanks and second marks are EXAM_A's, and the two exams
must agree on them (:func:`check_same_columns`). Each exam's total weights its items as
it says; the marks are weighted as EXAM_A weights them (:mod:`.totals`).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..labelled import Table
from .bootstrap import RESAMPLES, SEED
from .compare import Comparison, Scorer, compare
from .exam import exam_summary
from .items import item_provenance
from .sections import json_ready
from .totals import ItemScores, StudentTotals, student_totals

if TYPE_CHECKING:
    from ..exam import Exam

__all__ = ["ExamComparison", "check_same_columns", "compare_exams", "compared_items"]


@dataclass
class ExamComparison:
    """The outcome of :func:`compare_exams`: each compared item's :class:`.compare.Comparison`
    (EXAM_A's order), the items left out and why, and the totals' comparison."""

    exams: tuple[Exam, Exam]
    names: tuple[str, str]
    data: str
    date: str
    items: dict[str, Comparison]
    only_a: tuple[str, ...]
    only_b: tuple[str, ...]
    unmarked: tuple[str, ...]
    total: Comparison | None
    students: StudentTotals | None

    def to_dict(self) -> dict[str, Any]:
        """``{"exams": {"a", "b"}, "data", "date", "only_in_a", "only_in_b", "without_marks",
        "overview": [{"item", "n", "qwk": {name: {"value", "ci"}}, "qwk_difference"}],
        "items": {name: <compare of the item alone>}, "total"}``."""
        total = None
        if self.total is not None and self.students is not None:
            s = self.students
            total = {**self.total.to_dict(), "items": list(s.items), "divisor": s.divisor, "divisors": s.divisors,
                     "students": s.students, "incomplete": s.incomplete, "duplicated": s.duplicated,
                     "without_id": s.without_id, "mean_totals": s.raw_means()}
        return json_ready({
            "exams": {"a": {"shown": self.names[0], **exam_summary(self.exams[0])},
                      "b": {"shown": self.names[1], **exam_summary(self.exams[1])}},
            "data": self.data, "date": self.date,
            "only_in_a": list(self.only_a), "only_in_b": list(self.only_b), "without_marks": list(self.unmarked),
            "overview": [overview_line(name, c) for name, c in self.lines()],
            "items": {name: c.to_dict() for name, c in self.items.items()},
            "total": total,
        })

    def lines(self) -> list[tuple[str, Comparison]]:
        """Each compared item, then ``total``, with its comparison."""
        return [*self.items.items(), *([("total", self.total)] if self.total is not None else [])]


def overview_line(name: str, c: Comparison) -> dict[str, Any]:
    """``{"item", "n", "qwk": {scorer: {"value", "ci"}}, "qwk_difference": {"value", "ci"}}``."""
    return {"item": name, "n": c.n, "qwk": {s.name: s.estimates["qwk"].to_dict() for s in c.scorers},
            "qwk_difference": c.pairs[0].qwk_difference.to_dict() if c.pairs else None}


def compared_items(a: Exam, b: Exam) -> tuple[list[str], list[str], list[str], list[str]]:
    """The items of both exams with marks (EXAM_A's order), those of EXAM_A only, of
    EXAM_B only, and those of both without marks."""
    both = [name for name in a.names if name in b.names]
    return ([name for name in both if a.item(name).label is not None],
            [name for name in a.names if name not in b.names], [name for name in b.names if name not in a.names],
            [name for name in both if a.item(name).label is None])


def check_same_columns(a: Exam, b: Exam, names: Sequence[str]) -> None:
    """Raise ``ValueError`` (one line) when the two exams disagree on the layout, or on the
    blanks, marks or second marks of one of ``names``."""
    if (a.item_column, a.id) != (b.item_column, b.id):
        raise ValueError(f"the exams differ in layout ({a.layout}, item_column {a.item_column!r}, id {a.id!r}; "
                         f"{b.layout}, item_column {b.item_column!r}, id {b.id!r}): compare two versions of one "
                         "paper, over the same columns")
    for name in names:
        x, y = a.item(name), b.item(name)
        for what, one, two in (("blanks", x.blanks, y.blanks), ("label", x.label, y.label),
                               ("label2", x.label2, y.label2)):
            if one != two:
                raise ValueError(f"item {name}: the exams give different {what} ({_shown(one)} and {_shown(two)}); "
                                 f"compare two versions of one paper: give the item the same {what} in both")


def _shown(value: object) -> str:
    return ", ".join(value) if isinstance(value, tuple) else "none" if value is None else str(value)


def compare_exams(a: Exam, b: Exam, names: tuple[str, str], tables: Mapping[str, Table], data: str, date: str,
                  resamples: int = RESAMPLES, seed: int = SEED, top: int = 10, by: str | None = None) -> ExamComparison:
    """Compare the rules of exams ``a`` and ``b`` (shown as ``names``) item by item and in
    total on ``tables``, each compared item's table (:func:`.items.item_tables` with
    EXAM_A's items); the other arguments are :func:`.compare.compare`'s."""
    marked, only_a, only_b, unmarked = compared_items(a, b)
    check_same_columns(a, b, [*marked, *unmarked])
    items: dict[str, Comparison] = {}
    scores: dict[str, dict[str, Any]] = {names[0]: {}, names[1]: {}}
    for name in marked:
        table = tables[name]
        scorers = []
        for exam, shown in zip((a, b), names):
            item = exam.item(name)
            scores[shown][name] = table.score(item.rule).scores
            scorers.append(Scorer(shown, scores[shown][name], item.rule, item_provenance(exam, item, data, date)))
        items[name] = compare(table, scorers, date, resamples, seed, top, label2=a.item(name).label2, by=by)
    total, students = None, None
    if marked:
        totals = [ItemScores(shown, {name: exam.item(name).weight for name in marked}, scores[shown])
                  for exam, shown in zip((a, b), names)]
        students = student_totals(a, {name: tables[name] for name in marked}, totals, by)
        total = compare(students.table, [Scorer(shown, students.totals[shown]) for shown in names], date, resamples,
                        seed, top, by=by)
    return ExamComparison((a, b), names, data, date, items, tuple(only_a), tuple(only_b), tuple(unmarked), total,
                          students)
