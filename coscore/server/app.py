"""The service's ASGI app: routes, the worker pool, health, and the OpenAPI document."""
from __future__ import annotations

import os
import time
from typing import Awaitable, Callable

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..http.app import error_handler, health, lifespan, run_job
from ..http.bodies import BodyLimits, InFlight, read_body
from ..http.guard import Guard, GuardSettings
from ..http.options import DEFAULT_IN_FLIGHT
from ..http.pool import WorkerPool
from ..http.responses import ApiError, error_response, json_response
from ..http.rules import DEFAULT_CACHE_BYTES, DEFAULT_CACHE_SIZE
from ..limits import DEFAULT_LIMITS, Limits
from .endpoints import DEFAULT_MAX_RESPONSE, handler
from .exams import MAX_EXAM_ITEMS
from .openapi import OPENAPI

__all__ = ["create_app", "DEFAULT_MAX_BODY", "DEFAULT_WORKERS", "DEFAULT_TIMEOUT", "DEFAULT_MEMORY",
           "DEFAULT_BODY_TIMEOUT"]

DEFAULT_MAX_BODY = 16 * 2**20
#: Worker processes: one per core, at least 2 and at most 8.
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


def create_app(max_body: int = DEFAULT_MAX_BODY, cache_size: int = DEFAULT_CACHE_SIZE,
               cors_origins: list[str] | None = None, *, workers: int = DEFAULT_WORKERS,
               timeout: float = DEFAULT_TIMEOUT, memory: int | None = DEFAULT_MEMORY,
               cache_bytes: int | None = DEFAULT_CACHE_BYTES,
               body_timeout: float | None = DEFAULT_BODY_TIMEOUT, limits: Limits = DEFAULT_LIMITS,
               max_in_flight: int | None = DEFAULT_IN_FLIGHT, max_response: int = DEFAULT_MAX_RESPONSE,
               allowed_hosts: frozenset[str] | None = None, token: str | None = None) -> Starlette:
    """The ASGI application; it starts its worker processes at once.

    ``max_body`` is the largest request body accepted (bytes), ``cache_size`` and
    ``cache_bytes`` how many compiled rules each worker keeps and how many bytes they
    may take, ``cors_origins`` the browser origins allowed to call the service from
    another site (``["*"]`` for any; default none). ``workers`` worker processes score
    at once; a request gets ``timeout`` seconds of a worker's time and each worker may
    grow by ``memory`` bytes (``None``: unbounded); ``body_timeout`` seconds is the most
    a client may take to send a body (``None``: no limit). ``limits`` are the budgets
    rules are compiled with (:class:`coscore.Limits`: each answer's and each rule's).
    ``/healthz`` is answered by the event loop itself and never waits for a worker. An
    exam (``/v1/exam/score``) gets ``timeout`` seconds per item, at most
    :data:`~coscore.server.exams.MAX_EXAM_ITEMS` items.

    ``max_in_flight`` bytes of bodies are held at once, over every request (``None``: no
    cap); no answer is over ``max_response`` bytes. A request from a page of another origin
    is refused, and so is a body declared as anything but JSON (:mod:`coscore.http.guard`);
    with ``allowed_hosts``, a browser's request naming another ``Host`` too; with
    ``token``, a request without it.
    """
    if max_body < 0:
        raise ValueError("max_body must be >= 0")
    if cache_size < 0 or (cache_bytes is not None and cache_bytes < 0):
        raise ValueError("cache_size and cache_bytes must be >= 0")
    if body_timeout is not None and body_timeout <= 0:
        raise ValueError("body_timeout must be > 0 (or None)")
    pool = WorkerPool(handler, (cache_size, cache_bytes, limits, max_response, timeout), size=workers,
                      timeout=timeout, memory=memory)
    bodies = BodyLimits(max_body, body_timeout, InFlight(max_in_flight))
    started = time.time()

    async def healthz(request: Request) -> Response:
        return json_response(health(pool, started, (cache_size, cache_bytes)))

    async def openapi(request: Request) -> Response:
        return json_response(OPENAPI)

    routes = [Route(path, _endpoint(pool, kind, bodies), methods=["POST"]) for path, kind in ENDPOINTS.items()]
    routes += [Route("/healthz", healthz, methods=["GET"]), Route("/openapi.json", openapi, methods=["GET"])]
    guard = GuardSettings(hosts=allowed_hosts, check_host="browser", origins=frozenset(cors_origins or ()),
                          token=token)
    middleware = [Middleware(Guard, settings=guard)]
    if cors_origins:
        from starlette.middleware.cors import CORSMiddleware

        middleware.append(Middleware(CORSMiddleware, allow_origins=list(cors_origins),
                                     allow_methods=["GET", "POST"], allow_headers=["Content-Type"]))
    app = Starlette(routes=routes, middleware=middleware, exception_handlers={HTTPException: error_handler()},
                    lifespan=lifespan(stop=[pool.close]))
    app.state.pool = pool
    app.state.max_body = max_body
    return app
