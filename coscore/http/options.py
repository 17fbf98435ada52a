"""The command-line side of both servers: their shared options, the address check, who
may connect (names, token), and running an app with uvicorn.

:func:`add_arguments` adds the options both ``coscore serve`` and ``coscore app`` take
(address, budgets, access); :func:`access` decides, from the address the server listens
on, which ``Host`` names it answers to and whether it needs a token: on a loopback
address only this machine's names and no token (unless one is given); on any other
address a token (``--token``, or one generated and printed with the address to open),
unless ``--no-token`` says otherwise. :func:`serve` runs uvicorn with a timeout on
request headers, so connections that never finish theirs are closed.
"""
from __future__ import annotations

import argparse
import ipaddress
import math
import secrets
import socket
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..limits import add_arguments as add_limit_arguments
from ..limits import parse_size
from .clients import DEFAULT_CLIENT_REQUESTS
from .jsonscan import DEFAULT_JSON_DEPTH, DEFAULT_JSON_VALUES

if TYPE_CHECKING:
    from .admission import Admission

__all__ = ["parse_size", "port", "positive", "address_problem", "serve", "add_arguments", "access", "Access",
           "admission", "is_loopback", "LOG_LEVELS", "DEFAULT_HEADER_TIMEOUT", "DEFAULT_IN_FLIGHT"]

#: Seconds a client may take to send a request's headers (the first, or the next one on
#: a kept-alive connection) before the connection is closed.
DEFAULT_HEADER_TIMEOUT = 10.0
#: Bytes of request bodies all requests together may hold at once.
DEFAULT_IN_FLIGHT = 256 * 2**20
#: Seconds the server waits for open requests when asked to stop.
GRACEFUL_SHUTDOWN = 5

#: uvicorn's log levels, for ``--log-level``.
LOG_LEVELS = ["critical", "error", "warning", "info", "debug", "trace"]

def port(text: str) -> int:
    """A port number, 0 to 65535."""
    try:
        number = int(text)
    except ValueError:
        number = -1
    if not 0 <= number <= 65535:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}")
    return number


def positive(kind: type) -> Callable[[str], Any]:
    """A parser of positive finite numbers of ``kind`` (``int`` or ``float``)."""

    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            value = 0
        if not value > 0 or not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"not a positive number: {text!r}")
        return value

    return parse


def address_problem(host: str, port: int) -> str | None:
    """Why a server could not listen on ``host:port`` (an address in use, not this
    machine's, not allowed), on one line; ``None`` when it can. Checked before the app
    and its workers start, so that the command says so and exits 2 instead of logging
    a startup failure. Binds as the server will (every address of ``host``, reusing
    addresses in ``TIME_WAIT``) and lets go at once."""
    try:
        found = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (OSError, UnicodeError) as exc:
        return f"cannot listen on {host}:{port}: unknown address ({getattr(exc, 'strerror', None) or exc})"
    for family, kind, proto, _, address in found:
        try:
            with socket.socket(family, kind, proto) as sock:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                if family == socket.AF_INET6 and len(found) > 1:
                    sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
                sock.bind(address)
        except OSError as exc:
            return f"cannot listen on {host}:{port}: {exc.strerror or exc}"
    return None


def _size_text(size: int) -> str:
    """``size`` bytes as the help says them: ``4G``, ``64M``, or the number."""
    for unit, scale in (("G", 2**30), ("M", 2**20), ("K", 2**10)):
        if size >= scale and size % scale == 0:
            return f"{size // scale}{unit}"
    return str(size)


def add_arguments(parser: argparse.ArgumentParser, *, port_default: int, max_body: int, workers: int,
                  timeout: float, memory: int, body_timeout: float, workers_default: str | None = None) -> None:
    """The options every server takes, with this server's defaults; ``workers_default``
    says how the default of ``--workers`` is chosen when it is not a fixed ``workers``
    (e.g. "one per core, at least 2 and at most 8")."""
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1; 0.0.0.0 "
                        "for every interface, which needs a token)")
    parser.add_argument("--port", type=port, default=port_default, help=f"port to listen on (default {port_default})")
    parser.add_argument("--token", metavar="TOKEN", help="the token every request must carry (default: none on "
                        "127.0.0.1; generated and printed with the address to open on any other address)")
    parser.add_argument("--no-token", action="store_true", help="serve a non-loopback address without a token "
                        "(anyone who can reach it can read and change everything)")
    parser.add_argument("--allowed-host", action="append", metavar="NAME", dest="allowed_hosts",
                        help="a name the server answers to besides its own address (e.g. behind a proxy); repeatable")
    parser.add_argument("--max-body", type=parse_size, default=max_body, metavar="BYTES",
                        help=f"largest request body accepted, e.g. 16M (default {_size_text(max_body)}); larger "
                        "ones get 413")
    parser.add_argument("--max-in-flight", type=parse_size, default=DEFAULT_IN_FLIGHT, metavar="BYTES",
                        help="bytes of request bodies held at once, over every request (default 256M); a request "
                        "that would go over gets 503")
    parser.add_argument("--max-client-in-flight", type=parse_size, default=None, metavar="BYTES",
                        help="bytes of request bodies one client may hold at once (default: a quarter of "
                        "--max-in-flight, at least --max-body; 0 for no cap); past it the client gets 503")
    parser.add_argument("--max-client-requests", type=positive(int), default=DEFAULT_CLIENT_REQUESTS, metavar="N",
                        help=f"requests one client (address) may have open at once (default "
                        f"{DEFAULT_CLIENT_REQUESTS}); one more gets 503")
    parser.add_argument("--max-json-values", type=positive(int), default=DEFAULT_JSON_VALUES, metavar="N",
                        help=f"values (objects, arrays, strings, numbers) a JSON body may hold (default "
                        f"{DEFAULT_JSON_VALUES:,}); counted as it arrives, past it 413")
    parser.add_argument("--max-json-depth", type=positive(int), default=DEFAULT_JSON_DEPTH, metavar="N",
                        help=f"how deep a JSON body may nest objects and arrays (default {DEFAULT_JSON_DEPTH}); "
                        "deeper gets 422")
    parser.add_argument("--workers", type=positive(int), default=workers, metavar="N",
                        help=f"worker processes that compile and score (default {workers_default or workers})")
    parser.add_argument("--timeout", type=positive(float), default=timeout, metavar="SECONDS",
                        help=f"wall-time budget of one request (of one answer, in a task); past it the worker is "
                        f"killed, the request answered 503 (default {timeout:g})")
    parser.add_argument("--memory", type=parse_size, default=memory, metavar="BYTES",
                        help="memory a worker may grow by; a request needing more is answered 422 "
                        f"(default {_size_text(memory) if memory else 'no limit'}; 0 for no limit)")
    parser.add_argument("--body-timeout", type=positive(float), default=body_timeout, metavar="SECONDS",
                        help=f"time a client may take to send a request body, else 408 (default {body_timeout:g})")
    parser.add_argument("--header-timeout", type=positive(float), default=DEFAULT_HEADER_TIMEOUT, metavar="SECONDS",
                        help=f"time a client may take to send a request's headers, else the connection is closed "
                        f"(default {DEFAULT_HEADER_TIMEOUT:g})")
    add_limit_arguments(parser)
    parser.add_argument("--log-level", default="info", choices=LOG_LEVELS, help="uvicorn log level (default info)")


