"""Who a request comes from, and how much one client may hold at once.

:func:`client_of` is the one place a request's client is named: its peer address (behind
a trusted proxy, with ``--proxy-headers``, the address the proxy forwarded in
``X-Forwarded-For``, which :class:`coscore.http.proxy.ProxyHeaders` puts in the scope).
Per client, the server bounds the requests open at once (:class:`ClientGate`, 503
``"client_requests"``) and the bytes of bodies held (:class:`coscore.http.bodies.InFlight`,
503 ``"client_in_flight"``); the worker pool serves waiting requests one client after
another (:class:`coscore.http.pool.WorkerPool`), so one client's flood does not make
another client's request wait behind all of it. :data:`CURRENT_CLIENT` holds the client of
the request being answered, for the code it calls (the pool reads it).
"""
from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable, Mapping
from contextvars import ContextVar
from typing import Any

from .responses import ApiError, error_response

__all__ = ["CURRENT_CLIENT", "ClientGate", "client_of", "DEFAULT_CLIENT_REQUESTS", "UNKNOWN_CLIENT"]

#: Requests one client may have open at once (being received, waiting or answered).
DEFAULT_CLIENT_REQUESTS = 32
#: The client of a request whose peer the server does not know (a Unix socket, a test).
UNKNOWN_CLIENT = "unknown"

#: The client of the request being answered (``None`` outside one, e.g. a task's jobs).
CURRENT_CLIENT: ContextVar[str | None] = ContextVar("coscore_client", default=None)

Scope = dict
ASGIApp = Callable[[Scope, Callable, Callable], Awaitable[None]]


def client_of(request: Any) -> str:
    """The client of ``request`` (a Starlette request or an ASGI scope): its peer's address,
    e.g. ``"127.0.0.1"`` (:data:`UNKNOWN_CLIENT` when there is none)."""
    scope: Mapping = request if isinstance(request, Mapping) else request.scope
    peer = scope.get("client")
    return str(peer[0]) if peer else UNKNOWN_CLIENT


class ClientGate:
    """ASGI middleware: at most ``limit`` requests of one client open at once (``None``: no
    cap); one more is answered 503 ``"client_requests"`` with ``Retry-After`` before its
    body is read. Sets :data:`CURRENT_CLIENT` for the request."""

    def __init__(self, app: ASGIApp, limit: int | None = DEFAULT_CLIENT_REQUESTS):
        if limit is not None and limit < 1:
            raise ValueError("limit must be >= 1 (or None)")
        self.app = app
        self.limit = limit
        self.open: dict[str, int] = {}
        self._lock = threading.Lock()

    async def __call__(self, scope: Scope, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        client = client_of(scope)
        with self._lock:
            held = self.open.get(client, 0)
            admitted = self.limit is None or held < self.limit
            if admitted:
                self.open[client] = held + 1
        if not admitted:
            refusal = error_response(ApiError.budget(
                "client_requests", f"this client ({client}) has {self.limit} requests open already, the most one "
                "client may have (--max-client-requests); wait for their answers", self.limit or 0))
            await refusal(scope, receive, send)
            return
        token = CURRENT_CLIENT.set(client)
        try:
            await self.app(scope, receive, send)
        finally:
            CURRENT_CLIENT.reset(token)
            with self._lock:
                left = self.open[client] - 1
                if left:
                    self.open[client] = left
                else:
                    del self.open[client]
