"""Who may talk to a server: its own pages and clients, not other web sites.

:class:`Guard` is an ASGI middleware that refuses, before anything else runs:

- a request whose ``Host`` is not one of the server's names (421): a web page that
  rebinds its own name to this machine's address (DNS rebinding) is then not served.
  With ``check_host="browser"`` only requests a browser sent (they carry ``Origin``) are
  checked, for a service that holds nothing to read;
- a request from a page of another origin (``Origin`` neither the server's own nor one
  allowed for CORS; 403): browsers send ``Origin`` with every ``POST``;
- a ``POST`` to a JSON endpoint whose body is declared as anything but
  ``application/json`` (415): forms and ``text/plain`` bodies are what another site can
  send without asking first;
- when the server has a token, a request that does not carry it (401): in the cookie
  ``coscore-token-PORT`` (set from ``?token=...`` on any page, so the unchanged
  frontend carries it from then on), as ``?token=...``, or as ``Authorization: Bearer``.
"""
from __future__ import annotations

import hmac
import html
from dataclasses import dataclass
from typing import Any, Awaitable, Callable

from starlette.datastructures import Headers, QueryParams
from starlette.requests import cookie_parser
from starlette.responses import HTMLResponse, Response

from .responses import ApiError, error_response

__all__ = ["Guard", "GuardSettings", "LOOPBACK_NAMES", "cookie_name"]

#: The names of this machine every server answers to when it listens on loopback.
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})

Scope = dict
ASGIApp = Callable[[Scope, Callable, Callable], Awaitable[None]]


@dataclass(frozen=True)
class GuardSettings:
    """What :class:`Guard` allows.

    ``hosts``: the names the ``Host`` header may give (``None``: any); ``check_host``:
    ``"always"``, or ``"browser"`` (only requests with an ``Origin``); ``origins``: other
    origins allowed (CORS; ``"*"`` for any); ``token``: the token every request must
    carry (``None``: none); ``json_prefix``: paths under it take JSON bodies, and get
    JSON errors (others get a short HTML page).
    """

    hosts: frozenset[str] | None = None
    check_host: str = "always"
    origins: frozenset[str] = frozenset()
    token: str | None = None
    json_prefix: str = "/"


def cookie_name(port: int | None) -> str:
    """The token cookie of a server on ``port`` (cookies do not tell ports apart)."""
    return f"coscore-token-{port}" if port else "coscore-token"


def _host_name(host: str) -> str:
    """``host`` of a ``Host`` header without its port, lower case (``[::1]:5000`` → ``::1``)."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


class Guard:
    """The ASGI middleware of :mod:`coscore.http.guard` around ``app``."""

    def __init__(self, app: ASGIApp, settings: GuardSettings):
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        refusal, set_cookie = self._check(scope, headers)
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        if set_cookie is None:
            await self.app(scope, receive, send)
            return

        async def send_with_cookie(message: dict) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), (b"set-cookie", set_cookie)]}
            await send(message)

        await self.app(scope, receive, send_with_cookie)

    def _check(self, scope: Scope, headers: Headers) -> tuple[Response | None, bytes | None]:
        """``(refusal, cookie to set)``: the response refusing the request, or ``None``."""
        settings = self.settings
        api = scope["path"].startswith(settings.json_prefix)
        host = headers.get("host", "")
        origin = headers.get("origin")
        if settings.hosts is not None and (settings.check_host == "always" or origin is not None):
            if _host_name(host) not in settings.hosts:
                return self._refuse(api, 421, f"this server does not answer to the name {_host_name(host)!r} "
                                              "(the Host header); use its own address"), None
        if origin is not None:
            own = f"{scope.get('scheme', 'http')}://{host}".lower()
            if origin.lower() != own and "*" not in settings.origins and origin not in settings.origins:
                return self._refuse(api, 403, f"requests from pages of {origin} are not allowed"), None
        set_cookie = None
        if settings.token is not None and scope["method"] != "OPTIONS":  # a CORS preflight carries no token
            given, set_cookie = self._token(scope, headers)
            if given is None or not hmac.compare_digest(given.encode(), settings.token.encode()):
                return self._refuse(api, 401, "this server needs its token: open the address it printed when it "
                                              "started (with ?token=...), or send 'Authorization: Bearer TOKEN'"), None
        if api and scope["method"] == "POST":
            kind = headers.get("content-type")
            if kind is not None and kind.split(";", 1)[0].strip().lower() != "application/json":
                return self._refuse(api, 415, f"the body must be JSON ('Content-Type: application/json'), "
                                              f"not {kind.split(';', 1)[0].strip()!r}"), None
        return None, set_cookie

    def _token(self, scope: Scope, headers: Headers) -> tuple[str | None, bytes | None]:
        """The token the request carries, and the cookie to set when it came in the URL."""
        port = (scope.get("server") or (None, None))[1]
        name = cookie_name(port)
        query = QueryParams(scope.get("query_string", b"")).get("token")
        if query is not None:
            cookie = f"{name}={query}; Path=/; HttpOnly; SameSite=Lax".encode("latin-1", "replace")
            return query, cookie
        authorization = headers.get("authorization", "")
        if authorization.lower().startswith("bearer "):
            return authorization[7:].strip(), None
        return cookie_parser(headers.get("cookie", "")).get(name), None

    @staticmethod
    def _refuse(api: bool, status: int, message: str) -> Any:
        if api:
            return error_response(ApiError(status, message))
        return HTMLResponse(f"<!doctype html><title>{status}</title><p>{html.escape(message)}</p>", status)
