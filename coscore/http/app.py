"""The pieces both ASGI apps are built from: jobs in the pool, errors, start and stop.

:func:`run_job` runs a job in the worker pool and turns the pool's refusals into
:class:`~coscore.http.responses.ApiError` with the status of the budget. :func:`error_handler`
answers Starlette's own errors (404, 405) as JSON. :func:`lifespan` starts the server's
parts when it starts and stops them, in reverse order, when it stops (also after a
``SIGTERM``). :func:`health` is what ``GET /healthz`` shows: the pool and the workers'
rule caches, from what the workers last reported, never waiting for one.
"""
from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from .. import __version__
from .guard import Guard, GuardSettings
from .pool import JobCancelled, OverBudget, WorkerPool, WorkerStopped
from .proxy import ProxyHeaders, route_path
from .ready import Readiness, WarmGate
from .responses import ApiError, json_response

if TYPE_CHECKING:
    from .settings import ServerSettings

__all__ = ["error_handler", "health", "job_error", "lifespan", "run_job"]


def job_error(exc: Exception) -> ApiError:
    """The error a client gets for a job the pool did not answer."""
    if isinstance(exc, OverBudget):
        return ApiError.budget(exc.budget, exc.message, exc.limit)
    if isinstance(exc, JobCancelled):
        return ApiError(503, str(exc))
    return ApiError(500, str(exc))


async def run_job(pool: WorkerPool, kind: str, payload: Any, **options: Any) -> tuple[int, Any]:
    """Run a job in ``pool`` (see :meth:`WorkerPool.submit`): ``(status, reply)``, or
    :class:`ApiError` when a budget stopped it (503 time/workers, 422 memory) or its
    worker died (500)."""
    try:
        return await pool.run(kind, payload, **options)
    except (OverBudget, WorkerStopped, JobCancelled) as exc:
        raise job_error(exc) from None


def error_handler(api_prefix: str = "/", named: bool = False) -> Callable[[Request, Exception], Any]:
    """A handler of Starlette's ``HTTPException``: JSON ``{"error"}`` for paths under
    ``api_prefix`` (with ``named``, 404 and 405 name the path and the method), a small
    HTML page elsewhere."""

    async def handle(request: Request, exc: Exception) -> Response:
        status = getattr(exc, "status_code", 500)
        path = route_path(request.scope)  # under --root-path, what follows it
        if not path.startswith(api_prefix):
            return HTMLResponse(f"<!doctype html><title>{status}</title><p>{status}</p>", status)
        if named:
            detail = {404: f"no route {path}", 405: f"{request.method} is not allowed on {path}"}.get(status, "error")
        else:
            detail = getattr(exc, "detail", None) or "error"
        return json_response({"error": detail}, status, getattr(exc, "headers", None))

    return handle


def server_middleware(settings: ServerSettings, guard: GuardSettings, readiness: Readiness,
                      inner: Sequence[Middleware] = ()) -> list[Middleware]:
    """The middleware of every server, outermost first: forwarded headers from trusted
    proxies (when ``settings`` ask for them), admission by bytes received
    (``settings.admission``), the guard (Host, Origin, token: ``guard``), ``inner`` (e.g.
    CORS), then the gate that holds requests until the workers are warm (``readiness``)."""
    proxy = [Middleware(ProxyHeaders, proxy=settings.proxy)] if settings.proxy.active else []
    return [*proxy, settings.admission.middleware(), Middleware(Guard, settings=guard), *inner,
            Middleware(WarmGate, readiness=readiness)]


def lifespan(start: Iterable[Callable[[], Any]] = (), stop: Iterable[Callable[[], Any]] = ()) -> Callable:
    """An ASGI lifespan calling each of ``start`` when the server starts and each of
    ``stop`` (in the order given, every one even if another fails) when it stops."""
    starting, stopping = list(start), list(stop)

    @contextlib.asynccontextmanager
    async def span(app: Any) -> AsyncIterator[None]:
        for call in starting:
            call()
        try:
            yield
        finally:
            errors = []
            for call in stopping:
                try:
                    call()
                except Exception as exc:  # stop the others anyway
                    errors.append(exc)
            if errors:
                raise errors[0]

    return span


def health(pool: WorkerPool, started: float, cache_limits: tuple[int, int | None]) -> dict:
    """Liveness, the pool and the workers' rule caches (``cache_limits``: their size and
    bytes), from what the workers last reported."""
    info = pool.info()
    caches = [stats["cache"] for stats in info.pop("stats") if stats]
    cache = {name: sum(c[name] for c in caches) for name in ("size", "bytes", "hits", "misses")}
    cache["maxsize"], cache["maxbytes"] = cache_limits
    return {"status": "ok", "version": __version__, "uptime": round(time.time() - started, 3),
            "cache": cache, "workers": info}
