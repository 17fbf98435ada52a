"""A task's answers: the lines of its dataset, split as the original splits them, and
the messages of a task that cannot finish.

The original scores answer ``i`` as ``calculate(line.split(',')[0].split('-'))`` for the
dataset's lines ``1..length``: the text column (before the first ``,``), its blanks
joined by ``-``. :func:`task_lines` picks the lines (in the server), :func:`answers_of`
splits them (in a worker, a slice at a time) into one Arrow column of lists of blanks
(:class:`TaskAnswers`), what :meth:`coscore.Rule.score_many` scores.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..diagnostics import RuleError
from ..errors import CoscoreError

__all__ = ["TaskFailed", "TaskAnswers", "task_lines", "task_answers", "answers_of", "describe_rule_error"]


class TaskFailed(CoscoreError):
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


class TaskAnswers(Sequence[list[str]]):
    """The answers of a task: ``blanks``, a table of one Arrow column of lists of blanks
    (what :meth:`coscore.Rule.score_many` scores); answer ``i`` is made a Python list only
    when it is read (for a message, or to be scored again by the original's twin)."""

    def __init__(self, blanks: Any):
        self.blanks = blanks
        self._lists = blanks.column(0)

    def __len__(self) -> int:
        return len(self._lists)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        return self._lists[index].as_py()


def answers_of(lines: list[str]) -> TaskAnswers:
    """The answers of a dataset's lines, each ``line.split(',')[0].split('-')`` as the
    original splits it (in Arrow, at once)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from ..io import blank_lists, string_array

    texts = pc.list_element(pc.split_pattern(string_array(lines), ",", max_splits=1), 0)
    return TaskAnswers(pa.table({"answers": blank_lists(texts)}))


def task_answers(data: str, length: object) -> TaskAnswers:
    """The answers a task scores: lines ``1..length`` of the dataset's CSV text, split as
    the original splits them (in Arrow, at once)."""
    return answers_of(task_lines(data, length))


def describe_rule_error(exc: RuleError) -> str:
    """One line per diagnostic: ``path, column N: message``."""
    parts = []
    for d in exc.diagnostics:
        where = d.path + (f", column {d.column}" if d.column is not None else "")
        parts.append(f"{where}: {d.message}")
    return "; ".join(parts) or str(exc)
