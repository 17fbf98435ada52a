"""Request bodies: read under a size cap, a time limit, caps on bytes in flight and a JSON budget.

:func:`read_body` refuses a body over the size cap from its ``Content-Length`` (413)
before reading any of it, or as soon as a streamed one passes the cap; one still
arriving after the body timeout gets 408. Bodies are not held whole in memory: past
:data:`SPOOL_IN_MEMORY` bytes they go to a temporary file, which a worker process reads
itself (:class:`SpooledBody`). All the bodies being received or waiting for their answer
share one budget of bytes (:class:`InFlight`), and so do each client's: it counts the
bytes that have *arrived*, not those a ``Content-Length`` declares, so connections that
declare a large body and trickle it hold next to nothing. A request that would go over
gets 503 with ``Retry-After``, so a crowd of large bodies cannot take the server's memory
or disk. As it arrives, every body is counted against a :class:`~.jsonscan.JsonBudget`
(values and depth; :mod:`.jsonscan`) and refused at the first byte over it, so whatever
parses it later — a worker, or the server itself — builds a bounded document.

:func:`parse_json` and :func:`json_object` read a body as JSON (counted against a budget
first, when given one): anything malformed is a 400 naming the place, and so is text
holding a lone surrogate (``"\\ud800"``), which no UTF-8 answer or database can hold.
"""
from __future__ import annotations

import asyncio
import json
import os
import re
import tempfile
import threading
from dataclasses import dataclass
from typing import Any

from starlette.requests import ClientDisconnect, Request

from ..diagnostics import json_type
from .clients import client_of
from .jsonscan import JsonBudget, JsonScan, check_json
from .responses import ApiError

__all__ = ["Body", "BodyLimits", "InFlight", "SpooledBody", "read_body", "parse_json", "json_object",
           "SPOOL_IN_MEMORY"]

#: Bodies up to this size stay in memory; larger ones are written to a temporary file.
SPOOL_IN_MEMORY = 1 << 20


class InFlight:
    """A budget of bytes shared by every body being received or answered, ``limit`` in
    all and ``per_client`` for each client's (``None``: no cap); thread-safe."""

    def __init__(self, limit: int | None, per_client: int | None = None):
        self.limit = limit
        self.per_client = per_client
        self.used = 0
        self.by_client: dict[str, int] = {}
        self._lock = threading.Lock()

    def take(self, size: int, client: str | None = None) -> str | None:
        """Reserve ``size`` more bytes for ``client``: ``None``, or the budget that would go
        over (``"in_flight"``, ``"client_in_flight"``; then nothing is reserved)."""
        with self._lock:
            if self.limit is not None and self.used + size > self.limit:
                return "in_flight"
            held = self.by_client.get(client, 0) if client is not None else 0
            if client is not None and self.per_client is not None and held + size > self.per_client:
                return "client_in_flight"
            self.used += size
            if client is not None:
                self.by_client[client] = held + size
            return None

    def give(self, size: int, client: str | None = None) -> None:
        """Return ``size`` bytes reserved for ``client``."""
        with self._lock:
            self.used -= size
            if client is not None:
                left = self.by_client.get(client, 0) - size
                if left > 0:
                    self.by_client[client] = left
                else:
                    self.by_client.pop(client, None)

    def refusal(self, budget: str, client: str | None) -> ApiError:
        """The error of a body refused by ``budget`` (from :meth:`take`)."""
        if budget == "client_in_flight":
            return ApiError.budget("client_in_flight", f"this client ({client}) holds {self.per_client:,} bytes of "
                                   "request bodies already, the most one client may (--max-client-in-flight); "
                                   "try again when its requests are answered", self.per_client or 0)
        return ApiError.budget("in_flight", f"the server holds {self.limit:,} bytes of request bodies already "
                               "(--max-in-flight); try again later", self.limit or 0)


