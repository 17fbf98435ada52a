"""The service's ASGI app: routes, the worker pool, health, and the OpenAPI document."""
from __future__ import annotations

import os
import time
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..http.app import error_handler, health, lifespan, run_job, server_middleware
from ..http.bodies import BodyLimits, read_body
from ..http.guard import GuardSettings
from ..http.pool import WorkerPool
from ..http.ready import Readiness, readyz_route
from ..http.responses import ApiError, error_response, json_response
from ..http.rules import DEFAULT_CACHE_BYTES, DEFAULT_CACHE_SIZE
from ..http.settings import ServerSettings
from .endpoints import DEFAULT_MAX_RESPONSE, handler
from .exams import MAX_EXAM_ITEMS
from .openapi import OPENAPI

__all__ = ["create_app", "DEFAULT_SETTINGS", "DEFAULT_MAX_BODY", "DEFAULT_WORKERS", "DEFAULT_TIMEOUT", "DEFAULT_MEMORY",
           "DEFAULT_BODY_TIMEOUT", "WORKERS_RULE"]

DEFAULT_MAX_BODY = 16 * 2**20
#: How :data:`DEFAULT_WORKERS` is chosen, in words (for ``--help``).
WORKERS_RULE = "one per core, at least 2 and at most 8"
#: Worker processes: one per core, at least 2 and at most 8 (:data:`WORKERS_RULE`).
DEFAULT_WORKERS = max(2, min(8, os.cpu_count() or 1))
#: Wall-time budget of one request (seconds), once a worker has it.
DEFAULT_TIMEOUT = 5.0
#: Bytes a worker's memory may grow by over what it held when started.
DEFAULT_MEMORY = 2**30
#: Seconds a client may take to send a request body.
DEFAULT_BODY_TIMEOUT = 10.0
#: The service's endpoints, each answered by a worker: path → the kind of job.
ENDPOINTS = {"/api/testRule": "testRule", "/v1/score": "score", "/v1/check": "check", "/v1/explain": "explain",
             "/v1/exam/score": "exam"}
#: The kinds of job whose wall-time budget is a multiple of the pool's per-request timeout:
#: an exam's is the timeout per item, which its worker enforces between items (this
#: process does not parse bodies), so the pool holds it to the most any exam may get.
_TIMEOUT_SCALE = {"exam": MAX_EXAM_ITEMS}


def _endpoint(pool: WorkerPool, kind: str, limits: BodyLimits) -> Callable[[Request], Awaitable[Response]]:
    options = {"timeout": pool.timeout * _TIMEOUT_SCALE[kind]} if kind in _TIMEOUT_SCALE else {}

    async def endpoint(request: Request) -> Response:
        try:
            with await read_body(request, limits) as body:
                status, payload = await run_job(pool, kind, body.payload(), **options)
        except ApiError as exc:
            return error_response(exc)
        return Response(payload, status, media_type="application/json")

    return endpoint


#: The service's settings when none are given (``coscore serve``'s defaults).
DEFAULT_SETTINGS = ServerSettings(max_body=DEFAULT_MAX_BODY, workers=DEFAULT_WORKERS, timeout=DEFAULT_TIMEOUT,
                                  memory=DEFAULT_MEMORY, body_timeout=DEFAULT_BODY_TIMEOUT, port=8000)


def create_app(settings: ServerSettings | None = None, *, cache_size: int = DEFAULT_CACHE_SIZE,
               cache_bytes: int | None = DEFAULT_CACHE_BYTES, cors_origins: list[str] | None = None,
               max_response: int = DEFAULT_MAX_RESPONSE, **changes: Any) -> Starlette:
    """The ASGI application; it starts its worker processes at once.

    ``settings`` (:class:`~coscore.http.settings.ServerSettings`; default
    :data:`DEFAULT_SETTINGS`), with ``changes`` to its fields given as keywords
    (``create_app(workers=1)``), say the budgets and who may call: ``max_body``, the
    largest request body accepted (bytes), read within ``body_timeout`` seconds;
    ``workers`` worker processes score at once, a request getting ``timeout`` seconds of a
    worker's time and each worker growing by at most ``memory`` bytes; ``limits``, the
    budgets rules are compiled with (:class:`coscore.Limits`); ``max_in_flight`` bytes of
    bodies held at once, over every request; ``admission``, what each body may hold (JSON
    values and depth, counted as it arrives) and what each client may hold at once (waiting
    requests take turns by client); ``allowed_hosts``, the names a browser's request may
    give as ``Host``; ``token``, the token every request must carry; ``proxy``, the trusted
    reverse proxies and the path prefix (:mod:`coscore.http.proxy`). ``uvicorn --factory
    coscore.server:create_app`` serves it with :data:`DEFAULT_SETTINGS`.

    ``cache_size`` and ``cache_bytes`` are how many compiled rules each worker keeps and
    how many bytes they may take, ``cors_origins`` the browser origins allowed to call the
    service from another site (``["*"]`` for any; default none); no answer is over
    ``max_response`` bytes. ``/healthz`` is answered by the event loop itself and never
    waits for a worker. An exam (``/v1/exam/score``) gets ``timeout`` seconds per item, at
    most :data:`~coscore.server.exams.MAX_EXAM_ITEMS` items. A request from a page of
    another origin is refused, and so is a body declared as anything but JSON
    (:mod:`coscore.http.guard`).
    """
    settings = (settings or DEFAULT_SETTINGS).replace(**changes)
    if cache_size < 0 or (cache_bytes is not None and cache_bytes < 0):
        raise ValueError("cache_size and cache_bytes must be >= 0")
    timeout, admission = settings.timeout, settings.admission
    pool = WorkerPool(handler, (cache_size, cache_bytes, settings.limits, max_response, timeout),
                      size=settings.workers, timeout=timeout, memory=settings.memory)
    bodies = admission.body_limits(settings.max_body, settings.body_timeout, settings.max_in_flight)
    started = time.time()

    async def healthz(request: Request) -> Response:
        return json_response(health(pool, started, (cache_size, cache_bytes)))

    async def openapi(request: Request) -> Response:
        return json_response(OPENAPI)

    routes = [Route(path, _endpoint(pool, kind, bodies), methods=["POST"]) for path, kind in ENDPOINTS.items()]
    routes += [Route("/healthz", healthz, methods=["GET"]), Route("/openapi.json", openapi, methods=["GET"])]
    readiness = Readiness(pool)  # GET /readyz; requests wait for the workers to warm up (coscore.http.ready)
    routes.append(readyz_route(readiness))
    guard = GuardSettings(hosts=settings.allowed_hosts, check_host="browser", origins=frozenset(cors_origins or ()),
                          token=settings.token)
    cors = []
    if cors_origins:
        from starlette.middleware.cors import CORSMiddleware

        cors.append(Middleware(CORSMiddleware, allow_origins=list(cors_origins), allow_methods=["GET", "POST"],
                               allow_headers=["Content-Type"]))
    app = Starlette(routes=routes, middleware=server_middleware(settings, guard, readiness, cors),
                    exception_handlers={HTTPException: error_handler()},
                    lifespan=lifespan(stop=[pool.close]))
    app.state.pool = pool
    app.state.readiness = readiness
    app.state.max_body = settings.max_body
    app.state.settings = settings
    return app
