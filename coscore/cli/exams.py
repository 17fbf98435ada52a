"""What the subcommands that take an exam in place of a rule share (``report --exam``,
``compare --exam``, ``explain``/``tune``/``suggest EXAM DATA --item NAME``): loading the
exam with one clear message, refusing the options its file answers, picking an item."""
from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from ..diagnostics import shorten
from .errors import UsageError

if TYPE_CHECKING:
    from ..exam import Exam, ExamItem
    from ..labelled import Table

#: The options an exam answers for each item, with the attribute each sets and its default.
RULE_OPTIONS = {"--label": ("label", None), "--label2": ("label2", None), "--pred": ("pred", "coscore_score"),
                "--rule": ("rule", None), "--blanks": ("blanks", None)}


def is_exam(path: str) -> bool:
    """Whether ``path`` is an exam file (YAML, or JSON with a top-level ``items``)."""
    from ..exam import is_exam_file

    return is_exam_file(path)


def load_exam_file(path: str) -> Exam:
    """The exam at ``path``, its rules compiled; its problems as one :class:`UsageError`."""
    from ..exam import ExamError, load_exam

    try:
        return load_exam(path)
    except ExamError as exc:
        raise UsageError(str(exc)) from None


def refuse_rule_options(args: argparse.Namespace, flags: tuple[str, ...]) -> None:
    """Refuse each of ``flags`` (of :data:`RULE_OPTIONS`) given with an exam."""
    for flag in flags:
        attr, default = RULE_OPTIONS[flag]
        if getattr(args, attr, default) != default:
            raise UsageError(f"{flag} does not apply to an exam: its file names each item's rule, blanks and marks")


def exam_inputs(exam: Exam) -> list[str]:
    """The files an exam is made of (the exam file and its items' rule files): inputs no
    output may replace."""
    return [name for name in (exam.source, *(item.rule_path for item in exam.items)) if name]


def pick_item(exam: Exam, name: str | None, path: str, command: str) -> ExamItem:
    """The item ``--item`` names; a :class:`UsageError` listing the items when it is
    missing or names none."""
    names = ", ".join(shorten(n, 80) for n in exam.names[:50]) + (", …" if len(exam.items) > 50 else "")
    if name is None:
        raise UsageError(f"{path} is an exam: pick one of its items with --item NAME (coscore {command} EXAM DATA "
                         f"--item NAME; items: {names})")
    if name not in exam.names:
        raise UsageError(f"{path}: no item is called {shorten(repr(name), 100)}; give --item one of: {names}")
    return exam.item(name)


def item_table(exam: Exam, item: ExamItem, data: str, fmt: str | None, reading: dict[str, Any],
               marks: bool = False) -> Table:
    """``item``'s table in the data file ``data`` (its blanks and marks; in the long
    layout only its rows); with ``marks``, a :class:`UsageError` when the item has none."""
    from ..report.items import item_tables

    if marks and item.label is None:
        raise UsageError(f"item {item.name} of {exam.source} has no marks: name its mark column with 'label:' in "
                         "the exam")
    return item_tables(exam, data, fmt, [item], **reading)[item.name]


def item_rule_name(exam: Exam, item: ExamItem) -> str:
    """How the rule of ``item`` is named in a command's output: its rule file, or the
    exam file and the item for a rule written in the exam."""
    import os

    if item.rule_path is not None:
        return os.path.basename(item.rule_path)
    return f"{os.path.basename(exam.source or '<exam>')} (the inline rule of {item.name})"
