"""A server behind a reverse proxy: forwarded headers from trusted proxies, and a path prefix.

:class:`Proxy` says which peers are trusted proxies (``--forwarded-allow-ips``; only with
``--proxy-headers``) and the path prefix the server is reached under (``--root-path``).
:class:`ProxyHeaders` is the outermost ASGI middleware of both servers; for a request
whose peer is a trusted proxy it takes

- ``X-Forwarded-Proto`` as the request's scheme (``https``: the Origin check then
  expects ``https://...``),
- ``X-Forwarded-Host`` as its ``Host`` (the Host check and the Origin check read it),
- ``X-Forwarded-For`` as its client: the right-most address that is not itself a
  trusted proxy, so a client cannot name itself by sending the header; this is the
  address :func:`coscore.http.clients.client_of` gives, which the per-client caps and
  turns are keyed by.

A peer that is not trusted has its forwarded headers ignored (the request is judged by
its own ``Host``, scheme and address). The last value of a repeated header counts (the
one the nearest proxy wrote).

With a root path ``/prefix``, a request for ``/prefix/v1/check`` (a proxy that passes
the path unchanged) and one for ``/v1/check`` (a proxy that strips the prefix) are both
answered by ``/v1/check``: the scope's ``root_path`` is ``/prefix`` and its ``path``
starts with it, as ASGI says, so Starlette routes on what follows.
"""
from __future__ import annotations

import ipaddress
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["Proxy", "ProxyHeaders", "parse_trusted", "root_path", "route_path"]

Scope = dict
ASGIApp = Callable[[Scope, Callable, Callable], Awaitable[None]]
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
_SCHEMES = {"http": "http", "https": "https", "ws": "ws", "wss": "wss"}


def parse_trusted(text: str | Iterable[str]) -> tuple[str, ...]:
    """The trusted proxies of ``--forwarded-allow-ips``: a comma-separated list (or a list)
    of addresses and networks (``127.0.0.1``, ``10.0.0.0/8``, ``::1``), or ``*`` for any
    peer. Raises ``ValueError`` naming an entry that is neither."""
    items = [part.strip() for part in (text.split(",") if isinstance(text, str) else text)]
    found: list[str] = []
    for item in items:
        if not item:
            continue
        if item != "*":
            try:
                ipaddress.ip_network(item, strict=False)
            except ValueError:
                raise ValueError(f"not an address or a network: {item!r} (e.g. 127.0.0.1, 10.0.0.0/8, or *)") \
                    from None
        found.append(item)
    return tuple(found)


def root_path(text: str) -> str:
    """A path prefix: ``""`` (none), or ``/prefix`` without a trailing slash. Raises
    ``ValueError`` for one that does not start with ``/`` or holds ``?``, ``#`` or spaces."""
    text = text.strip()
    if text in ("", "/"):
        return ""
    if not text.startswith("/") or any(c in text for c in "?# \t\\"):
        raise ValueError(f"not a path prefix: {text!r} (e.g. /coscore)")
    return text.rstrip("/")


def route_path(scope: Mapping[str, Any]) -> str:
    """The path of a request's scope below its ``root_path`` (what the routes see)."""
    path: str = scope["path"]
    prefix: str = scope.get("root_path", "")
    if prefix and (path == prefix or path.startswith(prefix + "/")):
        return path[len(prefix):] or "/"
    return path


@dataclass(frozen=True)
class Proxy:
    """``trusted``: the peers whose ``X-Forwarded-*`` headers count (addresses, networks,
    or ``"*"``; empty: none, the default); ``root_path``: the path prefix the server is
    reached under (``""``: none)."""

    trusted: tuple[str, ...] = ()
    root_path: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "trusted", parse_trusted(self.trusted))
        object.__setattr__(self, "root_path", root_path(self.root_path))

    @property
    def active(self) -> bool:
        """Whether the middleware has anything to do."""
        return bool(self.trusted or self.root_path)


class ProxyHeaders:
    """The ASGI middleware of :mod:`coscore.http.proxy` around ``app``."""

    def __init__(self, app: ASGIApp, proxy: Proxy):
        self.app = app
        self.proxy = proxy
        self.any_peer = "*" in proxy.trusted
        self.networks: tuple[Network, ...] = tuple(
            ipaddress.ip_network(item, strict=False) for item in proxy.trusted if item != "*")

    def trusts(self, address: str) -> bool:
        """Whether ``address`` is a trusted proxy."""
        if self.any_peer:
            return True
        try:
            ip = ipaddress.ip_address(address.split("%", 1)[0])
        except ValueError:
            return False
        return any(ip in network for network in self.networks)

    async def __call__(self, scope: Scope, receive: Callable, send: Callable) -> None:
        if scope["type"] in ("http", "websocket"):
            scope = dict(scope)
            if self.proxy.trusted:
                self._forwarded(scope)
            if self.proxy.root_path:
                self._prefix(scope)
        await self.app(scope, receive, send)

    def _forwarded(self, scope: Scope) -> None:
        peer = scope.get("client")
        if not peer or not self.trusts(str(peer[0])):
            return
        last: dict[bytes, bytes] = {}
        for name, value in scope.get("headers", ()):
            if name in (b"x-forwarded-proto", b"x-forwarded-host", b"x-forwarded-for"):
                last[name] = value
        proto = last.get(b"x-forwarded-proto", b"").decode("latin-1").rsplit(",", 1)[-1].strip().lower()
        if proto in _SCHEMES:
            scheme = _SCHEMES[proto]
            scope["scheme"] = scheme.replace("http", "ws") if scope["type"] == "websocket" else scheme
        host = last.get(b"x-forwarded-host", b"").decode("latin-1").rsplit(",", 1)[-1].strip()
        if host and all(33 <= ord(c) < 127 for c in host):
            scope["headers"] = [(n, v) for n, v in scope["headers"] if n != b"host"] + [(b"host", host.encode())]
        client = self._client(last.get(b"x-forwarded-for", b"").decode("latin-1"))
        if client is not None:
            scope["client"] = (client, 0)

    def _client(self, header: str) -> str | None:
        """The right-most address of ``X-Forwarded-For`` not of a trusted proxy (the
        left-most when every one is); ``None`` when the header names none."""
        addresses = [part.strip() for part in header.split(",") if part.strip()]
        for address in reversed(addresses):
            if not self.trusts(address):
                return address[:100]
        return addresses[0][:100] if addresses else None

    def _prefix(self, scope: Scope) -> None:
        prefix = self.proxy.root_path
        path: str = scope["path"]
        scope["root_path"] = prefix
        if path == prefix or path.startswith(prefix + "/"):
            return  # the proxy kept the prefix
        scope["path"] = prefix + path
        raw: Any = scope.get("raw_path")
        if isinstance(raw, bytes):
            scope["raw_path"] = prefix.encode() + raw
