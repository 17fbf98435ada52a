"""Exams in ``coscore workbench``: an exam file (the format of ``coscore score EXAM``,
:mod:`coscore.exam`) opened on a stored dataset, its items listed with their figures.

:func:`exam_items` runs in a worker: it loads the exam (every rule compiled; an exam opened
in the page must hold its rules inline, one given with ``--exam`` may name rule files),
reads the dataset's file once for all its items (:func:`coscore.report.items.item_tables`,
marks read with ``--missing-marks skip``), scores each item's rule on its columns and gives
each item's ``n``, QWK with its 95 % bootstrap interval, exact agreement, SMD and the flags
``coscore report --exam`` raises (:func:`coscore.report.exam.flags_of`), worst first as its
overview orders them (an undefined QWK first, then the lowest). Each item's columns are
written as a view of the dataset (:func:`.datasets.write_view`), so that choosing an item
shows the dataset view on its columns at once.
"""
from __future__ import annotations

import json
import math
import os
from typing import Any

from ..http.responses import ApiError
from ..io import InputError
from .datasets import FileRequest, view_name, write_view

__all__ = ["exam_items", "item_mapping"]


def _number(value: Any) -> float | None:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else float(value)


def _rule_text(spec: Any) -> str:
    """An item's rule as JSON text for the editor: the rule file's text, or the inline rule."""
    if isinstance(spec.rule, str):
        return spec.rule
    return json.dumps(spec.rule, ensure_ascii=False, indent=2)


def item_mapping(item: Any, exam: Any) -> dict[str, Any]:
    """The column mapping of an exam item (its blanks and marks, the exam's id column)."""
    return {"blanks": list(item.blanks), "label": item.label, "label2": item.label2, "group": None, "id": exam.id}


def exam_items(path: str, allow_files: bool, data: FileRequest | None, views: str | None, key: str | None
               ) -> dict[str, Any]:
    """The exam at ``path`` and, on the dataset file ``data``, each item's figures (see the
    module's description); views are written in folder ``views`` named after ``key``.
    422 for an exam with problems (every one listed) or a file without an item's columns."""
    from ..exam import ExamError, load_exam, read_exam

    try:
        spec = read_exam(path, allow_files=allow_files)
        exam = load_exam(path, allow_files=allow_files)
    except ExamError as exc:
        shown = str(exc).replace(path, os.path.basename(path))
        raise ApiError(422, shown if allow_files else shown + " (an exam opened in the page holds its rules inline; "
                       "for rule files, start coscore workbench --exam EXAM)") from None
    texts = {item.name: _rule_text(item) for item in spec.items}
    items = [{"name": item.name, "blanks": list(item.blanks), "label": item.label, "label2": item.label2,
              "weight": item.weight, "rule": texts[item.name], "mapping": item_mapping(item, exam)}
             for item in exam.items]
    out: dict[str, Any] = {"name": exam.name or os.path.basename(path), "layout": exam.layout, "id": exam.id,
                           "items": items, "scored": False}
    if data is None or views is None or key is None:
        return out
    from ..report import agreement
    from ..report.compare import agreement_intervals
    from ..report.exam import flags_of
    from ..report.items import item_tables

    notes: list[str] = []
    try:
        tables = item_tables(exam, data.path, data.format(), exam.items, missing_marks="skip",
                             **data.options(notes))
    except InputError as exc:
        raise ApiError(422, str(exc).replace(exc.source, data.shown, 1) if exc.source else str(exc)) from None
    for entry, item in zip(items, exam.items):
        table = tables[item.name]
        scores = table.score(item.rule).scores
        mapping = item_mapping(item, exam)
        view = view_name(key, mapping)
        write_view(table, mapping, os.path.join(views, view))
        entry["view"] = view
        entry["n_rows"] = len(table)
        if item.label is None:
            entry.update(n=None, qwk=None, flags=[])
            continue
        a = agreement(table.marks, scores)
        ci = agreement_intervals(table.marks, scores)["qwk"] if a.n else None
        entry.update(n=a.n, qwk={"value": _number(a.qwk), "ci": list(ci) if ci else None},
                     exact_agreement=_number(a.exact_agreement), smd=_number(a.smd),
                     mean_mark=_number(a.mean_human), mean_score=_number(a.mean_pred), flags=list(flags_of(a)))
    order = {name: i for i, name in enumerate(exam.names)}

    def worst_first(entry: dict[str, Any]) -> tuple[int, float, int]:
        if entry.get("n") is None:   # no marks: last
            return (2, 0.0, order[entry["name"]])
        value = entry["qwk"]["value"]
        return (0 if value is None else 1, value or 0.0, order[entry["name"]])

    out["items"] = sorted(items, key=worst_first)
    out["scored"] = True
    out["notes"] = notes
    return out
