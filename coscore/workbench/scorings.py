"""Datasets scored in the background, kept by dataset and rule version.

:class:`Scorings` is what the workbench's dataset view asks: a dataset (a :class:`Source`,
which a catalog gives: :mod:`.datasets` for the workbench's own store,
:mod:`coscore.webapp.bench` for the original app's database) scored by a rule.
A scoring is a job of the server's worker pool (``"workbench.dataset"``, :mod:`.jobs`) in a
group of its own, so it takes turns with the tasks and never holds up a request; the
server's event loop only waits for it, at most :data:`WAIT` seconds per request (then
the answer is "still scoring": ask again). The last :data:`KEEP` scorings are kept, by
dataset (its name, creation time, length and type) and rule version (its text), so
paging, going back to a rule or reopening a dataset never scores again; a source (what it
read to send to the workers) is kept once for all the rule versions that scored it. A scoring nobody has asked
about for :data:`ABANDONED` seconds (its page moved on to a newer rule) is stopped, and so
is the one asked about least lately when more than :data:`RUNNING` run.
"""
from __future__ import annotations

import asyncio
import functools
import hashlib
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from starlette.concurrency import run_in_threadpool

from ..http.app import run_job
from ..http.pool import WorkerPool
from ..http.responses import ApiError
from ..rulecache import rule_key
from .analysis import Answers, Scored

__all__ = ["Scorings", "Kept", "Source", "Payload", "version", "KEEP", "WAIT", "ABANDONED", "RUNNING",
           "DATASET_TIME"]

#: Scored datasets kept (by dataset and rule version), the least recently used dropped first.
KEEP = 8
#: Seconds a request waits for its scoring before answering that it is still scoring.
WAIT = 2.5
#: Seconds after which a scoring nobody asks about any more is stopped.
ABANDONED = 3.0
#: Scorings kept running at once at most; past it the one asked about least lately is stopped.
RUNNING = 8
#: Wall-time budget (seconds) of scoring one dataset in a worker.
DATASET_TIME = 60.0


class Payload(Protocol):
    """What a scoring job carries to a worker (picklable): :meth:`load` gives the answers there."""

    def load(self) -> Answers: ...


class Source(Protocol):
    """A dataset as the server knows it: ``key`` names its content (it changes when the
    dataset does), ``name`` is what the page calls it. :meth:`payload` (in a thread, once
    per kept source) is what a worker scores; :meth:`answers_of` reads rows' answers back
    (0-based rows, in a thread) for a page of a list."""

    key: tuple
    name: str

    def payload(self) -> Payload: ...

    def answers_of(self, rows: Sequence[int]) -> list[list[str]]: ...


@dataclass
class Kept:
    """A dataset scored by one rule version, with the source its rows are read from."""

    scored: Scored
    source: Any
    version: str


def version(rule: Any) -> str:
    """A short name of a rule's version: the start of the SHA-256 of its canonical text."""
    return hashlib.sha256((rule_key(rule) or "").encode("utf-8", "surrogatepass")).hexdigest()[:16]


class Scorings:
    """The scorings of one server, run in its worker ``pool``."""

    def __init__(self, pool: WorkerPool, keep: int = KEEP, dataset_time: float = DATASET_TIME):
        self.pool = pool
        self.keep = keep
        self.dataset_time = dataset_time
        self.done: OrderedDict[tuple, Kept] = OrderedDict()
        self.running: dict[tuple, asyncio.Future] = {}
        self.asked: dict[tuple, float] = {}  # when each running scoring was last asked about

    async def get(self, source: Source, rule: Any) -> Kept | None:
        """``source`` scored by ``rule``: kept, or scored now; ``None`` while that takes
        longer than :data:`WAIT` (it goes on in the background). The job's error (422 for a
        rule that does not compile or a dataset that cannot be read, …) when it failed."""
        key = (source.key, rule_key(rule))
        if key in self.done:
            self.done.move_to_end(key)
            return self.done[key]
        self.asked[key] = time.monotonic()
        task = self.running.get(key)
        if task is None:
            task = asyncio.ensure_future(self._score(key, source, rule))
            task.add_done_callback(functools.partial(self._finished, key))
            self.running[key] = task
        self._stop_abandoned()
        done, _ = await asyncio.wait({task}, timeout=WAIT)
        if not done or task.cancelled():  # still scoring, or stopped meanwhile: ask again
            return None
        self._forget(key)
        return task.result()

    def _stop_abandoned(self) -> None:
        """Stop the scorings nobody asked about lately, and the least asked past :data:`RUNNING`."""
        now = time.monotonic()
        by_age = sorted(self.running, key=lambda k: self.asked.get(k, 0.0))
        for index, key in enumerate(by_age):
            if now - self.asked.get(key, 0.0) > ABANDONED or index < len(by_age) - RUNNING:
                self.running[key].cancel()
                self._forget(key)

    def _forget(self, key: tuple) -> None:
        self.running.pop(key, None)
        self.asked.pop(key, None)

    async def _score(self, key: tuple, source: Source, rule: Any) -> Kept:
        kept = [entry.source for other, entry in self.done.items() if other[0] == key[0]]
        if kept:  # one copy per dataset
            source = kept[0]
        payload = await run_in_threadpool(source.payload)
        group = ("workbench", version(rule), source.name)
        try:
            status, reply = await run_job(self.pool, "workbench.dataset", (rule, payload), group=group,
                                          timeout=self.dataset_time, affinity=rule_key(rule))
        except asyncio.CancelledError:  # stopped: its job too
            self.pool.cancel(group)
            raise
        if status != 200:
            raise ApiError(status, reply.pop("error", "error"), **reply)
        return Kept(reply, source, version(rule))

    def _finished(self, key: tuple, task: asyncio.Future) -> None:
        if task.cancelled():
            return
        if task.exception() is None:  # kept; a failure stays in ``running`` for the next request to see
            self._forget(key)
            self.done[key] = task.result()
            while len(self.done) > self.keep:
                self.done.popitem(last=False)
