"""The original CoScore web app's pages and ``/api/*`` routes, served by Starlette.

Requests and successful answers are the original Flask server's, so its unchanged
frontend works. Where the original answered a bad request with an HTML 500 page,
coscore answers ``{"error": "..."}`` naming the problem: 400 (malformed JSON, a missing
key, a wrong type), 404 (no such dataset, rule or task), 409 (the name is taken), 413
(body over the limit) or 422 (a rule that does not compile, with its ``diagnostics``).
Compiling and testing rules run in the app's worker processes (:mod:`.work`, under the
time and memory budgets of :mod:`coscore.http.pool`), database work in threads, scoring
in the task threads: pages and listings never wait for them.
"""
from __future__ import annotations

import inspect
import os
from pathlib import Path
from typing import Any, Awaitable, Callable

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..http.app import error_handler, lifespan
from ..http.bodies import BodyLimits, read_body
from ..http.pool import WorkerPool
from ..http.responses import ApiError, error_response, json_response
from .api import Api
from .store import Store
from .tasks import DEFAULT_WORKERS, TaskRunner
from .work import handler
from .workbench import workbench_routes

__all__ = ["create_app", "PAGES", "DEFAULT_MAX_BODY", "DEFAULT_TIMEOUT", "DEFAULT_MEMORY"]

#: Page paths and their templates.
PAGES = {"/": "index", "/data": "data", "/rules": "rules", "/tasks": "tasks", "/manual": "manual",
         "/settings": "settings"}
#: The largest request body accepted (datasets are sent whole as CSV text).
DEFAULT_MAX_BODY = 64 * 2**20
#: Wall-time budget (seconds) of compiling or testing a rule in a worker.
DEFAULT_TIMEOUT = 5.0
#: Bytes a worker's memory may grow by over what it held when started.
DEFAULT_MEMORY = 2**30


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


def create_app(app_dir: str | os.PathLike[str], db: str | os.PathLike[str] = "database.db",
               max_body: int = DEFAULT_MAX_BODY, workers: int = DEFAULT_WORKERS, *,
               timeout: float = DEFAULT_TIMEOUT, memory: int | None = DEFAULT_MEMORY) -> Starlette:
    """The ASGI app serving the original CoScore app folder ``app_dir`` on database ``db``.

    ``app_dir`` holds ``templates/`` and ``static/``; ``db`` is created with the original's
    tables when missing. Tasks left ``running`` are scored again when the app starts;
    ``workers`` tasks score at once, and ``workers`` worker processes compile and test
    rules, each job within ``timeout`` seconds and ``memory`` bytes (started at the first
    job; ``app.state.pool.start()`` starts them sooner).
    """
    root = Path(app_dir)
    templates, static = root / "templates", root / "static"
    if not templates.is_dir() or not static.is_dir():
        raise FileNotFoundError(f"{root} is not a CoScore app folder (it needs templates/ and static/)")
    store = Store(db)
    runner = TaskRunner(store, workers)
    pool = WorkerPool(handler, size=workers, timeout=timeout, memory=memory, start=False)
    api = Api(store, runner, pool)
    limits = BodyLimits(max_body)
    get, post = ["GET"], ["POST"]
    handlers = [
        ("getData", api.get_data, get), ("createData", api.create_data, post),
        ("getDataByName", api.get_data_by_name, post), ("deleteData", api.delete_data, post),
        ("getRules", api.get_rules, get), ("saveRule", api.save_rule, post),
        ("deleteRule", api.delete_rule, post), ("testRule", api.test_rule, post),
        ("getTasks", api.get_tasks, get), ("createTask", api.create_task, post),
        ("deleteTask", api.delete_task, post),
    ]
    routes = [Route(f"/api/{name}", _endpoint(handler, limits), methods=methods)
              for name, handler, methods in handlers]
    routes += [Route(path, _page(templates, name), methods=get) for path, name in PAGES.items()]
    routes += workbench_routes(api, limits)  # coscore's own page: /workbench, /api/workbench/...
    routes.append(Route("/favicon.ico", _no_icon, methods=get))  # the app has none: no 404 in the console
    routes.append(Mount("/static", StaticFiles(directory=static), name="static"))
    app = Starlette(routes=routes, exception_handlers={HTTPException: error_handler("/api/", named=True)},
                    lifespan=lifespan(start=[runner.resume], stop=[lambda: runner.close(wait=False), pool.close]))
    app.state.store = store
    app.state.runner = runner
    app.state.pool = pool
    return app
