"""Readiness: ``GET /readyz``, and no request failing because the worker pool is still cold.

A server's worker processes take a few seconds to start (each imports coscore). Until
every one of them has started once the pool is *warming*: ``GET /readyz`` answers 503
``{"status": "starting", ...}`` with ``Retry-After: 1``, then 200 ``{"status": "ready",
...}`` while at least one worker is ready (a worker being replaced after a budget stopped
it leaves the others serving). ``GET /healthz`` stays what it is: liveness, answered
even while warming.

:class:`WarmGate` holds every ``POST`` (the requests that may need a worker) until the
pool has warmed, at most :data:`WARM_UP` seconds, before the request's own wait for a
worker begins: the first requests after a start wait for the workers instead of being
answered 503 because they were still starting. A pool that has not warmed by then is
answered 503 naming the budget. ``GET /readyz`` and the first held request start a pool
created with ``start=False``.
"""
from __future__ import annotations

import asyncio
import time
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from .pool import WorkerPool
from .responses import ApiError, error_payload, json_bytes, json_response

__all__ = ["POLL", "WARM_UP", "Readiness", "WarmGate", "readyz_route"]

#: The most seconds a request waits for the pool to warm up.
WARM_UP = 60.0
#: How often (seconds) a waiting request looks at the pool.
POLL = 0.02


class Readiness:
    """Whether ``pool`` has warmed (every worker started once) and is ready now."""

    def __init__(self, pool: WorkerPool, warm_up: float = WARM_UP):
        self.pool = pool
        self.warm_up = warm_up
        self._warmed = False

    def state(self) -> dict[str, Any]:
        """``{"ready": bool, "warmed": bool, "workers": {"ready", "size"}}`` (starts the pool)."""
        self.pool.start()
        info = self.pool.info()
        if not self._warmed and info["ready"] >= info["size"]:
            self._warmed = True
        ready = self._warmed and info["ready"] >= 1
        return {"ready": ready, "warmed": self._warmed, "workers": {"ready": info["ready"], "size": info["size"]}}

    @property
    def warmed(self) -> bool:
        """Whether the pool was seen warmed (without looking again)."""
        return self._warmed

    async def wait(self, timeout: float | None = None) -> bool:
        """Wait until the pool has warmed, at most ``timeout`` seconds (default
        :attr:`warm_up`); whether it has."""
        if self._warmed:
            return True
        deadline = time.monotonic() + (self.warm_up if timeout is None else timeout)
        while not self.state()["warmed"]:
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(POLL)
        return True

    def wait_blocking(self, timeout: float | None = None) -> bool:
        """:meth:`wait` for a thread (or a server's start, before it accepts requests)."""
        deadline = time.monotonic() + (self.warm_up if timeout is None else timeout)
        while not self.state()["warmed"]:
            if time.monotonic() >= deadline:
                return False
            time.sleep(POLL)
        return True


def readyz_route(readiness: Readiness, path: str = "/readyz") -> Route:
    """``GET /readyz``: 200 ``{"status": "ready", "workers": {...}}`` once the pool has
    warmed and a worker is ready, else 503 ``{"status": "starting"}`` (``Retry-After: 1``)."""

    async def readyz(request: Request) -> Response:
        state = readiness.state()
        if state["ready"]:
            return json_response({"status": "ready", "workers": state["workers"]})
        status = "starting" if not state["warmed"] else "no worker ready"
        return json_response({"status": status, "workers": state["workers"]}, 503, {"Retry-After": "1"})

    return Route(path, readyz, methods=["GET"])


class WarmGate:
    """ASGI middleware: every ``POST`` waits for ``readiness`` (see the module's description)."""

    def __init__(self, app: Any, readiness: Readiness):
        self.app = app
        self.readiness = readiness

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        waits = scope["type"] == "http" and scope.get("method") == "POST" and not self.readiness.warmed
        if waits and not await self.readiness.wait():
            error = ApiError.budget("workers", f"the worker processes did not start within the "
                                    f"{self.readiness.warm_up:g} s warm-up budget; try again later",
                                    self.readiness.warm_up)
            body = json_bytes(error_payload(error))
            await send({"type": "http.response.start", "status": 503,
                        "headers": [(b"content-type", b"application/json"), (b"retry-after", b"1"),
                                    (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)
