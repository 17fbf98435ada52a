"""The items of an exam in a data file read whole: one :class:`~coscore.labelled.Table`
per item, the file read once.

Each item's table is what :func:`coscore.labelled.read_table` gives with the item's
blanks and label: in the wide layout every row, in the long layout the rows whose item
column names the item (:meth:`~coscore.labelled.Table.subset`: each row keeps its number
in the file). Rows of the long layout that name no item asked for are left out.
"""
from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..io import InputError
from ..labelled import Table, file_hash, read_tables
from .groups import cells
from .sections import Provenance

if TYPE_CHECKING:
    from ..exam import Exam, ExamItem

__all__ = ["item_provenance", "item_tables"]


def item_tables(exam: Exam, path: str | os.PathLike[str], fmt: str | None, items: Sequence[ExamItem],
                **reading: Any) -> dict[str, Table]:
    """The table of each of ``items`` (items of ``exam``) in the data file ``path``, read
    once (``reading``: the options of :func:`coscore.io.open_reader`). Raises
    :class:`~coscore.io.InputError` for a file in the original CoScore layout, or a
    column the exam names that the file lacks (saying whose column it is)."""
    if fmt == "coscore":
        raise InputError(str(path), "an exam names its items' columns; the original CoScore layout (text[,score]) "
                         "has none: give the file of the exam's columns")
    choices: list[tuple[tuple[str, ...], str | None]] = []
    for item in items:
        if (item.blanks, item.label) not in choices:   # the long layout's items share their columns
            choices.append((item.blanks, item.label))
    try:
        tables = read_tables(path, fmt, choices, **reading)
    except InputError as exc:
        raise _whose(exc, items) from None
    by_choice = dict(zip(choices, tables))
    chosen = {item.name: by_choice[(item.blanks, item.label)] for item in items}
    if exam.item_column is None or not tables:
        return chosen
    first = tables[0]
    if exam.item_column not in first.columns:
        raise InputError(first.source, f"no such column (the item column of the exam; columns: "
                         f"{_listing(list(first.columns))})", column=exam.item_column)
    rows = _rows_of(cells(first.columns[exam.item_column]))
    return {name: table.subset(rows.get(name, np.zeros(0, dtype=np.int64))) for name, table in chosen.items()}


def _rows_of(names: list[str]) -> dict[str, np.ndarray]:
    """The rows (ascending) that name each item, by name."""
    if not names:
        return {}
    values, inverse = np.unique(np.asarray(names, dtype=object).astype(str), return_inverse=True)
    order = np.argsort(inverse, kind="stable")
    bounds = np.searchsorted(inverse[order], np.arange(len(values) + 1))
    return {str(value): order[bounds[j]:bounds[j + 1]] for j, value in enumerate(values.tolist())}


def item_provenance(exam: Exam, item: ExamItem, data: str, date: str) -> Provenance:
    """The provenance of a report on ``item`` over ``data``: its rule file (name and
    SHA-256), or for a rule written in the exam, the exam file's name and SHA-256."""
    if item.rule_path is not None:
        return Provenance(os.path.basename(item.rule_path), file_hash(item.rule_path), data, date)
    if exam.source is None:
        return Provenance(f"the inline rule of {item.name}", None, data, date)
    return Provenance(f"{os.path.basename(exam.source)} (the inline rule of {item.name})", file_hash(exam.source),
                      data, date)


def _whose(exc: InputError, items: Sequence[ExamItem]) -> InputError:
    """``exc`` saying which item its column belongs to, when it is one item's only."""
    roles = [(item.name, "a blank" if exc.column in item.blanks else "the mark column") for item in items
             if exc.column is not None and (exc.column in item.blanks or exc.column == item.label)]
    if len(roles) != 1:
        return exc
    name, role = roles[0]
    return InputError(exc.source, f"item {name} ({role}): {exc.problem}", line=exc.line, row=exc.row,
                      column=exc.column)


def _listing(names: list[str]) -> str:
    return ", ".join(names[:12]) + (", …" if len(names) > 12 else "")
