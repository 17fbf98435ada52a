"""A bounded pool of worker processes that run jobs under a wall-time and a memory budget.

Both servers parse, compile and score in these processes (:mod:`coscore.http.worker`),
so one hostile request can cost the others neither the event loop nor the memory of the
whole server:

- each job has a **wall-time budget**: a worker still busy when it runs out is killed
  (``SIGKILL``), the job answered :class:`OverBudget` ``"time"``, and a fresh worker started;
- each worker has a **memory budget**: its resident memory may grow by at most that many
  bytes over what it held when it started. The pool looks at it every 20 ms while a job
  runs and kills a worker past it; as a backstop the worker's address space is limited,
  so an allocation past it raises ``MemoryError`` inside the worker. Either way the job is
  answered :class:`OverBudget` ``"memory"`` and the worker replaced. A worker that ends a
  job holding more than three quarters of its budget is replaced too, so memory that was
  freed but not returned is given back;
- at most ``size`` jobs run at once. A request (a job without a group) that cannot get a
  worker within its wait is answered :class:`OverBudget` ``"workers"``. Requests go
  first, the next one always of a client running the fewest (each request names its
  client, :data:`coscore.http.clients.CURRENT_CLIENT` by default), and while several
  clients are active none takes more than its share of the workers: a client that sends
  many requests at once waits for its own, and another's request finds a worker. Jobs of
  groups (the web app's tasks, a group per task) take turns, one group's job after
  another's, so a small task is never stuck behind a large one, and
  :meth:`WorkerPool.cancel` drops a group's waiting jobs and stops its running one at once;
- a job may name an *affinity* (a rule's content): it goes to a free worker that ran a
  job of the same affinity lately when there is one, whose cache holds the compiled rule.

One thread of the server owns the workers: it starts them, sends them jobs, watches them
and answers each job's :class:`concurrent.futures.Future`. :meth:`WorkerPool.submit` only
queues a job and never blocks, so the event loop can call it, and so can other threads
(:meth:`WorkerPool.run` is its ``asyncio`` form).
"""
from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import queue
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Hashable
from concurrent.futures import Future
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from typing import Any

from ..errors import CoscoreError
from ..limits import rss_bytes
from .clients import CURRENT_CLIENT
from .worker import worker_main

__all__ = ["OverBudget", "WorkerStopped", "JobCancelled", "WorkerPool"]

#: How often (seconds) the memory of a busy worker is looked at.
WATCH_INTERVAL = 0.02
#: How long to wait before starting again a worker that died while starting (doubled
#: after each such death in a row, up to a minute).
RESTART_DELAY = 1.0
#: How many recent affinities each worker remembers.
RECENT = 64
#: Seconds after its last request a client still counts as active: while another is, no
#: client's requests take more than their share of the workers.
ACTIVE = 10.0
#: What :meth:`WorkerPool._next_client` gives when no waiting request may run now.
_NOBODY = object()

_log = logging.getLogger("coscore.http")


class OverBudget(CoscoreError):
    """A job stopped by a budget: ``budget`` is ``"time"``, ``"memory"`` or ``"workers"``."""

    def __init__(self, budget: str, message: str, limit: float | int):
        super().__init__(message)
        self.budget = budget
        self.message = message
        self.limit = limit


class WorkerStopped(CoscoreError):
    """The worker ended without answering (crashed or was killed from outside)."""


class JobCancelled(CoscoreError):
    """The job's group was cancelled, or the pool closed, before the job ended."""


@dataclass(eq=False)
class _Job:
    kind: str
    payload: Any
    future: Future
    group: Hashable | None
    timeout: float
    deadline: float | None  # the latest time it may wait for a worker (None: no limit)
    affinity: Hashable | None
    client: Hashable | None = None  # whose request it is: requests take turns by client
    started: float = 0.0


@dataclass(eq=False)
class _Worker:
    process: Any
    conn: Connection
    ready: bool = False
    base_rss: int = 0
    stats: dict = field(default_factory=dict)
    job: _Job | None = None
    retry_at: float = 0.0  # a worker that died while starting is started again then
    idle_since: float = 0.0  # jobs go to the worker idle the longest, spreading them out
    recent: OrderedDict = field(default_factory=OrderedDict)


