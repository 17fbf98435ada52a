"""Tune and suggest run from the page: background jobs that can be asked about and
cancelled, and the endpoints ``tune``, ``suggest``, ``job``, ``cancel`` and ``messages``.

A run is a job of the server's worker pool (:mod:`.assist_jobs`) in a group of its own,
within :data:`ASSIST_TIME` seconds and the pool's memory budget; the event loop only
waits for it, at most :data:`.scorings.WAIT` seconds per request, then answers 202
``{"status": "running", "job": ID}`` and the page asks ``job`` again. The same run asked
twice (same kind, dataset, rule and options) is one job. ``cancel`` stops it; a run
nobody has asked about for :data:`ABANDONED` seconds is stopped too. The last
:data:`KEEP` finished runs are kept for the page to fetch.
"""
from __future__ import annotations

import asyncio
import functools
import itertools
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from starlette.concurrency import run_in_threadpool

from ..catalog import catalog_json, message
from ..diagnostics import json_type
from ..http.app import run_job
from ..http.pool import WorkerPool
from ..http.responses import ApiError, json_response
from ..rulecache import rule_key
from .assist_jobs import MAX_FOLDS, METRICS
from .scorings import WAIT, Source
from .views import view_of

__all__ = ["ABANDONED", "ASSIST_TIME", "KEEP", "Assists", "Bench", "Sources", "assist_endpoints"]

#: Wall-time budget (seconds) of one tune or suggest run in a worker.
ASSIST_TIME = 60.0
#: Seconds before :data:`ASSIST_TIME` at which the search itself stops, with its best so far.
SEARCH_MARGIN = 3.0
#: Seconds after which a run nobody asks about any more is stopped.
ABANDONED = 10.0
#: Finished runs kept for the page to fetch.
KEEP = 8


class Sources(Protocol):
    """Where a run's dataset comes from: a workbench's catalog (:class:`.routes.Catalog`)."""

    def source(self, name: str, view: Any = None) -> Source: ...


class Bench(Protocol):
    """What the runs need of a workbench (:class:`.routes.Workbench`, which mounts them):
    its catalog and its worker pool."""

    @property
    def catalog(self) -> Sources: ...

    @property
    def pool(self) -> WorkerPool: ...


