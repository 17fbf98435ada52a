"""Scoring tasks in the background, in the worker processes, a slice at a time.

A task reads its dataset's lines ``1..length`` (line 0 is the CSV header), splits each as
the original does (``line.split(',')[0].split('-')``: the text column, blanks joined by
``-``), and scores them in the app's worker processes (:mod:`.work`) with the batch
engine, storing the original's ``result`` JSON (see :mod:`.stored_result`). A task that
cannot finish is stored as ``failed`` with a message that says why — the missing rule or
dataset, the rule's diagnostics, the answer (and its line in the data) that could not
be scored, or the budget it went over.

The lines of data go to the workers in slices (split into answers there), each sized to
take about :data:`SLICE_SECONDS` (one answer first, then more as they prove quick).
Every task waits its turn for a worker, one slice at a time, so a small task finishes
beside large ones instead of after them, and requests go before all of them. Budgets: each
slice gets the pool's wall-time and memory budgets (an answer alone over them fails the task, naming it), the answers'
own budgets (:class:`coscore.Limits`) hold inside, and a task may use ``task_time``
seconds of workers' time in all and build a ``result`` of at most ``max_result``
characters. :meth:`TaskRunner.cancel` stops a task at once: its waiting slice is dropped
and the worker scoring it is stopped.
"""
from __future__ import annotations

import itertools
import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

from ..errors import CoscoreError
from ..http.pool import JobCancelled, OverBudget, WorkerPool, WorkerStopped
from ..rulecache import rule_key
from .answers import TaskAnswers, TaskFailed, describe_rule_error, task_answers, task_lines
from .store import Store
from .stored_result import result_text
from .work import handler

__all__ = ["TaskRunner", "TaskFailed", "TaskAnswers", "task_answers", "task_lines", "describe_rule_error",
           "DEFAULT_WORKERS", "DEFAULT_TASK_TIME", "DEFAULT_MAX_RESULT"]

#: Worker processes of a runner that has its own pool (and tasks scored at once).
DEFAULT_WORKERS = 2
#: Seconds of workers' time one task may use in all.
DEFAULT_TASK_TIME = 600.0
#: Characters a task's stored ``result`` may hold.
DEFAULT_MAX_RESULT = 256 * 2**20
#: The time a slice of answers should take in a worker; and the most answers in one.
SLICE_SECONDS, MAX_SLICE = 0.5, 100_000
#: Tasks that may wait for the workers at once (each has a thread that sends its slices).
MAX_TASKS = 64

_log = logging.getLogger("coscore.webapp")


class _Stopped(CoscoreError):
    """The task was deleted, or the server is stopping: store nothing."""


@dataclass(eq=False)
class _Run:
    """One scoring of the task stored at ``rowid`` (SQLite may give a new task the row id
    of a deleted one: a run, not a row id, is what gets cancelled)."""

    rowid: int
    number: int
    cancelled: bool = False