class WorkerPool:
    """``size`` worker processes built by ``factory(*args)``; see the module's description.

    ``timeout`` is the wall-time budget of one job in seconds (and how long a request may
    wait for a worker), ``memory`` the bytes a worker may grow by (``None``: unbounded).
    The workers start at once, or with ``start=False`` at the first :meth:`submit`.
    """

    def __init__(self, factory: Callable[..., Any], args: tuple = (), size: int = 2, timeout: float = 5.0,
                 memory: int | None = 2**30, start: bool = True):
        if size < 1:
            raise ValueError("a worker pool needs at least one worker")
        if timeout <= 0:
            raise ValueError("timeout must be > 0")
        if memory is not None and memory <= 0:
            raise ValueError("memory must be > 0 (or None)")
        self.factory, self.args, self.size, self.timeout, self.memory = factory, args, size, timeout, memory
        self.restarts = 0
        self.busy = 0
        self._failed_starts = 0
        self.queued = 0
        self._context = multiprocessing.get_context("spawn")
        self._workers: list[_Worker] = []
        self._inbox: queue.SimpleQueue = queue.SimpleQueue()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_w, False)
        self._requests: OrderedDict[Hashable | None, deque[_Job]] = OrderedDict()  # by client, in turn
        self._seen: dict[Hashable | None, float] = {}  # when each client last sent a request
        self._served: dict[Hashable | None, int] = {}  # the turn each client's request last ran in
        self._turn = 0
        self._groups: OrderedDict[Hashable, deque[_Job]] = OrderedDict()
        self._thread: threading.Thread | None = None
        self._started = threading.Lock()
        self._posting = threading.Lock()
        self._closed = False
        self._gone = False  # the loop has ended: nothing posted is read any more
        if start:
            self.start()

    # -- the callers' side ---------------------------------------------------------------
    def start(self) -> None:
        """Start the workers and the thread that runs them (once; later calls do nothing)."""
        with self._started:
            if self._thread is not None or self._closed:
                return
            self._workers = [self._spawn() for _ in range(self.size)]
            self._thread = threading.Thread(target=self._loop, name="coscore-pool", daemon=True)
            self._thread.start()

    def submit(self, kind: str, payload: Any, *, group: Hashable | None = None, timeout: float | None = None,
               wait: float | None = None, affinity: Hashable | None = None,
               client: Hashable | None = None) -> Future:
        """Queue a job; its future gives ``(status, reply)`` or raises :class:`OverBudget`,
        :class:`WorkerStopped` or :class:`JobCancelled`.

        A job without a ``group`` is a request: it goes before every group's jobs and waits
        at most ``wait`` seconds for a worker (default: the pool's ``timeout``); jobs of
        groups wait as long as it takes, taking turns. ``timeout`` is the job's wall-time
        budget (default: the pool's). Waiting requests are served one ``client``'s after
        another's (default: the client of the request being answered,
        :data:`~coscore.http.clients.CURRENT_CLIENT`).
        """
        future: Future = Future()
        if self._closed:
            future.set_exception(JobCancelled("the server is stopping"))
            return future
        self.start()
        limit = self.timeout if timeout is None else timeout
        patience = (self.timeout if wait is None else wait) if group is None else None
        deadline = None if patience is None else time.monotonic() + patience
        who = CURRENT_CLIENT.get() if client is None else client
        if not self._post(("job", _Job(kind, payload, future, group, limit, deadline, affinity, who))):
            future.set_exception(JobCancelled("the server is stopping"))
        return future

    async def run(self, kind: str, payload: Any, **options: Any) -> tuple[int, Any]:
        """:meth:`submit` a job and wait for it: ``(status, reply)``."""
        return await asyncio.wrap_future(self.submit(kind, payload, **options))

    def cancel(self, group: Hashable) -> None:
        """Drop the waiting jobs of ``group`` and stop its running one (:class:`JobCancelled`)."""
        self._post(("cancel", group))

    def info(self) -> dict:
        """``{"size", "ready", "busy", "restarts", "timeout", "memory"}`` and each worker's last ``stats``."""
        workers = list(self._workers)
        return {"size": self.size, "ready": sum(w.ready for w in workers), "busy": self.busy,
                "restarts": self.restarts, "timeout": self.timeout, "memory": self.memory,
                "stats": [w.stats for w in workers]}

    def close(self) -> None:
        """Stop every worker; jobs not finished get :class:`JobCancelled`."""
        with self._started:
            self._closed = True
            thread = self._thread
        if thread is not None:
            self._post(("close", None))
            thread.join(30)
        with self._posting:
            if not self._gone:
                self._gone = True
                self._drain()
                os.close(self._wake_r)
                os.close(self._wake_w)

    def _post(self, message: tuple) -> bool:
        """Give the pool's thread a message; ``False`` once it has stopped reading them."""
        with self._posting:
            if self._gone:
                return False
            self._inbox.put(message)
            try:
                os.write(self._wake_w, b"!")
            except OSError:  # the pipe is full: the loop is awake anyway
                pass
            return True

    def _drain(self) -> None:
        """Fail the jobs posted but never read."""
        while True:
            try:
                message, value = self._inbox.get_nowait()
            except queue.Empty:
                return
            if message == "job":
                _fail(value, JobCancelled("the server is stopping"))

    # -- the pool's thread ---------------------------------------------------------------
    def _spawn(self) -> _Worker:
        parent, child = self._context.Pipe(duplex=True)
        process = self._context.Process(target=worker_main, args=(child, self.factory, self.args, self.memory),
                                        name="coscore-worker", daemon=True)
        process.start()
        child.close()
        return _Worker(process, parent)

    def _replace(self, worker: _Worker, delay: float = 0.0) -> None:
        worker.process.kill()
        worker.process.join()
        worker.conn.close()
        fresh = self._spawn() if not delay else _Worker(None, worker.conn, retry_at=time.monotonic() + delay)
        self._workers[self._workers.index(worker)] = fresh
        self.restarts += 1

    def _loop(self) -> None:
        while True:
            try:
                if not self._step():
                    return
            except Exception:  # never let the pool die: say so and go on
                _log.exception("the worker pool's loop failed")
                time.sleep(0.1)

    def _step(self) -> bool:
        """One round: read messages, hand out jobs, wait, take answers, watch budgets."""
        while True:
            try:
                message, value = self._inbox.get_nowait()
            except queue.Empty:
                break
            if message == "close":
                self._shut()
                return False
            if message == "job":
                self._queue(value)
            else:
                self._cancel(value)
        now = time.monotonic()
        for index, worker in enumerate(self._workers):
            if worker.process is None and now >= worker.retry_at:
                self._workers[index] = self._spawn()
        self._expire(now)
        self._dispatch(now)
        ready = wait([self._wake_r, *(w.conn for w in self._workers if w.process is not None)], self._pause(now))
        if self._wake_r in ready:
            os.read(self._wake_r, 4096)
        for worker in list(self._workers):
            if worker.process is not None and worker.conn in ready:
                self._receive(worker)
        self._watch(time.monotonic())
        self.queued = sum(len(jobs) for jobs in self._requests.values()) + sum(len(jobs) for jobs in
                                                                                self._groups.values())
        return True

    def _pause(self, now: float) -> float | None:
        times = [w.job.started + w.job.timeout for w in self._workers if w.job is not None]
        times += [j.deadline for jobs in self._requests.values() for j in jobs if j.deadline is not None]
        times += [w.retry_at for w in self._workers if w.process is None]
        if self._requests:  # a client's share grows when the others stop being active
            times += [seen + ACTIVE for seen in self._seen.values()]
        pause = max(0.0, min(times) - now) if times else None
        if self.memory and any(w.job is not None for w in self._workers):
            pause = WATCH_INTERVAL if pause is None else min(pause, WATCH_INTERVAL)
        return pause

    def _queue(self, job: _Job) -> None:
        if job.group is None:
            self._requests.setdefault(job.client, deque()).append(job)
            self._seen[job.client] = time.monotonic()
        else:
            self._groups.setdefault(job.group, deque()).append(job)

    def _cancel(self, group: Hashable) -> None:
        for job in self._groups.pop(group, ()):
            _fail(job, JobCancelled("the job was cancelled"))
        for worker in list(self._workers):
            if worker.job is not None and worker.job.group == group:
                job, worker.job = worker.job, None
                self.busy -= 1
                self._replace(worker)
                _fail(job, JobCancelled("the job was cancelled"))

    def _expire(self, now: float) -> None:
        for client in [c for c, seen in self._seen.items() if now - seen >= ACTIVE]:
            del self._seen[client]
        for client in [c for c in self._served if c not in self._seen and c not in self._requests]:
            del self._served[client]
        for client, jobs in list(self._requests.items()):
            if all(not j.future.done() and (j.deadline is None or now <= j.deadline) for j in jobs):
                continue
            kept: deque[_Job] = deque()
            for job in jobs:
                if job.future.done():
                    continue
                if job.deadline is not None and now > job.deadline:
                    _fail(job, OverBudget("workers", f"every worker stayed busy for the {self.timeout:g} s budget; "
                                          "try again later", self.size))
                    continue
                kept.append(job)
            if kept:
                self._requests[client] = kept  # keeps the client's turn
            else:
                del self._requests[client]

    def _next_client(self, now: float) -> object:
        """The client whose waiting request goes next (``_NOBODY``: none may run now): of those
        running fewer requests than their share of the workers, the one running the fewest,
        whose last turn came longest ago (or never). The share is all the workers while one client alone
        has asked for any within :data:`ACTIVE` seconds; else the workers divided among them
        (rounded up), so that one client's flood leaves a worker for the others' requests."""
        running: dict[Hashable | None, int] = {}
        for worker in self._workers:
            if worker.job is not None and worker.job.group is None:
                running[worker.job.client] = running.get(worker.job.client, 0) + 1
        active = len(self._seen.keys() | self._requests.keys() | running.keys())
        share = -(-self.size // active) if active > 1 else self.size
        allowed = [c for c in self._requests if running.get(c, 0) < share]
        if not allowed:
            return _NOBODY
        return min(allowed, key=lambda client: (running.get(client, 0), self._served.get(client, -1)))

    def _next_job(self, now: float) -> _Job | None:
        while self._requests:
            client = self._next_client(now)
            if client is _NOBODY:
                break  # the free workers are the other clients' share: tasks may use them
            waiting = self._requests[client]
            job = waiting.popleft()
            if not waiting:
                del self._requests[client]
            self._turn += 1
            self._served[client] = self._turn  # the next turn is another client's
            if job.future.set_running_or_notify_cancel():
                return job
        while self._groups:
            group, jobs = next(iter(self._groups.items()))
            job = jobs.popleft()
            if jobs:
                self._groups.move_to_end(group)  # the next turn is another group's
            else:
                del self._groups[group]
            if job.future.set_running_or_notify_cancel():
                return job
        return None

    def _dispatch(self, now: float) -> None:
        while True:
            idle = [w for w in self._workers if w.ready and w.job is None and w.process is not None]
            if not idle:
                return
            job = self._next_job(now)
            if job is None:
                return
            idle.sort(key=lambda w: w.idle_since)
            worker = next((w for w in idle if job.affinity is not None and job.affinity in w.recent), idle[0])
            try:
                worker.conn.send((job.kind, job.payload))
            except (OSError, ValueError) as exc:
                self._replace(worker)
                _fail(job, WorkerStopped(f"the worker could not take the job ({exc})"))
                continue
            job.payload = None
            job.started = now
            worker.job = job
            self.busy += 1

    def _receive(self, worker: _Worker) -> None:
        if not worker.ready:
            try:
                _, worker.base_rss = worker.conn.recv()
                worker.ready = True
                self._failed_starts = 0
            except (EOFError, OSError):  # it died while starting: try again a little later
                self._failed_starts += 1
                self._replace(worker, min(60.0, RESTART_DELAY * 2 ** (self._failed_starts - 1)))
            return
        job = worker.job
        try:
            reply = worker.conn.recv()
        except (EOFError, OSError):
            worker.process.join(1)
            code = worker.process.exitcode
            if job is not None:
                worker.job = None
                self.busy -= 1
                _fail(job, WorkerStopped(f"the worker stopped while working (exit code {code})"))
            self._replace(worker)
            return
        if job is None:  # nothing was asked: ignore it
            return
        worker.job = None
        worker.idle_since = time.monotonic()
        self.busy -= 1
        if reply[0] == "memory":
            self._replace(worker)
            _fail(job, self._over_memory())
            return
        _, status, payload, stats = reply
        worker.stats = stats
        if job.affinity is not None:
            worker.recent[job.affinity] = None
            worker.recent.move_to_end(job.affinity)
            while len(worker.recent) > RECENT:
                worker.recent.popitem(last=False)
        if self.memory and stats.get("rss", 0) - worker.base_rss >= self.memory * 3 // 4:
            self._replace(worker)
        if not job.future.done():
            job.future.set_result((status, payload))

    def _watch(self, now: float) -> None:
        for worker in list(self._workers):
            job = worker.job
            if job is None:
                continue
            if now >= job.started + job.timeout:
                error = OverBudget("time", f"the request ran past its {job.timeout:g} s budget and was stopped",
                                   job.timeout)
            elif self.memory and rss_bytes(worker.process.pid) - worker.base_rss > self.memory:
                error = self._over_memory()
            else:
                continue
            worker.job = None
            self.busy -= 1
            self._replace(worker)
            _fail(job, error)

    def _over_memory(self) -> OverBudget:
        return OverBudget("memory", f"the request needed more than the {self.memory:,} bytes of memory a "
                          "worker may use and was stopped", self.memory or 0)

    def _shut(self) -> None:
        for worker in self._workers:
            if worker.process is not None:
                worker.process.kill()
        for worker in self._workers:
            if worker.process is not None:
                worker.process.join()
                worker.conn.close()
            if worker.job is not None:
                _fail(worker.job, JobCancelled("the server is stopping"))
                worker.job = None
        for job in [*(j for jobs in self._requests.values() for j in jobs),
                    *(j for jobs in self._groups.values() for j in jobs)]:
            _fail(job, JobCancelled("the server is stopping"))
        self._requests.clear()
        self._groups.clear()
        self.busy = 0


def _fail(job: _Job, error: Exception) -> None:
    if not job.future.done() and (job.future.running() or job.future.set_running_or_notify_cancel()):
        job.future.set_exception(error)
