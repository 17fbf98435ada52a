"""A bounded pool of worker processes that run jobs under a wall-time and a memory budget.

The service (:mod:`coscore.server`) parses, compiles and scores in these processes, so
one hostile request can cost others neither the event loop nor the memory of the whole
service:

- each job has a **wall-time budget**: a worker still busy when it runs out is killed
  (``SIGKILL``), the job answered :class:`OverBudget` ``"time"``, and a fresh worker started;
- each worker has a **memory budget**: its resident memory may grow by at most that many
  bytes over what it held when it started. The pool watches it while a job runs (every
  20 ms) and kills a worker past it; as a backstop, the worker's address space is
  limited (``RLIMIT_AS``) to 1.25 times the budget over its start, so an allocation past
  that raises ``MemoryError`` inside the worker. Either way the job is answered
  :class:`OverBudget` ``"memory"`` and the worker replaced. A worker that ends a job
  holding more than three quarters of its budget is replaced too, so memory that was
  freed but not returned is given back;
- at most ``size`` jobs run at once; a job that cannot get a worker within the
  wall-time budget is answered :class:`OverBudget` ``"workers"``.

A worker is built by ``factory(*args)`` (a module-level function, so that a freshly
started interpreter can import it), which returns ``handle(kind, body)`` →
``(status, payload_bytes, stats)``. Everything here waits with ``asyncio``; nothing
blocks the event loop for longer than it takes to pass a request body through a pipe.
"""
from __future__ import annotations

import asyncio
import multiprocessing
import os
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any, Callable

__all__ = ["OverBudget", "WorkerStopped", "WorkerPool", "rss_bytes"]

#: How long a new worker may take to start (import coscore) before the pool gives up.
STARTUP_TIMEOUT = 120.0
#: How often (seconds) the memory of a busy worker is looked at.
WATCH_INTERVAL = 0.02
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


class OverBudget(Exception):
    """A job stopped by a budget: ``budget`` is ``"time"``, ``"memory"`` or ``"workers"``."""

    def __init__(self, budget: str, message: str, limit: float | int):
        super().__init__(message)
        self.budget = budget
        self.message = message
        self.limit = limit


class WorkerStopped(Exception):
    """The worker ended without answering (crashed or was killed from outside)."""