class TaskRunner:
    """Runs tasks in ``pool`` (its own pool of ``workers`` processes when none is given),
    each writing its outcome to ``store``; see the module's description."""

    def __init__(self, store: Store, workers: int = DEFAULT_WORKERS, pool: WorkerPool | None = None, *,
                 task_time: float = DEFAULT_TASK_TIME, max_result: int = DEFAULT_MAX_RESULT,
                 result_check: Callable[..., str | None] | None = None,
                 room: Callable[[], int | None] | None = None):
        """``result_check(db, rowid, result)``, when given, says why a result may not be
        stored (the store's quota, :meth:`.quotas.Keeper.check_result`): the task is then
        stored ``failed`` with that reason; ``room()`` the characters the results may still
        grow by (``None``: any), which a task's result is held to as it is built."""
        self.store = store
        self.result_check = result_check
        self.room = room
        self.pool = pool if pool is not None else WorkerPool(handler, size=max(1, workers), start=False)
        self._own_pool = pool is None
        self.task_time = task_time
        self.max_result = max_result
        self._threads = ThreadPoolExecutor(max_workers=MAX_TASKS, thread_name_prefix="coscore-task")
        self._local = threading.local()
        self._runs: dict[int, set[_Run]] = {}
        self._numbers = itertools.count()
        self._lock = threading.Lock()
        self._stopping = False

    def _start(self, rowid: int) -> _Run:
        run = _Run(rowid, next(self._numbers))
        with self._lock:
            self._runs.setdefault(rowid, set()).add(run)
        return run

    def submit(self, rowid: int, data_name: str, rule_name: str) -> Future:
        """Score the task stored at ``rowid`` in the background; the future gives its status."""
        return self._threads.submit(self._run, self._start(rowid), data_name, rule_name)

    def resume(self) -> list[Future]:
        """Start again every task left ``running`` (the server stopped while it scored)."""
        return [self.submit(*task) for task in self.store.running_tasks()]

    def cancel(self, rowid: int) -> None:
        """Stop the task stored at ``rowid`` (deleted): nothing more is scored or stored for it."""
        with self._lock:
            runs = list(self._runs.get(rowid, ()))
        for run in runs:
            run.cancelled = True
            self.pool.cancel(("task", run.number))

    def run(self, rowid: int, data_name: str, rule_name: str) -> str:
        """Score one task now and store its outcome; return its status (``"deleted"`` when
        it was cancelled, ``"stopped"`` when the server stops: then nothing is stored)."""
        return self._run(self._start(rowid), data_name, rule_name)

    def _run(self, run: _Run, data_name: str, rule_name: str) -> str:
        rowid = run.rowid
        self._local.run = run
        try:
            result = self.score(data_name, rule_name)
        except _Stopped:
            return "stopped" if self._stopping else "deleted"
        except TaskFailed as exc:
            status, result = "failed", str(exc)
        except Exception as exc:  # never lose a task to a bug: say what happened
            _log.exception("task %s failed", rowid)
            status, result = "failed", f"internal error: {type(exc).__name__}: {exc}"
        else:
            status = "completed"
        finally:
            self._local.run = None
            with self._lock:
                self._runs[rowid].discard(run)
                if not self._runs[rowid]:
                    del self._runs[rowid]
        if run.cancelled:
            return "deleted"
        self.store.finish_task(rowid, status, result, check=self.result_check)
        return status

    def score(self, data_name: str, rule_name: str) -> str:
        """The ``result`` JSON of scoring dataset ``data_name`` with rule ``rule_name``."""
        text = self.store.rule_text(rule_name)
        if text is None:
            raise TaskFailed(f"the rule {rule_name!r} does not exist (it was deleted or renamed)")
        dataset = self.store.dataset(data_name)
        if dataset is None:
            raise TaskFailed(f"the dataset {data_name!r} does not exist (it was deleted or renamed)")
        lines = task_lines(dataset["data"], dataset["count"])
        del dataset
        return self._score_in_slices(text, rule_name, lines)

    def _score_in_slices(self, text: str, rule_name: str, lines: list[str]) -> str:
        run = getattr(self._local, "run", None) or _Run(-1, next(self._numbers))
        group = ("task", run.number)
        key = rule_key(text)
        scores: list[str] = []
        logs: list[str] = []
        spent, size, start, chars = 0.0, 1, 0, 0
        room = self.room() if self.room is not None else None
        max_result = self.max_result if room is None else min(self.max_result, room)
        while start < len(lines) or not scores:  # one slice at least: the rule must compile
            if run.cancelled or self._stopping:
                raise _Stopped
            if spent > self.task_time:
                raise TaskFailed(f"the task used more than its {self.task_time:g} s of scoring and was stopped "
                                 f"after {start} of {len(lines)} answers (limit task_time)")
            part = lines[start:start + size]
            try:
                status, reply = self.pool.submit("chunk", (text, part), group=group, affinity=key).result()
            except OverBudget as exc:
                spent += exc.limit if exc.budget == "time" else 0.0
                if size > 1:  # try these answers one by one, to name the one over budget
                    size = 1
                    continue
                raise TaskFailed(f"{_answer(lines, start)} {_over(exc)}") from None
            except JobCancelled:
                raise _Stopped from None
            except WorkerStopped as exc:
                raise TaskFailed(f"{_answer(lines, start)} stopped its worker: {exc}") from None
            if status != 200:
                raise TaskFailed(f"internal error: {reply.get('error')}")
            if reply[0] == "invalid":
                raise TaskFailed(f"the rule {rule_name!r} does not compile: {reply[1]}")
            if reply[0] == "failed":
                raise TaskFailed(f"{_answer(lines, start + reply[1])} cannot be scored: {reply[2]}")
            _, score_part, log_part, seconds = reply
            if not part:
                break
            chars += len(score_part) + len(log_part) + 4
            if chars > max_result:
                raise TaskFailed(f"the result would be longer than {max_result:,} characters (limit "
                                 + ("max_result)" if max_result == self.max_result else
                                    "--max-task-bytes: the tasks' quota has no more room; delete tasks)"))
            scores.append(score_part)
            logs.append(log_part)
            spent += seconds
            start += len(part)
            grow = min(8.0, SLICE_SECONDS / max(seconds, 1e-4))
            size = max(1, min(MAX_SLICE, int(len(part) * grow)))
        return result_text(scores, logs)

    def close(self, wait: bool = True) -> None:
        """Stop taking tasks. Tasks not finished stay ``running`` in the database and are
        scored at the next start; with ``wait`` the ones scoring now are waited for, else
        they are stopped (their slices dropped) and their threads waited for."""
        if not wait:
            self._stopping = True
            with self._lock:
                runs = [run for runs in self._runs.values() for run in runs]
            for run in runs:
                self.pool.cancel(("task", run.number))
        self._threads.shutdown(wait=True, cancel_futures=True)
        if self._own_pool:
            self.pool.close()


def _answer(lines: list[str], index: int) -> str:
    return f"answer {index + 1} (line {index + 2} of the data, {lines[index].split(',')[0]!r})"


def _over(exc: OverBudget) -> str:
    if exc.budget == "time":
        return f"took more than the {exc.limit:g} s a worker may spend on one answer (limit time)"
    if exc.budget == "memory":
        return f"needed more than the {exc.limit:,} bytes of memory a worker may use (limit memory)"
    return exc.message
