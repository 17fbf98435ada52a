"""The original CoScore web app's pages and ``/api/*`` routes, served by Starlette.

Requests and successful answers are the original Flask server's, so its unchanged
frontend works. Where the original answered a bad request with an HTML 500 page,
coscore answers ``{"error": "..."}`` naming the problem: 400 (malformed JSON, a missing
key, a wrong type), 404 (no such dataset, rule or task), 409 (the name is taken), 413
(body over the limit) or 422 (a rule that does not compile, with its ``diagnostics``).
Compiling and testing rules and scoring tasks run in the app's worker processes
(:mod:`.work`, under the time and memory budgets of :mod:`coscore.http.pool`), database
work in threads: pages and listings never wait for them. Requests from other sites, and
bodies that are not JSON, are refused (:mod:`coscore.http.guard`); names and
descriptions cannot put script into the original pages (:mod:`.markup`).
"""
from __future__ import annotations

import inspect
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from ..http.app import error_handler, lifespan, server_middleware
from ..http.bodies import BodyLimits, read_body
from ..http.guard import GuardSettings
from ..http.pool import WorkerPool
from ..http.ready import Readiness, readyz_route
from ..http.responses import ApiError, error_response, json_response
from ..http.rules import DEFAULT_CACHE_BYTES, DEFAULT_CACHE_SIZE
from ..http.settings import ServerSettings
from ..workbench import Workbench, workbench_routes
from .api import Api
from .bench import AppCatalog
from .listings import DATASETS, RULES, TASKS, listing_endpoint
from .quotas import DEFAULT_QUOTAS, Keeper, Quotas
from .store import Store
from .tasks import DEFAULT_TASK_TIME, DEFAULT_WORKERS, TaskRunner
from .work import handler

__all__ = ["create_app", "DEFAULT_SETTINGS", "PAGES", "DEFAULT_MAX_BODY", "DEFAULT_TIMEOUT", "DEFAULT_MEMORY",
           "DEFAULT_BODY_TIMEOUT"]

#: Page paths and their templates.
PAGES = {"/": "index", "/data": "data", "/rules": "rules", "/tasks": "tasks", "/manual": "manual",
         "/settings": "settings"}
#: The largest request body accepted (datasets are sent whole as CSV text).
DEFAULT_MAX_BODY = 64 * 2**20
#: Wall-time budget (seconds) of compiling or testing a rule in a worker.
DEFAULT_TIMEOUT = 5.0
#: Bytes a worker's memory may grow by over what it held when started.
DEFAULT_MEMORY = 2**30
#: Seconds a client may take to send a request body (a dataset is sent whole).
DEFAULT_BODY_TIMEOUT = 30.0


def _endpoint(handler: Callable[[Any], Any], limits: BodyLimits) -> Callable[[Request], Awaitable[Response]]:
    """An ``/api/*`` route: the body read under ``limits``, then ``handler``: in a thread
    with the body's bytes, or on the event loop with the :class:`~coscore.http.Body` when
    it is ``async``. Its answer is sent as JSON (or as it is, when it is a response)."""
    threaded = not inspect.iscoroutinefunction(handler)

    async def endpoint(request: Request) -> Response:
        try:
            if request.method != "POST":
                payload = await run_in_threadpool(handler, b"")
            else:
                with await read_body(request, limits) as body:
                    payload = await (run_in_threadpool(_with_bytes, handler, body) if threaded else handler(body))
        except ApiError as exc:
            return error_response(exc)
        except Exception as exc:  # never an HTML 500 page
            return error_response(ApiError(500, f"internal error: {type(exc).__name__}: {exc}"))
        return payload if isinstance(payload, Response) else json_response(payload)

    return endpoint


def _with_bytes(handler: Callable[[bytes], Any], body: Any) -> Any:
    return handler(body.read())


def _page(templates: Path, name: str) -> Callable[[Request], Awaitable[Response]]:
    async def page(request: Request) -> Response:
        path = templates / f"{name}.html"
        if not path.is_file():
            return HTMLResponse(f"<!doctype html><title>Not found</title><p>This app has no page "
                                f"templates/{name}.html.</p>", 404)
        return FileResponse(path, media_type="text/html")

    return page


async def _no_icon(request: Request) -> Response:
    return Response(status_code=204)


#: The app's settings when none are given (``coscore app``'s defaults): larger bodies and
#: a longer body timeout than the service's.
DEFAULT_SETTINGS = ServerSettings(max_body=DEFAULT_MAX_BODY, workers=DEFAULT_WORKERS, timeout=DEFAULT_TIMEOUT,
                                  memory=DEFAULT_MEMORY, body_timeout=DEFAULT_BODY_TIMEOUT, port=5000)