def admission(args: argparse.Namespace) -> Admission:
    """The :class:`~coscore.http.admission.Admission` of the options :func:`add_arguments` added."""
    from .admission import Admission
    from .jsonscan import JsonBudget

    return Admission(JsonBudget(args.max_json_values, args.max_json_depth), args.max_client_requests,
                     args.max_client_in_flight)


def is_loopback(host: str) -> bool:
    """Whether every address ``host`` names is a loopback address (this machine only)."""
    try:
        found = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return False
    addresses = {str(info[4][0]).split("%", 1)[0] for info in found}
    return bool(addresses) and all(ipaddress.ip_address(a).is_loopback for a in addresses)


@dataclass(frozen=True)
class Access:
    """Who may connect: the ``Host`` names answered (``None``: any), the token (``None``:
    none), and what to tell the user at start (lines for stderr)."""

    hosts: frozenset[str] | None
    token: str | None
    notes: tuple[str, ...]


def access(command: str, host: str, port_number: int, token: str | None, no_token: bool,
           allowed_hosts: list[str] | None) -> Access:
    """The :class:`Access` of a server listening on ``host:port_number`` (see the module's description)."""
    from .guard import LOOPBACK_NAMES

    local = is_loopback(host)
    extra = frozenset(name.lower() for name in allowed_hosts or ())
    hosts = (LOOPBACK_NAMES | {host.lower()} | extra) if local or extra else None
    shown = host if local or host not in ("0.0.0.0", "::", "") else socket.gethostname()
    url = f"http://{'[' + shown + ']' if ':' in shown else shown}:{port_number}/"
    notes: list[str] = []
    if token is None and not local and not no_token:
        token = secrets.token_urlsafe(24)
    if token is not None:
        notes.append(f"{command}: open {url}?token={token} (every request needs this token)")
    elif not local:
        notes.append(f"{command}: warning: serving {host} without a token (--no-token): anyone who can reach "
                     f"{url} can use it")
    return Access(hosts, token, tuple(notes))


def _header_timeout_protocol(seconds: float) -> type:
    """uvicorn's HTTP protocol, closing a connection whose request headers have not all
    arrived ``seconds`` after it opened or after its previous response."""
    from uvicorn.protocols.http.auto import AutoHTTPProtocol

    class HeaderTimeoutProtocol(AutoHTTPProtocol):  # type: ignore[misc, valid-type]
        """uvicorn's protocol with a timer on each request's headers."""

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._coscore_timer = self.loop.call_later(seconds, self._coscore_expire)

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._coscore_timer.cancel()
            self._coscore_timer = self.loop.call_later(seconds, self._coscore_expire)

        def connection_lost(self, exc: Exception | None) -> None:
            self._coscore_timer.cancel()
            super().connection_lost(exc)

        def _coscore_expire(self) -> None:
            cycle = self.cycle
            if cycle is None or cycle.response_complete:  # still waiting for a request's headers
                self.transport.close()

    return HeaderTimeoutProtocol


def serve(app: Any, host: str, port: int, log_level: str = "info", *,
          header_timeout: float = DEFAULT_HEADER_TIMEOUT, notes: tuple[str, ...] = ()) -> None:
    """Run ``app`` with uvicorn on ``host:port`` until interrupted (``SIGINT``/``SIGTERM``
    stop it cleanly: open requests get a few seconds, then the app's lifespan ends and its
    workers stop); ``notes`` are printed to stderr first."""
    import uvicorn

    for note in notes:
        print(note, file=sys.stderr, flush=True)
    # Forwarded headers are read by the app itself (coscore.http.proxy, --proxy-headers), from
    # the proxies it was told to trust, never by uvicorn's own default (which trusts loopback).
    uvicorn.run(app, host=host, port=port, log_level=log_level, http=_header_timeout_protocol(header_timeout),
                timeout_graceful_shutdown=GRACEFUL_SHUTDOWN, proxy_headers=False)