@dataclass(frozen=True)
class BodyLimits:
    """How bodies are read: the largest accepted (``max_body``), the seconds one may take
    to arrive (``timeout``, ``None``: no limit), the shared :class:`InFlight` budget, the
    folder spooled bodies are written to (``None``: the system's temporary folder) and
    the :class:`~.jsonscan.JsonBudget` every body is counted against as it arrives
    (``None``: not counted; nor is a body declared as something other than JSON, such as
    a file sent as ``application/octet-stream``)."""

    max_body: int
    timeout: float | None = None
    in_flight: InFlight | None = None
    spool_dir: str | None = None
    json: JsonBudget | None = JsonBudget()  # noqa: RUF009 - frozen: one shared default


@dataclass(frozen=True)
class SpooledBody:
    """A body written to the file ``path``: what is sent to a worker process in its place."""

    path: str
    size: int

    def read(self) -> bytes:
        """The body's bytes (read in the worker)."""
        with open(self.path, "rb") as handle:
            return handle.read()


class Body:
    """A request body read by :func:`read_body`: in memory, or spooled to a file.

    Close it (or use it as a context manager) when the request is answered: that deletes
    the file and gives its bytes back to the in-flight budget.
    """

    def __init__(self, data: bytes | None, spooled: SpooledBody | None, reserved: int, in_flight: InFlight | None,
                 client: str | None = None):
        self._data = data
        self._spooled = spooled
        self._reserved = reserved
        self._in_flight = in_flight
        self._client = client
        self.size = spooled.size if spooled is not None else len(data or b"")

    def payload(self) -> bytes | SpooledBody:
        """What to send to a worker: the bytes, or the file they were spooled to."""
        return self._spooled if self._spooled is not None else (self._data or b"")

    def read(self) -> bytes:
        """The whole body."""
        return self._spooled.read() if self._spooled is not None else (self._data or b"")

    def close(self) -> None:
        """Delete the spooled file and give the reserved bytes back (idempotent)."""
        if self._spooled is not None:
            try:
                os.unlink(self._spooled.path)
            except OSError:
                pass
            self._spooled = None
        self._data = None
        if self._in_flight is not None and self._reserved:
            self._in_flight.give(self._reserved, self._client)
        self._reserved = 0

    def __enter__(self) -> Body:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _may_be_json(request: Request) -> bool:
    """Whether the body may be read as JSON: it is declared JSON, or not declared at all
    (a file sent as ``application/octet-stream`` is not counted as JSON)."""
    kind = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    return not kind or kind == "application/json" or kind.endswith("+json")