def create_app(app_dir: str | os.PathLike[str], db: str | os.PathLike[str] = "database.db",
               settings: ServerSettings | None = None, *, task_time: float = DEFAULT_TASK_TIME,
               quotas: Quotas = DEFAULT_QUOTAS, **changes: Any) -> Starlette:
    """The ASGI app serving the original CoScore app folder ``app_dir`` on database ``db``.

    ``app_dir`` holds ``templates/`` and ``static/``; ``db`` is created with the original's
    tables when missing. Tasks left ``running`` are scored again when the app starts.
    ``settings`` (:class:`~coscore.http.settings.ServerSettings`; default
    :data:`DEFAULT_SETTINGS`), with ``changes`` to its fields given as keywords
    (``create_app(folder, db, workers=1)``), give the budgets and access below, and the
    trusted reverse proxies and path prefix (``proxy``, :mod:`coscore.http.proxy`).
    ``workers`` worker processes compile and test rules and score tasks (started at the
    first job; ``app.state.pool.start()`` starts them sooner), each job within ``timeout``
    seconds and ``memory`` bytes, rules compiled with ``limits``; a task may use
    ``task_time`` seconds of them in all. Bodies up to ``max_body`` bytes are read within
    ``body_timeout`` seconds, ``max_in_flight`` bytes of them at once. Requests from other
    sites are refused; with ``allowed_hosts`` (the names the server answers to), requests
    naming another ``Host`` too; with ``token``, requests without it. ``admission`` bounds
    what each body may hold (JSON values and depth, counted as it arrives, so no body is
    parsed past them) and what each client may hold at once (requests, bytes of bodies). When the server
    stops, the database's write-ahead log is copied into the database file.

    The listings (``GET /api/getData``, ``getRules``, ``getTasks``) are streamed, whole or
    by page (:mod:`.listings`); the database holds what ``quotas`` allow (:mod:`.quotas`).
    ``GET /readyz`` says when the workers have warmed up, and requests wait for them
    (:mod:`coscore.http.ready`).
    """
    settings = (settings or DEFAULT_SETTINGS).replace(**changes)
    workers, timeout, memory, admission = settings.workers, settings.timeout, settings.memory, settings.admission
    root = Path(app_dir)
    templates, static = root / "templates", root / "static"
    if not templates.is_dir() or not static.is_dir():
        raise FileNotFoundError(f"{root} is not a CoScore app folder (it needs templates/ and static/)")
    store = Store(db)
    pool = WorkerPool(handler, (DEFAULT_CACHE_SIZE, DEFAULT_CACHE_BYTES, settings.limits), size=workers,
                      timeout=timeout, memory=memory, start=False)
    keeper = Keeper(quotas)
    runner = TaskRunner(store, workers, pool, task_time=task_time, result_check=keeper.check_result,
                        room=lambda: keeper.room(store))
    api = Api(store, runner, pool, keeper)
    readiness = Readiness(pool)
    limits_of_bodies = admission.body_limits(settings.max_body, settings.body_timeout, settings.max_in_flight)
    get, post = ["GET"], ["POST"]
    handlers: list[tuple[str, Callable[[Any], Any], list[str]]] = [
        ("createData", api.create_data, post),
        ("getDataByName", api.get_data_by_name, post), ("deleteData", api.delete_data, post),
        ("saveRule", api.save_rule, post),
        ("deleteRule", api.delete_rule, post), ("testRule", api.test_rule, post),
        ("createTask", api.create_task, post),
        ("deleteTask", api.delete_task, post),
    ]
    routes: list[BaseRoute] = [Route(f"/api/{name}", _endpoint(handler, limits_of_bodies), methods=methods)
                               for name, handler, methods in handlers]
    routes += [Route(f"/api/{name}", listing_endpoint(store, listing), methods=get)  # streamed (.listings)
               for name, listing in (("getData", DATASETS), ("getRules", RULES), ("getTasks", TASKS))]
    routes.append(readyz_route(readiness))
    routes += [Route(path, _page(templates, name), methods=get) for path, name in PAGES.items()]
    # coscore's own page, mounted: /workbench, /api/workbench/... (coscore.workbench)
    routes += workbench_routes(Workbench(AppCatalog(api), pool), limits_of_bodies)
    routes.append(Route("/favicon.ico", _no_icon, methods=get))  # the app has none: no 404 in the console
    routes.append(Mount("/static", StaticFiles(directory=static), name="static"))
    guard = GuardSettings(hosts=settings.allowed_hosts, check_host="always", token=settings.token,
                          json_prefix="/api/")
    stop = [lambda: runner.close(wait=False), pool.close, store.checkpoint]
    app = Starlette(routes=routes, middleware=server_middleware(settings, guard, readiness),
                    exception_handlers={HTTPException: error_handler("/api/", named=True)},
                    lifespan=lifespan(start=[runner.resume], stop=stop))
    app.state.store = store
    app.state.runner = runner
    app.state.pool = pool
    app.state.readiness = readiness
    app.state.settings = settings
    return app
