"""A task's answers: the lines of its dataset, split as the original splits them, and
the messages of a task that cannot finish.

The original scores answer ``i`` as ``calculate(line.split(',')[0].split('-'))`` for the
dataset's lines ``1..length``: the text column (before the first ``,``), its blanks
joined by ``-``. :func:`task_lines` picks the lines (in the server), :func:`answers_of`
splits them (in a worker, a slice at a time).
"""
from __future__ import annotations

from ..diagnostics import RuleError

__all__ = ["TaskFailed", "task_lines", "task_answers", "answers_of", "describe_rule_error"]


class TaskFailed(Exception):
    """A task cannot finish; the message is what its ``result`` says."""


def task_lines(data: str, length: object) -> list[str]:
    """The lines of data a task scores: lines ``1..length`` of the dataset's CSV text."""
    try:
        count = int(float(str(length)))
    except ValueError:
        raise TaskFailed(f"the dataset's length {length!r} is not a number") from None
    lines = data.split("\n")
    if count < 0 or count > len(lines) - 1:
        raise TaskFailed(f"the dataset says it has {count} answers but holds {len(lines) - 1} lines after its header")
    return lines[1:count + 1]


def answers_of(lines: list[str]) -> list[list[str]]:
    """The answers of a dataset's lines, split as the original splits them."""
    return [line.split(",")[0].split("-") for line in lines]


def task_answers(data: str, length: object) -> list[list[str]]:
    """The answers a task scores: lines ``1..length`` of the dataset's CSV text, split."""
    return answers_of(task_lines(data, length))


def describe_rule_error(exc: RuleError) -> str:
    """One line per diagnostic: ``path, column N: message``."""
    parts = []
    for d in exc.diagnostics:
        where = d.path + (f", column {d.column}" if d.column is not None else "")
        parts.append(f"{where}: {d.message}")
    return "; ".join(parts) or str(exc)