async def read_body(request: Request, limits: BodyLimits) -> Body:
    """The request's body under ``limits``; :class:`ApiError` 413, 408, 503, 422 or 400.

    Only the bytes that have arrived are reserved in the in-flight budgets (the server's
    and the client's, :func:`~.clients.client_of`), as they arrive; a ``Content-Length``
    over ``max_body`` is refused before anything is read."""
    limit, in_flight = limits.max_body, limits.in_flight
    declared = request.headers.get("content-length")
    client = client_of(request)
    if declared is not None:
        try:
            length = int(declared)
        except ValueError:
            raise ApiError(400, "invalid Content-Length") from None
        if length > limit:
            raise ApiError.budget("body", f"the request body is {length} bytes; the limit is {limit} (--max-body)",
                                  limit)
    scan = JsonScan(limits.json) if limits.json is not None and _may_be_json(request) else None
    chunks: list[bytes] = []
    state: dict[str, Any] = {"size": 0, "reserved": 0, "file": None}

    async def receive() -> None:
        async for chunk in request.stream():
            size = state["size"] + len(chunk)
            if size > limit:
                raise ApiError.budget("body", f"the request body is over the limit of {limit} bytes (--max-body)",
                                      limit)
            if in_flight is not None and size > state["reserved"]:
                refused = in_flight.take(size - state["reserved"], client)
                if refused is not None:
                    raise in_flight.refusal(refused, client)
                state["reserved"] = size
            state["size"] = size
            if scan is not None:
                scan.feed(chunk)
            if state["file"] is None and size > SPOOL_IN_MEMORY:
                # closed once the body is read, removed with the body
                spool = tempfile.NamedTemporaryFile(prefix="coscore-body-", dir=limits.spool_dir,  # noqa: SIM115
                                                    delete=False)
                spool.writelines(chunks)
                chunks.clear()
                state["file"] = spool
            if state["file"] is not None:
                state["file"].write(chunk)
            else:
                chunks.append(chunk)
        if scan is not None:
            scan.finish()

    try:
        try:
            await asyncio.wait_for(receive(), limits.timeout)
        except ClientDisconnect:
            raise ApiError(400, "the client disconnected while sending the body") from None
        except asyncio.TimeoutError:
            raise ApiError.budget("body_timeout", f"the request body took longer than {limits.timeout:g} s to "
                                  "arrive (--body-timeout)", limits.timeout or 0) from None
    except BaseException:
        if state["file"] is not None:
            state["file"].close()
            os.unlink(state["file"].name)
        if in_flight is not None and state["reserved"]:
            in_flight.give(state["reserved"], client)
        raise
    if state["file"] is not None:
        state["file"].close()
        return Body(None, SpooledBody(state["file"].name, state["size"]), state["reserved"], in_flight, client)
    return Body(b"".join(chunks), None, state["reserved"], in_flight, client)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


#: A ``\\uD800``-``\\uDFFF`` escape: the only way JSON text can hold a surrogate.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF][0-9a-fA-F]{2}")


def _lone_surrogate(value: Any, path: str) -> str | None:
    """The path of the first string (or key) in ``value`` holding a lone surrogate."""
    stack = [(value, path)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return where
        elif isinstance(item, dict):
            for key, inner in item.items():
                stack.append((key, where))
                stack.append((inner, f"{where}.{key}" if where else str(key)))
        elif isinstance(item, list):
            stack.extend((inner, f"{where}[{i}]") for i, inner in enumerate(item))
    return None


def parse_json(body: bytes, budget: JsonBudget | None = None) -> Any:
    """The request body as JSON; :class:`ApiError` 400 when it is not, or when a string
    in it holds a lone surrogate. With ``budget``, counted against it before anything is
    built (413 ``"json_values"``, 422 ``"json_depth"``; a body from :func:`read_body`
    has been counted already)."""
    if budget is not None:
        check_json(body, budget)
    if not body.strip():
        raise ApiError(400, "the request body is empty; expected a JSON object")
    try:
        text = body.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ApiError(400, f"the request body is not UTF-8 (byte {exc.start})") from None
    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise ApiError(400, f"malformed JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    except ValueError as exc:  # NaN/Infinity literals, integers too long to convert
        raise ApiError(400, f"malformed JSON: {exc}") from None
    except RecursionError:
        raise ApiError(400, "malformed JSON: nested too deeply") from None
    if _SURROGATE_ESCAPE.search(text):  # pairs are fine; find a lone one
        where = _lone_surrogate(data, "")
        if where is not None:
            raise ApiError(400, f"the request holds a lone surrogate (a \\ud800-\\udfff escape that is not "
                           f"half of a pair) in {where or 'the body'}: such text cannot be stored or sent")
    return data


def json_object(body: bytes, required: tuple[str, ...], budget: JsonBudget | None = None) -> dict:
    """The request body as a JSON object holding the ``required`` keys; :class:`ApiError`
    400 naming what is wrong (``budget``: see :func:`parse_json`)."""
    data = parse_json(body, budget)
    if not isinstance(data, dict):
        raise ApiError(400, f"the request body must be a JSON object, not {json_type(data)}")
    missing = [k for k in required if k not in data]
    if missing:
        raise ApiError(400, f"missing {', '.join(repr(k) for k in missing)} in the request body")
    return data
