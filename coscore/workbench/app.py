"""The ASGI app of ``coscore workbench``: the workbench's page and endpoints alone, on its
own store (:mod:`.store`) and worker pool, behind the same guard as the other servers
(:mod:`coscore.http.guard`: Host names, other sites' pages, JSON bodies, the token) and
the same admission (:mod:`coscore.http.admission`: JSON budgets, per-client caps)."""
from __future__ import annotations

import os
import time

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..http.admission import Admission
from ..http.app import error_handler, health, lifespan
from ..http.guard import Guard, GuardSettings
from ..http.options import DEFAULT_IN_FLIGHT
from ..http.pool import WorkerPool
from ..http.ready import Readiness, WarmGate, readyz_route
from ..http.rules import DEFAULT_CACHE_BYTES, DEFAULT_CACHE_SIZE
from ..limits import DEFAULT_LIMITS, Limits
from .library import IMPORT_TIME, Library, WorkbenchCatalog
from .routes import Workbench, workbench_routes
from .store import WorkbenchStore
from .work import handler

__all__ = [
    "DEFAULT_BODY_TIMEOUT",
    "DEFAULT_MAX_BODY",
    "DEFAULT_MEMORY",
    "DEFAULT_TIMEOUT",
    "DEFAULT_WORKERS",
    "create_app",
]

#: The largest request body, so the largest file uploaded (bytes).
DEFAULT_MAX_BODY = 256 * 2**20
#: Wall-time budget (seconds) of checking a rule or testing an answer in a worker.
DEFAULT_TIMEOUT = 5.0
#: Bytes a worker's memory may grow by (a 1,000,000-answer dataset is read whole).
DEFAULT_MEMORY = 4 * 2**30
#: Seconds a client may take to send a request body (a file is sent whole).
DEFAULT_BODY_TIMEOUT = 120.0
#: Worker processes, by default.
DEFAULT_WORKERS = 2


def create_app(store: str | os.PathLike[str], *, max_body: int = DEFAULT_MAX_BODY, workers: int = DEFAULT_WORKERS,
               timeout: float = DEFAULT_TIMEOUT, memory: int | None = DEFAULT_MEMORY,
               body_timeout: float | None = DEFAULT_BODY_TIMEOUT, max_in_flight: int | None = DEFAULT_IN_FLIGHT,
               import_time: float = IMPORT_TIME, limits: Limits = DEFAULT_LIMITS,
               allowed_hosts: frozenset[str] | None = None, token: str | None = None,
               admission: Admission | None = None) -> Starlette:
    """The workbench served alone on the store in folder ``store`` (created when missing).

    ``workers`` worker processes check, explain, score and read files, each job within
    ``timeout`` seconds (a dataset's scoring within 60 s, reading a file within
    ``import_time``) and ``memory`` bytes, rules compiled with ``limits``. Bodies (uploads
    too) up to ``max_body`` bytes are read within ``body_timeout`` seconds, ``max_in_flight``
    bytes of them at once. Requests from other sites are refused; with ``allowed_hosts``,
    requests naming another ``Host`` too; with ``token``, requests without it.
    ``admission`` bounds what each JSON body may hold (values and depth, counted as it
    arrives) and what each client may hold at once (requests, bytes of bodies; an upload
    is one body, so one client's share is at least ``max_body``), as for ``coscore serve``
    and ``coscore app`` (``None``: :class:`~coscore.http.admission.Admission`'s defaults);
    waiting jobs take turns by client.
    ``app.state.library`` opens files and exams (:class:`.library.Library`)."""
    admission = Admission() if admission is None else admission
    kept = WorkbenchStore(store)
    pool = WorkerPool(handler, (DEFAULT_CACHE_SIZE, DEFAULT_CACHE_BYTES, limits), size=workers, timeout=timeout,
                      memory=memory, start=False)
    bench = Workbench(WorkbenchCatalog(kept), pool)
    library = Library(bench, kept, pool, import_time)
    body_limits = admission.body_limits(max_body, body_timeout, max_in_flight)
    started = time.time()

    async def upload(request: Request) -> Response:
        return await library.upload(request, body_limits)

    async def healthz(request: Request) -> Response:
        from ..http.responses import json_response

        return json_response(health(pool, started, (DEFAULT_CACHE_SIZE, DEFAULT_CACHE_BYTES)))

    routes = workbench_routes(bench, body_limits, pages=("/", "/workbench"), more=library.endpoints())
    routes.append(Route("/workbench/upload", upload, methods=["POST"]))
    routes.append(Route("/healthz", healthz, methods=["GET"]))
    readiness = Readiness(pool)  # GET /readyz; requests wait for the workers to warm up (coscore.http.ready)
    routes.append(readyz_route(readiness))
    guard = GuardSettings(hosts=allowed_hosts, check_host="always", token=token, json_prefix="/api/")
    app = Starlette(routes=routes, middleware=[admission.middleware(), Middleware(Guard, settings=guard),
                                               Middleware(WarmGate, readiness=readiness)],
                    exception_handlers={HTTPException: error_handler("/api/", named=True)},
                    lifespan=lifespan(stop=[pool.close, kept.checkpoint]))
    app.state.store = kept
    app.state.pool = pool
    app.state.readiness = readiness
    app.state.library = library
    app.state.bench = bench
    return app


