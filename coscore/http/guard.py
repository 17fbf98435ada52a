"""Who may talk to a server: its own pages and clients, not other web sites.

:class:`Guard` is an ASGI middleware that refuses, before anything else runs:

- a request whose ``Host`` is not one of the server's names (421): a web page that
  rebinds its own name to this machine's address (DNS rebinding) is then not served.
  With ``check_host="browser"`` only requests a browser sent (they carry ``Origin``) are
  checked, for a service that holds nothing to read;
- a request from a page of another origin (``Origin`` neither the server's own nor one
  allowed for CORS; 403): browsers send ``Origin`` with every ``POST``. A request that
  changes something (any method but ``GET``, ``HEAD``, ``OPTIONS``) without ``Origin`` is
  judged by what else the browser says: its ``Referer``'s origin by the same rule, and
  ``Sec-Fetch-Site: cross-site`` (or ``same-site``: another origin of the same site)
  refused unless any origin is allowed;
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
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from starlette.datastructures import Headers, QueryParams
from starlette.requests import cookie_parser
from starlette.responses import HTMLResponse, Response

from .proxy import route_path
from .responses import ApiError, error_response

__all__ = ["Guard", "GuardSettings", "LOOPBACK_NAMES", "cookie_name"]

#: The names of this machine every server answers to when it listens on loopback.
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
#: Methods that change nothing: a request by one of them without ``Origin`` is not judged
#: by its ``Referer`` or ``Sec-Fetch-Site`` (a link from another site to a page is fine).
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

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


def _referer_origin(referer: str) -> str:
    """The origin (``scheme://host[:port]``) of a ``Referer``; ``"null"`` when it has none."""
    try:
        parts = urlsplit(referer.strip())
    except ValueError:
        return "null"
    if not parts.scheme or not parts.netloc:
        return "null"
    return f"{parts.scheme}://{parts.netloc.rsplit('@', 1)[-1]}"


def _host_name(host: str) -> str:
    """``host`` of a ``Host`` header without its port, lower case (``[::1]:5000`` → ``::1``)."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def _proxy_hint(origin: str, own: str, headers: Headers) -> str:
    """What to set when ``origin`` is refused because the server was not told about its
    proxy: the same host by another scheme (TLS ended at a proxy), or forwarded headers
    from a peer not trusted (see docs/deployment.md)."""
    forwarded = any(name in headers for name in ("x-forwarded-proto", "x-forwarded-host", "x-forwarded-for"))
    if forwarded or origin.lower().split("://", 1)[-1] == own.split("://", 1)[-1]:
        return (f" (this request reached the server as {own}; behind a reverse proxy, start the server with "
                "--proxy-headers --forwarded-allow-ips PROXY_ADDRESS so that X-Forwarded-Proto and X-Forwarded-Host "
                "count)")
    return ""


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
        api = route_path(scope).startswith(settings.json_prefix)  # under --root-path, what follows it
        host = headers.get("host", "")
        origin = headers.get("origin")
        if origin is None and scope["method"] not in SAFE_METHODS:  # judged by what else the browser says
            referer, site = headers.get("referer"), headers.get("sec-fetch-site", "").strip().lower()
            if referer is not None:
                origin = _referer_origin(referer)
            elif site in ("cross-site", "same-site") and "*" not in settings.origins:
                return self._refuse(api, 403, f"requests from pages of other sites are not allowed (Sec-Fetch-Site: "
                                              f"{site}, and no Origin)"), None
        if (settings.hosts is not None and (settings.check_host == "always" or origin is not None)
                and _host_name(host) not in settings.hosts):
            name = _host_name(host)
            return self._refuse(api, 421, f"this server does not answer to the name {name!r} (the Host header); "
                                          f"use its own address, or (behind a proxy) start it with "
                                          f"--allowed-host {name}"), None
        if origin is not None:
            own = f"{scope.get('scheme', 'http')}://{host}".lower()
            if origin.lower() != own and "*" not in settings.origins and origin not in settings.origins:
                return self._refuse(api, 403, f"requests from pages of {origin} are not allowed"
                                              f"{_proxy_hint(origin, own, headers)}"), None
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
