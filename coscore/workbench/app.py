"""The ASGI app of ``coscore workbench``: the workbench's page and endpoints alone, on its
own store (:mod:`.store`) and worker pool, behind the same guard as the other servers
(:mod:`coscore.http.guard`: Host names, other sites' pages, JSON bodies, the token) and
the same admission (:mod:`coscore.http.admission`: JSON budgets, per-client caps), with the
same :class:`~coscore.http.settings.ServerSettings` (a reverse proxy in front, a path prefix:
:mod:`coscore.http.proxy`)."""
from __future__ import annotations

import os
import time
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..http.app import error_handler, health, lifespan, server_middleware
from ..http.guard import GuardSettings
from ..http.pool import WorkerPool
from ..http.ready import Readiness, readyz_route
from ..http.rules import DEFAULT_CACHE_BYTES, DEFAULT_CACHE_SIZE
from ..http.settings import ServerSettings
from .library import IMPORT_TIME, Library, WorkbenchCatalog
from .routes import Workbench, workbench_routes
from .store import WorkbenchStore
from .work import handler

__all__ = [
    "DEFAULT_BODY_TIMEOUT",
    "DEFAULT_MAX_BODY",
    "DEFAULT_MEMORY",
    "DEFAULT_SETTINGS",
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


#: The workbench's settings when none are given (``coscore workbench``'s defaults): large
#: bodies (a file is uploaded whole), long body timeouts, workers that may read a million
#: answers.
DEFAULT_SETTINGS = ServerSettings(max_body=DEFAULT_MAX_BODY, workers=DEFAULT_WORKERS, timeout=DEFAULT_TIMEOUT,
                                  memory=DEFAULT_MEMORY, body_timeout=DEFAULT_BODY_TIMEOUT, port=5050)


def create_app(store: str | os.PathLike[str], settings: ServerSettings | None = None, *,
               import_time: float = IMPORT_TIME, **changes: Any) -> Starlette:
    """The workbench served alone on the store in folder ``store`` (created when missing).

    ``settings`` (:class:`~coscore.http.settings.ServerSettings`; default
    :data:`DEFAULT_SETTINGS`), with ``changes`` to its fields given as keywords
    (``create_app(folder, workers=1)``), give the budgets and access below, and the
    trusted reverse proxies and path prefix (``proxy``, :mod:`coscore.http.proxy`).
    ``workers`` worker processes check, explain, score and read files, each job within
    ``timeout`` seconds (a dataset's scoring within 60 s, reading a file within
    ``import_time``) and ``memory`` bytes, rules compiled with ``limits``. Bodies (uploads
    too) up to ``max_body`` bytes are read within ``body_timeout`` seconds, ``max_in_flight``
    bytes of them at once. Requests from other sites are refused; with ``allowed_hosts``,
    requests naming another ``Host`` too; with ``token``, requests without it.
    ``admission`` bounds what each JSON body may hold (values and depth, counted as it
    arrives) and what each client may hold at once (requests, bytes of bodies; an upload
    is one body, so one client's share is at least ``max_body``), as for ``coscore serve``
    and ``coscore app``; waiting jobs take turns by client. The page and its scripts use
    relative addresses, so it works under a path prefix (``proxy.root_path``).
    ``app.state.library`` opens files and exams (:class:`.library.Library`)."""
    settings = (settings or DEFAULT_SETTINGS).replace(**changes)
    admission = settings.admission
    kept = WorkbenchStore(store)
    pool = WorkerPool(handler, (DEFAULT_CACHE_SIZE, DEFAULT_CACHE_BYTES, settings.limits), size=settings.workers,
                      timeout=settings.timeout, memory=settings.memory, start=False)
    bench = Workbench(WorkbenchCatalog(kept), pool)
    library = Library(bench, kept, pool, import_time)
    body_limits = admission.body_limits(settings.max_body, settings.body_timeout, settings.max_in_flight)
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
    guard = GuardSettings(hosts=settings.allowed_hosts, check_host="always", token=settings.token,
                          json_prefix="/api/")
    app = Starlette(routes=routes, middleware=server_middleware(settings, guard, readiness),
                    exception_handlers={HTTPException: error_handler("/api/", named=True)},
                    lifespan=lifespan(stop=[pool.close, kept.checkpoint]))
    app.state.store = kept
    app.state.pool = pool
    app.state.readiness = readiness
    app.state.library = library
    app.state.bench = bench
    app.state.settings = settings
    return app


