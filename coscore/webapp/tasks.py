"""Scoring tasks in the background, with the batch engine.

A task reads its dataset's lines ``1..length`` (line 0 is the CSV header), splits each as
the original does (``line.split(',')[0].split('-')``: the text column, blanks joined by
``-``) into an Arrow column of lists of blanks, scores them all at once with
:meth:`coscore.Rule.score_many` and stores the
original's ``result`` JSON (see :mod:`.stored_result`). A task that cannot finish is stored as
``failed`` with a message that says why — the missing rule or dataset, the rule's
diagnostics, or the answer (and its line in the data) that could not be scored.
"""
from __future__ import annotations

import logging
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from ..diagnostics import RuleError
from ..rule import compile as _compile
from .stored_result import AnswerFailed, result_json, score_answers
from .store import Store

__all__ = ["TaskRunner", "TaskFailed", "TaskAnswers", "task_answers", "describe_rule_error", "DEFAULT_WORKERS"]

#: How many tasks score at the same time.
DEFAULT_WORKERS = 2

_log = logging.getLogger("coscore.webapp")


class TaskFailed(Exception):
    """A task cannot finish; the message is what its ``result`` says."""


def describe_rule_error(exc: RuleError) -> str:
    """One line per diagnostic: ``path, column N: message``."""
    parts = []
    for d in exc.diagnostics:
        where = d.path + (f", column {d.column}" if d.column is not None else "")
        parts.append(f"{where}: {d.message}")
    return "; ".join(parts) or str(exc)


class TaskAnswers(Sequence[list[str]]):
    """The answers of a task: ``blanks``, a table of one Arrow column of lists of blanks
    (what :meth:`coscore.Rule.score_many` scores); answer ``i`` is made a Python list only
    when it is read (for a message, or to be scored again by the original's twin)."""

    def __init__(self, blanks: Any):
        self.blanks = blanks
        self._lists = blanks.column(0)

    def __len__(self) -> int:
        return len(self._lists)

    def __getitem__(self, index):  # type: ignore[no-untyped-def]
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        return self._lists[index].as_py()


def task_answers(data: str, length: object) -> TaskAnswers:
    """The answers a task scores: lines ``1..length`` of the dataset's CSV text, each
    ``line.split(',')[0].split('-')`` as the original splits it (in Arrow, at once)."""
    try:
        count = int(float(str(length)))
    except ValueError:
        raise TaskFailed(f"the dataset's length {length!r} is not a number") from None
    lines = data.split("\n")
    if count < 0 or count > len(lines) - 1:
        raise TaskFailed(f"the dataset says it has {count} answers but holds {len(lines) - 1} lines after its header")
    import pyarrow as pa
    import pyarrow.compute as pc

    from ..io.arrays import string_array
    from ..io.legacy import blank_lists

    texts = pc.list_element(pc.split_pattern(string_array(lines[1:count + 1]), ",", max_splits=1), 0)
    return TaskAnswers(pa.table({"answers": blank_lists(texts)}))


class TaskRunner:
    """Runs tasks on ``workers`` threads, each writing its outcome to ``store``."""

    def __init__(self, store: Store, workers: int = DEFAULT_WORKERS):
        self.store = store
        self._pool = ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="coscore-task")

    def submit(self, rowid: int, data_name: str, rule_name: str) -> Future:
        """Score the task stored at ``rowid`` in the background."""
        return self._pool.submit(self.run, rowid, data_name, rule_name)

    def resume(self) -> list[Future]:
        """Start again every task left ``running`` (the server stopped while it scored)."""
        return [self.submit(*task) for task in self.store.running_tasks()]

    def run(self, rowid: int, data_name: str, rule_name: str) -> str:
        """Score one task now and store its outcome; return its status."""
        try:
            result = self.score(data_name, rule_name)
        except TaskFailed as exc:
            status, result = "failed", str(exc)
        except Exception as exc:  # never lose a task to a bug: say what happened
            _log.exception("task %s failed", rowid)
            status, result = "failed", f"internal error: {type(exc).__name__}: {exc}"
        else:
            status = "completed"
        self.store.finish_task(rowid, status, result)
        return status

    def score(self, data_name: str, rule_name: str) -> str:
        """The ``result`` JSON of scoring dataset ``data_name`` with rule ``rule_name``."""
        text = self.store.rule_text(rule_name)
        if text is None:
            raise TaskFailed(f"the rule {rule_name!r} does not exist (it was deleted or renamed)")
        dataset = self.store.dataset(data_name)
        if dataset is None:
            raise TaskFailed(f"the dataset {data_name!r} does not exist (it was deleted or renamed)")
        try:
            rule = _compile(text)
        except RuleError as exc:
            raise TaskFailed(f"the rule {rule_name!r} does not compile: {describe_rule_error(exc)}") from None
        answers = task_answers(dataset["data"], dataset["count"])
        try:
            return result_json(rule, text, answers, score_answers(rule, answers.blanks))
        except AnswerFailed as exc:
            i = exc.index
            raise TaskFailed(f"answer {i + 1} (line {i + 2} of the data, {'-'.join(answers[i])!r}) "
                             f"cannot be scored: {exc.message}") from None

    def close(self, wait: bool = True) -> None:
        """Stop taking tasks. Tasks not started yet stay ``running`` in the database and are
        scored at the next start; with ``wait`` the ones scoring now are waited for."""
        self._pool.shutdown(wait=wait, cancel_futures=True)