def rss_bytes(pid: int | str = "self") -> int:
    """The resident memory of process ``pid`` in bytes (0 where ``/proc`` is missing)."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as handle:
            return int(handle.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return 0


def _address_space() -> int:
    try:
        with open("/proc/self/statm", "rb") as handle:
            return int(handle.read().split()[0]) * _PAGE
    except (OSError, ValueError, IndexError):
        return 0


def _worker_main(conn: Connection, factory: Callable[..., Any], args: tuple, memory: int | None) -> None:
    """The loop of one worker process: ``(kind, body)`` in, ``("ok", status, payload, stats)`` out."""
    import resource  # POSIX only, as the pool is

    handle = factory(*args)
    base = rss_bytes()
    if memory:
        limit = _address_space() + memory + memory // 4
        try:
            resource.setrlimit(resource.RLIMIT_AS, (limit, resource.getrlimit(resource.RLIMIT_AS)[1]))
        except (ValueError, OSError):  # a lower hard limit is already set: keep it
            pass
    conn.send(("ready", base))
    while True:
        try:
            kind, body = conn.recv()
        except (EOFError, OSError, KeyboardInterrupt):  # the service has gone
            return
        exhausted = False
        reply: Any = None
        try:
            reply = ("ok", *handle(kind, body))
        except MemoryError:
            exhausted = True
        body = None
        if exhausted:
            reply = None
            try:
                conn.send(("memory",))
            finally:
                return  # exit: the pool starts a fresh worker
        conn.send(reply)
        reply = None


async def _readable(conn: Connection, timeout: float | None) -> None:
    """Wait until ``conn`` has data (or its other end closed); ``TimeoutError`` after ``timeout``."""
    if conn.poll():
        return
    loop = asyncio.get_running_loop()
    ready = loop.create_future()
    fd = conn.fileno()
    loop.add_reader(fd, lambda: ready.done() or ready.set_result(None))
    try:
        await asyncio.wait_for(ready, timeout)
    finally:
        loop.remove_reader(fd)


@dataclass
class _Worker:
    process: Any
    conn: Connection
    ready: bool = False
    base_rss: int = 0
    stats: dict = field(default_factory=dict)


class WorkerPool:
    """``size`` worker processes built by ``factory(*args)``; see the module's description.

    ``timeout`` is the wall-time budget of one job in seconds, ``memory`` the bytes a
    worker's address space may grow by (``None``: unbounded).
    """

    def __init__(self, factory: Callable[..., Any], args: tuple = (), size: int = 2, timeout: float = 5.0,
                 memory: int | None = 2**30):
        if size < 1:
            raise ValueError("a worker pool needs at least one worker")
        if timeout <= 0:
            raise ValueError("timeout must be > 0")
        if memory is not None and memory <= 0:
            raise ValueError("memory must be > 0 (or None)")
        self.factory, self.args, self.size, self.timeout, self.memory = factory, args, size, timeout, memory
        self._context = multiprocessing.get_context("spawn")
        self._workers: list[_Worker] = [self._start() for _ in range(size)]
        self._idle: asyncio.Queue | None = None
        self.restarts = 0
        self.busy = 0

    def _start(self) -> _Worker:
        parent, child = self._context.Pipe(duplex=True)
        process = self._context.Process(target=_worker_main, args=(child, self.factory, self.args, self.memory),
                                        name="coscore-worker", daemon=True)
        process.start()
        child.close()
        return _Worker(process, parent)

    def _replace(self, worker: _Worker) -> _Worker:
        worker.process.kill()
        worker.process.join()
        worker.conn.close()
        fresh = self._start()
        self._workers[self._workers.index(worker)] = fresh
        self.restarts += 1
        return fresh

    def _queue(self) -> asyncio.Queue:
        if self._idle is None:
            self._idle = asyncio.Queue()
            for worker in self._workers:
                self._idle.put_nowait(worker)
        return self._idle

    async def _ensure_ready(self, worker: _Worker) -> None:
        while not worker.ready:  # (info() may take the message meanwhile)
            await _readable(worker.conn, STARTUP_TIMEOUT)
            if not worker.ready and worker.conn.poll():
                self._take_ready(worker)

    @staticmethod
    def _take_ready(worker: _Worker) -> None:
        tag, base = worker.conn.recv()
        worker.ready, worker.base_rss = True, base

    async def run(self, kind: str, body: bytes) -> tuple[int, bytes]:
        """Run one job; ``(status, payload)``, or raise :class:`OverBudget` / :class:`WorkerStopped`."""
        idle = self._queue()
        try:
            worker = await asyncio.wait_for(idle.get(), self.timeout)
        except asyncio.TimeoutError:
            raise OverBudget("workers", f"every worker stayed busy for the {self.timeout:g} s budget; "
                             "try again later", self.size) from None
        self.busy += 1
        keep = False
        try:
            try:
                await self._ensure_ready(worker)
                worker.conn.send((kind, body))
                await self._watch(worker)
                reply = worker.conn.recv()
            except (EOFError, OSError):
                worker.process.join(1)
                raise WorkerStopped(f"the worker stopped while working (exit code {worker.process.exitcode})"
                                    ) from None
            if reply[0] == "memory":
                raise self._over_memory()
            _, status, payload, stats = reply
            worker.stats = stats
            keep = not self.memory or stats.get("rss", 0) - worker.base_rss < self.memory * 3 // 4
            return status, payload
        finally:
            self.busy -= 1
            idle.put_nowait(worker if keep else self._replace(worker))

    async def _watch(self, worker: _Worker) -> None:
        """Wait for ``worker``'s answer within the wall-time budget, watching its memory."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout
        while True:
            left = deadline - loop.time()
            if left <= 0:
                raise OverBudget("time", f"the request ran past its {self.timeout:g} s budget and was stopped",
                                 self.timeout)
            try:
                await _readable(worker.conn, min(left, WATCH_INTERVAL) if self.memory else left)
                return
            except asyncio.TimeoutError:
                pass
            if self.memory and rss_bytes(worker.process.pid) - worker.base_rss > self.memory:
                raise self._over_memory()

    def _over_memory(self) -> OverBudget:
        return OverBudget("memory", f"the request needed more than the {self.memory:,} bytes of memory a "
                          "worker may use and was stopped", self.memory or 0)

    def info(self) -> dict:
        """``{"size", "ready", "busy", "restarts", "timeout", "memory"}`` and each worker's last ``stats``."""
        for worker in self._workers:
            if not worker.ready and worker.process.is_alive() and worker.conn.poll():
                self._take_ready(worker)
        return {"size": self.size, "ready": sum(w.ready for w in self._workers), "busy": self.busy,
                "restarts": self.restarts, "timeout": self.timeout, "memory": self.memory,
                "stats": [w.stats for w in self._workers]}

    def close(self) -> None:
        """Stop every worker."""
        for worker in self._workers:
            worker.process.kill()
        for worker in self._workers:
            worker.process.join()
            worker.conn.close()
