"""The command-line side of both servers: parsing sizes and ports, checking the address
before anything starts, and running an app with uvicorn."""
from __future__ import annotations

import argparse
import math
import re
import socket
from typing import Any, Callable

__all__ = ["parse_size", "port", "positive", "address_problem", "serve", "LOG_LEVELS"]

#: uvicorn's log levels, for ``--log-level``.
LOG_LEVELS = ["critical", "error", "warning", "info", "debug", "trace"]

_SIZE = re.compile(r"^\s*(\d+)\s*([kmg]i?b?|b)?\s*$", re.IGNORECASE)


def parse_size(text: str) -> int:
    """``"16777216"``, ``"16M"``, ``"512k"``, ``"1GiB"`` → bytes."""
    match = _SIZE.match(text)
    if not match:
        raise argparse.ArgumentTypeError(f"not a size in bytes: {text!r} (e.g. 16777216, 16M, 512K)")
    number, unit = int(match.group(1)), (match.group(2) or "b").lower()
    return number * {"b": 1, "k": 2**10, "m": 2**20, "g": 2**30}[unit[0]]


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


def serve(app: Any, host: str, port: int, log_level: str = "info") -> None:
    """Run ``app`` with uvicorn on ``host:port`` until interrupted (``SIGINT``/``SIGTERM``
    stop it cleanly: the app's lifespan ends, its workers stop)."""
    import uvicorn

    uvicorn.run(app, host=host, port=port, log_level=log_level)
