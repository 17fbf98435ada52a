"""JSON answers and errors, as both servers send them.

Every error is ``{"error": message, ...}`` with its status (:class:`ApiError`), the
message at most 1,000 characters (:func:`coscore.diagnostics.shorten`). Numbers JSON
cannot hold (NaN, ±inf) are sent as ``null`` (:func:`finite`). A job stopped by one of
the worker pool's budgets is answered with the status that budget gets
(:data:`BUDGET_STATUS`), naming the budget and its limit.
"""
from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

from starlette.responses import Response

from ..diagnostics import shorten
from ..errors import CoscoreError

__all__ = ["ApiError", "BUDGET_STATUS", "RETRY_BUDGETS", "answer", "finite", "floats", "json_bytes", "json_response",
           "error_payload", "error_response", "short_strings"]

#: The status of a request stopped by a budget: ``time`` (it ran too long), ``workers``
#: (no worker came free in time), ``in_flight`` (too many bytes of bodies held at once)
#: are 503, to be retried; ``memory`` and ``response`` are 422, the request itself needs
#: too much; ``body`` is 413 and ``body_timeout`` 408. ``client_requests`` and
#: ``client_in_flight`` (one client holds too many requests, or bytes of bodies, at once)
#: are 503 too; a JSON body holding too many values (``json_values``) is 413, nested too
#: deep (``json_depth``) 422.
BUDGET_STATUS = {"time": 503, "workers": 503, "in_flight": 503, "memory": 422, "response": 422, "body": 413,
                 "body_timeout": 408, "client_requests": 503, "client_in_flight": 503, "json_values": 413,
                 "json_depth": 422}
#: The budgets whose 503 asks the client to try again (``Retry-After``).
RETRY_BUDGETS = frozenset({"workers", "in_flight", "client_requests", "client_in_flight"})
#: The budgets that may refuse a request before its body has all been read.
_BODY_LEFT_UNREAD = frozenset({"in_flight", "client_requests", "client_in_flight", "json_depth"})


class ApiError(CoscoreError):
    """An error answered as ``{"error": message, ...extra}`` with ``status``."""

    def __init__(self, status: int, message: str, **extra: Any):
        super().__init__(message)
        self.status = status
        self.message = message
        self.extra = extra

    @classmethod
    def budget(cls, budget: str, message: str, limit: float | int) -> ApiError:
        """The error of a request stopped by ``budget`` (see :data:`BUDGET_STATUS`)."""
        return cls(BUDGET_STATUS[budget], message, budget=budget, limit=limit)


def finite(value: Any) -> Any:
    """``value`` with every NaN/±inf float (also numpy's) replaced by ``None``, recursively."""
    t = type(value)
    if t is float:
        return value if math.isfinite(value) else None
    if t is int or t is bool or t is str or value is None:
        return value
    if t is dict:
        return {k: finite(v) for k, v in value.items()}
    if t is list or t is tuple:
        return [finite(v) for v in value]
    if hasattr(value, "tolist"):  # numpy scalars and arrays
        return finite(value.tolist())
    if isinstance(value, float):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, int):
        return int(value)
    return value


def floats(values: Any) -> list:
    """A float64 array as a list, NaN/±inf as ``None``."""
    isfinite = math.isfinite
    return [v if isfinite(v) else None for v in values.tolist()]


def json_bytes(payload: Any) -> bytes:
    """``payload`` as compact UTF-8 JSON (NaN refused: pass it through :func:`finite`)."""
    return json.dumps(payload, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")


def json_response(payload: Any, status: int = 200, headers: dict | None = None) -> Response:
    """A JSON response of ``payload``."""
    return Response(json_bytes(payload), status, headers=headers, media_type="application/json")


def error_payload(exc: ApiError) -> dict:
    """The JSON object of an error: its message shortened, its extra fields finite."""
    return finite({"error": shorten(exc.message), **exc.extra})


def error_response(exc: ApiError) -> Response:
    """The response of an error; the connection is closed after a body refused unread."""
    unread = exc.status in (408, 413) or exc.extra.get("budget") in _BODY_LEFT_UNREAD
    headers = {"Connection": "close"} if unread else {}
    if exc.status == 503 and exc.extra.get("budget") in RETRY_BUDGETS:
        headers["Retry-After"] = "1"
    return json_response(error_payload(exc), exc.status, headers or None)


def short_strings(value: Any) -> Any:
    """``value`` with every string in it (not the keys) cut by :func:`shorten`, recursively."""
    if type(value) is str:
        return shorten(value)
    if type(value) is dict:
        return {k: short_strings(v) for k, v in value.items()}
    if type(value) is list:
        return [short_strings(v) for v in value]
    return value


def answer(endpoint: Callable[..., Any], *args: Any) -> tuple[int, Any]:
    """``endpoint(*args)`` as a worker answers it: ``(200, its answer)``, or the status and
    JSON object of the :class:`ApiError` it raised, or 500 naming an unexpected failure
    (a worker never dies of a request). ``MemoryError`` is left to the worker pool, which
    answers it as over the memory budget."""
    try:
        return 200, endpoint(*args)
    except ApiError as exc:
        return exc.status, error_payload(exc)
    except MemoryError:
        raise
    except Exception as exc:
        return 500, {"error": shorten(f"internal error: {type(exc).__name__}: {exc}")}