class Assists:
    """The tune and suggest runs of one workbench ``bench`` (its catalog and pool)."""

    def __init__(self, bench: Bench, time_budget: float = ASSIST_TIME):
        self.bench = bench
        self.time_budget = time_budget
        self.numbers = itertools.count(1)
        self.by_key: dict[tuple[Any, ...], str] = {}
        self.running: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.asked: dict[str, float] = {}
        self.done: OrderedDict[str, asyncio.Future[dict[str, Any]]] = OrderedDict()

    async def start(self, kind: str, data: dict[str, Any]) -> Any:
        """``{"dataset", "rule", "columns"?, …options}`` → the run's result, or 202 while it runs."""
        name = data.get("dataset")
        if not isinstance(name, str) or not name:
            raise ApiError(400, "'dataset' must be the name of a dataset" if "dataset" in data else "missing 'dataset'")
        rule = data.get("rule")
        if not isinstance(rule, (str, dict)):
            raise ApiError(400, "missing 'rule'" if "rule" not in data
                           else f"'rule' must be the rule's JSON text or a JSON object, not {json_type(rule)}")
        options = _options(kind, data)
        source = await run_in_threadpool(self.bench.catalog.source, name, view_of(data))
        key = (kind, source.key, rule_key(rule), tuple(sorted(options.items())))
        job = self.by_key.get(key)
        if job is None or (job not in self.running and job not in self.done):
            job = f"{kind}-{next(self.numbers)}"
            self.by_key[key] = job
            task = asyncio.ensure_future(self._run(job, kind, source, rule, options))
            self.running[job] = task
            task.add_done_callback(functools.partial(self._finished, job))
        return await self.wait(job)

    async def wait(self, job: str) -> Any:
        """The run ``job``'s result; 202 while it runs (at most :data:`WAIT` s waited)."""
        self._stop_abandoned()
        task = self.running.get(job) or self.done.get(job)
        if task is None:
            raise ApiError(404, message("bench.no_job", job=repr(job)))
        self.asked[job] = time.monotonic()
        finished, _ = await asyncio.wait({task}, timeout=WAIT)
        if not finished:
            return json_response({"status": "running", "job": job}, 202)
        if task.cancelled():
            raise ApiError(409, message("pool.cancelled"), job=job)
        result = task.result()
        return {"status": "done", "job": job, **result}

    def cancel(self, job: str) -> dict[str, Any]:
        """Stop run ``job`` (its worker job too); ``{"job", "cancelled"}``."""
        task = self.running.pop(job, None)
        self.asked.pop(job, None)
        if task is not None:
            task.cancel()
            self.bench.pool.cancel(("assist", job))
        return {"job": job, "cancelled": task is not None}

    async def _run(self, job: str, kind: str, source: Any, rule: Any, options: dict[str, Any]) -> dict[str, Any]:
        payload = await run_in_threadpool(source.payload)
        group = ("assist", job)
        began = time.perf_counter()
        try:
            # the search's own budget ends a little before the worker is stopped, so that the
            # page gets the best found so far rather than only "stopped"
            searched = {**options, "seconds": max(1.0, self.time_budget - SEARCH_MARGIN)}
            status, reply = await run_job(self.bench.pool, f"workbench.{kind}", (rule, payload, searched), group=group,
                                          timeout=self.time_budget, affinity=rule_key(rule))
        except asyncio.CancelledError:
            self.bench.pool.cancel(group)
            raise
        except ApiError as exc:
            if exc.extra.get("budget") == "time":
                raise ApiError(exc.status, message("bench.job_time", what=message(f"bench.{kind}"),
                                                   seconds=f"{self.time_budget:g}"), **exc.extra) from None
            raise
        if status != 200:
            raise ApiError(status, reply.pop("error", "error"), **reply)
        return {**reply, "dataset": source.name, "wall_seconds": round(time.perf_counter() - began, 3)}

    def _finished(self, job: str, task: asyncio.Future[dict[str, Any]]) -> None:
        self.running.pop(job, None)
        if task.cancelled():
            return
        task.exception()  # seen: a failure is answered to the page, not logged as never retrieved
        self.done[job] = task
        while len(self.done) > KEEP:
            old, _ = self.done.popitem(last=False)
            self.asked.pop(old, None)

    def _stop_abandoned(self) -> None:
        now = time.monotonic()
        for job in [j for j in self.running if now - self.asked.get(j, now) > ABANDONED]:
            self.cancel(job)


def _options(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    """The options of a run, checked: tune's ``metric``, ``folds`` and ``drop``."""
    if kind != "tune":
        return {}
    metric = data.get("metric", "qwk")
    if metric not in METRICS:
        raise ApiError(400, f"'metric' must be one of {', '.join(METRICS)}, not {metric!r}"[:200])
    folds = data.get("folds", 5)
    if not isinstance(folds, int) or isinstance(folds, bool) or not 2 <= folds <= MAX_FOLDS:
        raise ApiError(400, f"'folds' must be an integer from 2 to {MAX_FOLDS}")
    drop = data.get("drop", False)
    if not isinstance(drop, bool):
        raise ApiError(400, f"'drop' must be true or false, not {json_type(drop)}")
    return {"metric": metric, "folds": folds, "drop": drop}


def _job_id(data: dict[str, Any]) -> str:
    job = data.get("job")
    if not isinstance(job, str) or not job or len(job) > 100:
        raise ApiError(400, "'job' must be the id a tune or suggest run answered")
    return job


def _messages_json() -> dict[str, Any]:
    return {"languages": ["en", "zh"], "messages": catalog_json()}


def assist_endpoints(bench: Bench) -> dict[str, Callable[[dict[str, Any]], Awaitable[Any]]]:
    """The endpoints (by name, for :func:`.routes.workbench_routes`): ``tune`` and ``suggest``
    start (or join) a run, ``job`` asks about one, ``cancel`` stops one, ``messages`` is the
    message catalog (:func:`coscore.catalog.catalog_json`)."""
    assists = Assists(bench)

    async def tune(data: dict[str, Any]) -> Any:
        return await assists.start("tune", data)

    async def suggest(data: dict[str, Any]) -> Any:
        return await assists.start("suggest", data)

    async def job(data: dict[str, Any]) -> Any:
        return await assists.wait(_job_id(data))

    async def cancel(data: dict[str, Any]) -> Any:
        return assists.cancel(_job_id(data))

    async def messages(data: dict[str, Any]) -> Any:
        return _messages_json()

    return {"tune": tune, "suggest": suggest, "job": job, "cancel": cancel, "messages": messages}
