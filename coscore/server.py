"""``coscore serve``: the original CoScore HTTP API, plus a batch scoring service.

Endpoints (all JSON; see ``GET /openapi.json``):

- ``POST /api/testRule`` ``{"rule": {...}, "answer": [...]}`` → ``{"score", "debugInfo"}``,
  exactly what the original CoScore backend answered (without ``calMemory``).
- ``POST /v1/score`` ``{"rule": {...}, "answers": [[...], ...]}`` →
  ``{"scores": [...], "combos": {"A": [...]}, "errors": [...], "warnings": [...]}``.
- ``POST /v1/check`` ``{"rule": {...}}`` → ``{"valid", "diagnostics", "combos"}``.
- ``POST /v1/explain`` ``{"rule": {...}, "answer": [...]}`` → every atom call and its evidence.
- ``GET /healthz``; ``GET /openapi.json``.

Malformed JSON or a malformed request gives 400, an invalid rule 422 with its
diagnostics, a body over the limit 413 (refused from its ``Content-Length`` or while it
streams in, never read whole), a body still arriving after ``body_timeout`` seconds 408.
Parsing, compiling and scoring run in a bounded pool of worker processes
(:mod:`coscore.workers`), off the event loop: a request past its wall-time budget is
answered 503 and its worker killed and replaced, one past the memory budget 422; both
name the budget (``{"error": ..., "budget": "time", "limit": 5}``). Each worker keeps its
compiled rules in an LRU keyed by the rule's content and bounded in count and bytes.
Messages are at most 1,000 characters (:func:`coscore.diagnostics.shorten`). Numbers
that JSON cannot hold (NaN, ±inf) are sent as ``null``.

Run it with ``coscore serve`` or embed :func:`create_app` in any ASGI server.
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import functools
import json
import math
import os
import re
import socket
import time
from typing import Any, Awaitable, Callable

from . import __version__
from . import rule as _rule
from .compat import RuleCache
from .diagnostics import RuleError, json_type, shorten
from .limits import DEFAULT_LIMITS, BudgetExceeded, Limits
from .limits import add_arguments as add_limit_arguments
from .limits import from_arguments as limits_from_arguments
from .results import failure_message
from .workers import OverBudget, WorkerPool, WorkerStopped, rss_bytes

try:  # the service is an extra: pip install 'coscore[serve]'
    from starlette.applications import Starlette
    from starlette.exceptions import HTTPException
    from starlette.requests import ClientDisconnect, Request
    from starlette.responses import Response
    from starlette.routing import Route
except ImportError as exc:  # pragma: no cover - depends on the installation
    raise ImportError(f"coscore serve needs starlette and uvicorn ({exc.name} is missing)") from exc

DEFAULT_MAX_BODY = 16 * 2**20
#: Compiled rules kept per worker, and their bytes (see :class:`coscore.compat.RuleCache`).
DEFAULT_CACHE_SIZE = 256
DEFAULT_CACHE_BYTES = 256 * 2**20
#: Worker processes: one per core, at least 2 and at most 8.
DEFAULT_WORKERS = max(2, min(8, os.cpu_count() or 1))
#: Wall-time budget of one request (seconds), once a worker has it.
DEFAULT_TIMEOUT = 5.0
#: Bytes a worker's memory may grow by over what it holds when started.
DEFAULT_MEMORY = 2**30
#: Seconds a client may take to send a request body.
DEFAULT_BODY_TIMEOUT = 10.0
#: ``/v1/explain`` lists at most this many atom calls.
MAX_CALLS = 1000

__all__ = ["create_app", "add_arguments", "run", "OPENAPI", "DEFAULT_MAX_BODY", "DEFAULT_CACHE_SIZE",
           "DEFAULT_CACHE_BYTES", "DEFAULT_WORKERS", "DEFAULT_TIMEOUT", "DEFAULT_MEMORY", "DEFAULT_BODY_TIMEOUT"]


# -- errors and JSON ---------------------------------------------------------------------


class ApiError(Exception):
    """An error answered as ``{"error": message, ...extra}`` with ``status``."""

    def __init__(self, status: int, message: str, **extra: Any):
        super().__init__(message)
        self.status = status
        self.message = message
        self.extra = extra


def _finite(value: Any) -> Any:
    """``value`` with every NaN/±inf float (also numpy's) replaced by ``None``, recursively."""
    t = type(value)
    if t is float:
        return value if math.isfinite(value) else None
    if t is int or t is bool or t is str or value is None:
        return value
    if t is dict:
        return {k: _finite(v) for k, v in value.items()}
    if t is list or t is tuple:
        return [_finite(v) for v in value]
    if hasattr(value, "tolist"):  # numpy scalars and arrays
        return _finite(value.tolist())
    if isinstance(value, float):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, int):
        return int(value)
    return value


def _floats(values: Any) -> list:
    """A float64 array as a list, NaN/±inf as ``None``."""
    isfinite = math.isfinite
    return [v if isfinite(v) else None for v in values.tolist()]


def _json_bytes(payload: Any) -> bytes:
    return json.dumps(payload, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")


def json_response(payload: Any, status: int = 200, headers: dict | None = None) -> Response:
    return Response(_json_bytes(payload), status, headers=headers, media_type="application/json")


def _error_payload(exc: ApiError) -> dict:
    return _finite({"error": shorten(exc.message), **exc.extra})


def _error_response(exc: ApiError) -> Response:
    headers = {"Connection": "close"} if exc.status in (408, 413) else None
    return json_response(_error_payload(exc), exc.status, headers)


def _short_strings(value: Any) -> Any:
    """``value`` with every string in it (not the keys) cut by :func:`shorten`, recursively."""
    if type(value) is str:
        return shorten(value)
    if type(value) is dict:
        return {k: _short_strings(v) for k, v in value.items()}
    if type(value) is list:
        return [_short_strings(v) for v in value]
    return value


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def parse_json(body: bytes) -> Any:
    """The request body as JSON; :class:`ApiError` 400 when it is not."""
    if not body.strip():
        raise ApiError(400, "the request body is empty; expected a JSON object")
    try:
        text = body.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ApiError(400, f"the request body is not UTF-8 (byte {exc.start})") from None
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise ApiError(400, f"malformed JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    except ValueError as exc:  # NaN/Infinity literals, integers too long to convert
        raise ApiError(400, f"malformed JSON: {exc}") from None
    except RecursionError:
        raise ApiError(400, "malformed JSON: nested too deeply") from None


def json_object(body: bytes, required: tuple[str, ...]) -> dict:
    """The request body as a JSON object holding the ``required`` keys; :class:`ApiError` 400
    naming what is wrong."""
    data = parse_json(body)
    if not isinstance(data, dict):
        raise ApiError(400, f"the request body must be a JSON object, not {json_type(data)}")
    missing = [k for k in required if k not in data]
    if missing:
        raise ApiError(400, f"missing {', '.join(repr(k) for k in missing)} in the request body")
    return data


def _answer(value: Any, where: str) -> list:
    """One answer from the request: an array of blanks (strings), or one string."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return value
    raise ApiError(400, f"{where} must be an array of strings (the blanks), not {json_type(value)}")


def _diagnostics(items: Any) -> list[dict]:
    return [{**d.to_dict(), "message": shorten(d.message)} for d in items]


# -- the service -------------------------------------------------------------------------


class Service:
    """The endpoint logic, synchronous: one runs in each worker process (see :func:`handler`)."""

    def __init__(self, cache_size: int = DEFAULT_CACHE_SIZE, cache_bytes: int | None = DEFAULT_CACHE_BYTES,
                 limits: Limits = DEFAULT_LIMITS):
        self.cache = RuleCache(cache_size, compiler=functools.partial(_rule.compile, limits=limits),
                               maxbytes=cache_bytes, measure=True)
        self.endpoints: dict[str, Callable[[bytes], Any]] = {
            "testRule": self.test_rule, "score": self.score, "check": self.check, "explain": self.explain,
        }

    def handle(self, kind: str, body: bytes) -> tuple[int, bytes, dict]:
        """Answer one request: ``(status, JSON bytes, statistics of this worker)``.

        ``MemoryError`` is left to the caller (the worker pool answers it as over budget).
        """
        try:
            status, payload = 200, self.endpoints[kind](body)
        except ApiError as exc:
            status, payload = exc.status, _error_payload(exc)
        except MemoryError:
            raise
        except Exception as exc:  # never take the service down
            status, payload = 500, {"error": shorten(f"internal error: {type(exc).__name__}: {exc}")}
        return status, _json_bytes(payload), {"cache": self.cache.info(), "rss": rss_bytes()}

    def compile(self, data: dict) -> "_rule.Rule":
        source = data["rule"]
        if not isinstance(source, (dict, str)):
            raise ApiError(
                422, "invalid rule",
                diagnostics=[{"path": "rule", "message": f"a rule is a JSON object, not {json_type(source)}",
                              "column": None, "severity": "error"}],
            )
        try:
            return self.cache.get(source)
        except RuleError as exc:
            raise ApiError(422, "invalid rule", diagnostics=_diagnostics(exc.diagnostics)) from None

    # POST /api/testRule
    def test_rule(self, body: bytes) -> Any:
        data = json_object(body, ("rule", "answer"))
        rule = self.compile(data)
        answer = data["answer"]
        if not isinstance(answer, (list, str)):
            raise ApiError(400, f"'answer' must be an array of strings (the blanks), not {json_type(answer)}")
        blanks = list(answer)  # as the original: a string is indexed by character
        results: list = []
        try:
            score = rule.evaluate(blanks, results)
        except MemoryError:
            raise
        except Exception as exc:  # the answer cannot be scored: the original answered 500
            message = failure_message(rule.combo_ids, results, exc)
            budget = {"budget": exc.budget, "limit": exc.limit} if isinstance(exc, BudgetExceeded) else {}
            raise ApiError(422, message, exception=type(exc).__name__, **budget) from None
        debug = dict(zip(rule.combo_ids, results))
        return {"score": _finite(score), "debugInfo": _finite(debug)}

    # POST /v1/score
    def score(self, body: bytes) -> Any:
        data = json_object(body, ("rule", "answers"))
        rule = self.compile(data)
        answers = data["answers"]
        if not isinstance(answers, list):
            raise ApiError(400, f"'answers' must be an array of answers, not {json_type(answers)}")
        batch = rule.score_many(answers)  # a malformed answer is that answer's error
        return {
            "scores": _floats(batch.scores),
            "combos": {cid: _floats(values) for cid, values in batch.combos.items()},
            "errors": [None if e is None else shorten(e) for e in batch.errors],
            "warnings": _diagnostics(rule.warnings),
        }

    # POST /v1/check
    def check(self, body: bytes) -> Any:
        data = json_object(body, ("rule",))
        try:
            rule = self.compile(data)
        except ApiError as exc:
            if exc.status != 422:
                raise
            return {"valid": False, "diagnostics": exc.extra["diagnostics"], "combos": []}
        return {"valid": True, "diagnostics": _diagnostics(rule.warnings), "combos": list(rule.combo_ids)}

    # POST /v1/explain
    def explain(self, body: bytes) -> Any:
        data = json_object(body, ("rule", "answer"))
        rule = self.compile(data)
        blanks = _answer(data["answer"], "'answer'")
        outcome, calls = rule.trace(blanks)
        return _short_strings(_finite({
            "score": outcome.score,
            "error": outcome.error,
            "combos": dict(outcome.combos),
            "calls": [
                {
                    "combo": c.combo, "op": c.op, "atom": c.atom, "kind": _kind(rule, c.atom),
                    "text": c.text, "hit": bool(c.hit), "value": c.value, "evidence": _evidence(rule, c),
                }
                for c in calls[:MAX_CALLS]
            ],
            "callsOmitted": max(0, len(calls) - MAX_CALLS),
            "warnings": _diagnostics(rule.warnings),
        }))


def handler(cache_size: int = DEFAULT_CACHE_SIZE, cache_bytes: int | None = DEFAULT_CACHE_BYTES,
            limits: Limits = DEFAULT_LIMITS) -> Callable:
    """A worker's request handler, :meth:`Service.handle` (the factory of the worker pool);
    rules are compiled with ``limits``."""
    return Service(cache_size, cache_bytes, limits).handle


def _kind(rule: "_rule.Rule", atom_id: str) -> str | None:
    atom = rule.atoms.get(str(atom_id))
    return getattr(atom, "kind", None)


def _evidence(rule: "_rule.Rule", call: Any) -> Any:
    """Why the atom hit or missed (see :mod:`coscore.explain`), or ``None`` if unavailable."""
    try:
        from .explain import atom_evidence

        atom = rule.atoms[str(call.atom)]
        if type(call.text) is not str:
            return None
        return dataclasses.asdict(atom_evidence(atom, call.text))
    except Exception:  # evidence is a bonus: never fail the request for it
        return None


# -- ASGI --------------------------------------------------------------------------------


async def read_body(request: Request, limit: int, timeout: float | None = None) -> bytes:
    """The whole body, refusing (413) one over ``limit`` bytes without reading it all,
    and (408) one still arriving after ``timeout`` seconds."""
    declared = request.headers.get("content-length")
    if declared is not None:
        try:
            length = int(declared)
        except ValueError:
            raise ApiError(400, "invalid Content-Length") from None
        if length > limit:
            raise ApiError(413, f"the request body is {length} bytes; the limit is {limit}",
                           budget="body", limit=limit)
    chunks: list[bytes] = []

    async def receive() -> None:
        size = 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise ApiError(413, f"the request body is over the limit of {limit} bytes", budget="body", limit=limit)
            chunks.append(chunk)

    try:
        await asyncio.wait_for(receive(), timeout)
    except ClientDisconnect:
        raise ApiError(400, "the client disconnected while sending the body") from None
    except asyncio.TimeoutError:
        raise ApiError(408, f"the request body took longer than {timeout:g} s to arrive",
                       budget="body_timeout", limit=timeout) from None
    return b"".join(chunks)


_BUDGET_STATUS = {"time": 503, "workers": 503, "memory": 422}


def _endpoint(pool: WorkerPool, kind: str, max_body: int, body_timeout: float | None
              ) -> Callable[[Request], Awaitable[Response]]:
    async def endpoint(request: Request) -> Response:
        try:
            body = await read_body(request, max_body, body_timeout)
            status, payload = await pool.run(kind, body)
        except ApiError as exc:
            return _error_response(exc)
        except OverBudget as exc:
            headers = {"Retry-After": "1"} if exc.budget == "workers" else None
            return json_response({"error": exc.message, "budget": exc.budget, "limit": exc.limit},
                                 _BUDGET_STATUS[exc.budget], headers)
        except WorkerStopped as exc:
            return json_response({"error": str(exc)}, 500)
        return Response(payload, status, media_type="application/json")

    return endpoint


def _health(pool: WorkerPool, started: float) -> dict:
    """Liveness, the pool and the workers' caches, from what the workers last reported."""
    info = pool.info()
    caches = [stats["cache"] for stats in info.pop("stats") if stats]
    cache = {name: sum(c[name] for c in caches) for name in ("size", "bytes", "hits", "misses")}
    cache["maxsize"], cache["maxbytes"] = pool.args[:2]
    return {"status": "ok", "version": __version__, "uptime": round(time.time() - started, 3),
            "cache": cache, "workers": info}


def create_app(max_body: int = DEFAULT_MAX_BODY, cache_size: int = DEFAULT_CACHE_SIZE,
               cors_origins: list[str] | None = None, *, workers: int = DEFAULT_WORKERS,
               timeout: float = DEFAULT_TIMEOUT, memory: int | None = DEFAULT_MEMORY,
               cache_bytes: int | None = DEFAULT_CACHE_BYTES,
               body_timeout: float | None = DEFAULT_BODY_TIMEOUT, limits: Limits = DEFAULT_LIMITS) -> Starlette:
    """The ASGI application; it starts its worker processes at once.

    ``max_body`` is the largest request body accepted (bytes), ``cache_size`` and
    ``cache_bytes`` how many compiled rules each worker keeps and how many bytes they
    may take, ``cors_origins`` the browser origins allowed to call the service from
    another site (``["*"]`` for any; default none). ``workers`` worker processes score
    at once; a request gets ``timeout`` seconds of a worker's time and each worker may
    grow by ``memory`` bytes (``None``: unbounded); ``body_timeout`` seconds is the most
    a client may take to send a body (``None``: no limit). ``limits`` are the budgets
    rules are compiled with (:class:`coscore.Limits`: each answer's and each rule's).
    ``/healthz`` is answered by the event loop itself and never waits for a worker.
    """
    if max_body < 0:
        raise ValueError("max_body must be >= 0")
    if cache_size < 0 or (cache_bytes is not None and cache_bytes < 0):
        raise ValueError("cache_size and cache_bytes must be >= 0")
    if body_timeout is not None and body_timeout <= 0:
        raise ValueError("body_timeout must be > 0 (or None)")
    pool = WorkerPool(handler, (cache_size, cache_bytes, limits), size=workers, timeout=timeout, memory=memory)
    started = time.time()

    async def health(request: Request) -> Response:
        return json_response(_health(pool, started))

    async def openapi(request: Request) -> Response:
        return json_response(OPENAPI)

    async def http_error(request: Request, exc: Exception) -> Response:
        status = getattr(exc, "status_code", 500)
        detail = getattr(exc, "detail", None) or "error"
        return json_response({"error": detail}, status, getattr(exc, "headers", None))

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette):
        try:
            yield
        finally:
            pool.close()

    routes = [
        Route(path, _endpoint(pool, kind, max_body, body_timeout), methods=["POST"])
        for path, kind in (("/api/testRule", "testRule"), ("/v1/score", "score"), ("/v1/check", "check"),
                           ("/v1/explain", "explain"))
    ] + [
        Route("/healthz", health, methods=["GET"]),
        Route("/openapi.json", openapi, methods=["GET"]),
    ]
    middleware = []
    if cors_origins:
        from starlette.middleware import Middleware
        from starlette.middleware.cors import CORSMiddleware

        middleware.append(Middleware(CORSMiddleware, allow_origins=list(cors_origins),
                                     allow_methods=["GET", "POST"], allow_headers=["Content-Type"]))
    app = Starlette(routes=routes, middleware=middleware, exception_handlers={HTTPException: http_error},
                    lifespan=lifespan)
    app.state.pool = pool
    app.state.max_body = max_body
    return app


# -- the command -------------------------------------------------------------------------

_SIZE = re.compile(r"^\s*(\d+)\s*([kmg]i?b?|b)?\s*$", re.IGNORECASE)


def parse_size(text: str) -> int:
    """``"16777216"``, ``"16M"``, ``"512k"``, ``"1GiB"`` → bytes."""
    match = _SIZE.match(text)
    if not match:
        raise argparse.ArgumentTypeError(f"not a size in bytes: {text!r} (e.g. 16777216, 16M, 512K)")
    number, unit = int(match.group(1)), (match.group(2) or "b").lower()
    return number * {"b": 1, "k": 2**10, "m": 2**20, "g": 2**30}[unit[0]]


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}")
    return port


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


def _positive(kind: type) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            value = 0
        if not value > 0 or not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"not a positive number: {text!r}")
        return value

    return parse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``coscore serve``."""
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1; "
                        "0.0.0.0 for every interface)")
    parser.add_argument("--port", type=_port, default=8000, help="port to listen on (default 8000)")
    parser.add_argument("--max-body", type=parse_size, default=DEFAULT_MAX_BODY, metavar="BYTES",
                        help="largest request body accepted, e.g. 16M (default 16 MiB); larger ones get 413")
    parser.add_argument("--cache-size", type=int, default=DEFAULT_CACHE_SIZE, metavar="N",
                        help=f"compiled rules each worker keeps (default {DEFAULT_CACHE_SIZE})")
    parser.add_argument("--cache-bytes", type=parse_size, default=DEFAULT_CACHE_BYTES, metavar="BYTES",
                        help="memory the compiled rules each worker keeps may take (default 256M)")
    parser.add_argument("--workers", type=_positive(int), default=DEFAULT_WORKERS, metavar="N",
                        help=f"worker processes scoring at once (default: one per core, 2 to 8; here {DEFAULT_WORKERS})")
    parser.add_argument("--timeout", type=_positive(float), default=DEFAULT_TIMEOUT, metavar="SECONDS",
                        help=f"wall-time budget of one request; past it the worker is killed and the request "
                        f"answered 503 (default {DEFAULT_TIMEOUT:g})")
    parser.add_argument("--memory", type=parse_size, default=DEFAULT_MEMORY, metavar="BYTES",
                        help="memory a worker may grow by; a request needing more is answered 422 "
                        "(default 1G; 0 for no limit)")
    parser.add_argument("--body-timeout", type=_positive(float), default=DEFAULT_BODY_TIMEOUT, metavar="SECONDS",
                        help=f"time a client may take to send a request body, else 408 (default {DEFAULT_BODY_TIMEOUT:g})")
    parser.add_argument("--cors-origin", action="append", metavar="ORIGIN", dest="cors_origins",
                        help="allow browser pages from ORIGIN (e.g. http://localhost:5000, or '*') to call "
                        "the service; repeatable")
    add_limit_arguments(parser)
    parser.add_argument("--log-level", default="info",
                        choices=["critical", "error", "warning", "info", "debug", "trace"],
                        help="uvicorn log level (default info)")


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted; return the exit status."""
    import uvicorn

    if args.cache_size < 0:
        raise SystemExit("coscore serve: --cache-size must be >= 0")
    problem = address_problem(args.host, args.port)
    if problem is not None:
        raise SystemExit(f"coscore serve: {problem}")
    app = create_app(max_body=args.max_body, cache_size=args.cache_size, cors_origins=args.cors_origins,
                     workers=args.workers, timeout=args.timeout, memory=args.memory or None,
                     cache_bytes=args.cache_bytes, body_timeout=args.body_timeout,
                     limits=limits_from_arguments(args))
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level)
    return 0


# -- OpenAPI -----------------------------------------------------------------------------


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def _json_body(schema: dict) -> dict:
    return {"required": True, "content": {"application/json": {"schema": schema}}}


def _ok(description: str, schema: dict) -> dict:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _post(operation_id: str, summary: str, body: dict, responses: dict) -> dict:
    """A POST operation whose request is a JSON object of ``body``'s properties, all required."""
    return {"post": {
        "summary": summary,
        "operationId": operation_id,
        "requestBody": _json_body({"type": "object", "required": list(body), "properties": body}),
        "responses": responses,
    }}


def _get(operation_id: str, summary: str, responses: dict) -> dict:
    return {"get": {"summary": summary, "operationId": operation_id, "responses": responses}}


_ERRORS = {
    "400": _ok("malformed JSON or request", _ref("Error")),
    "408": _ok("the request body took longer than the body timeout to arrive", _ref("BudgetError")),
    "413": _ok("request body over the limit", _ref("BudgetError")),
    "422": _ok("invalid rule (with its diagnostics), or the request needed more than a worker's memory "
               "budget", {"oneOf": [_ref("RuleErrors"), _ref("BudgetError")]}),
    "503": _ok("the request ran past its wall-time budget (budget time), or every worker stayed busy "
               "(budget workers)", _ref("BudgetError")),
}
_NUM = {"type": "number", "nullable": True}
#: the request of the endpoints that take one answer
_ONE_ANSWER = {"rule": _ref("Rule"), "answer": _ref("Answer")}

OPENAPI: dict = {
    "openapi": "3.0.3",
    "info": {
        "title": "coscore",
        "version": __version__,
        "description": "Score students' short answers with CoScore rules. Numbers JSON cannot hold "
        "(NaN, ±inf) are null.",
    },
    "paths": {
        "/api/testRule": _post("testRule", "The original CoScore backend's rule test: score one answer",
                               _ONE_ANSWER, {
            "200": _ok("the score and each combo's value, with the original's number types", {
                "type": "object", "properties": {
                    "score": {"type": "number"},
                    "debugInfo": {"type": "object", "additionalProperties": _NUM}}}),
            **_ERRORS,
            "422": _ok("invalid rule (diagnostics), the answer cannot be scored (exception: the "
                       "original engine's exception class, e.g. ZeroDivisionError), or over the memory budget",
                       {"oneOf": [_ref("RuleErrors"), _ref("ScoringError"), _ref("BudgetError")]}),
        }),
        "/v1/score": _post("score", "Score many answers with one rule", {
            "rule": _ref("Rule"), "answers": {"type": "array", "items": _ref("Answer")}}, {
            "200": _ok("results aligned with the answers; a failed answer has a null score and its "
                       "message in errors", {"type": "object", "properties": {
                           "scores": {"type": "array", "items": _NUM},
                           "combos": {"type": "object", "additionalProperties": {
                               "type": "array", "items": _NUM}},
                           "errors": {"type": "array", "items": {"type": "string", "nullable": True}},
                           "warnings": {"type": "array", "items": _ref("Diagnostic")}}}),
            **_ERRORS,
        }),
        "/v1/check": _post("check", "Check a rule: its errors and warnings", {"rule": _ref("Rule")}, {
            "200": _ok("valid is false when the rule has errors", {"type": "object", "properties": {
                "valid": {"type": "boolean"},
                "diagnostics": {"type": "array", "items": _ref("Diagnostic")},
                "combos": {"type": "array", "items": {"type": "string"}}}}),
            **{code: _ERRORS[code] for code in ("400", "408", "413", "503")},
            "422": _ok("over the memory budget", _ref("BudgetError")),
        }),
        "/v1/explain": _post("explain", "Score one answer and show every atom call with its evidence",
                             _ONE_ANSWER, {
            "200": _ok("the outcome and the atom calls in evaluation order", {
                "type": "object", "properties": {
                    "score": _NUM,
                    "error": {"type": "string", "nullable": True},
                    "combos": {"type": "object", "additionalProperties": _NUM},
                    "calls": {"type": "array", "items": {"type": "object", "properties": {
                        "combo": {"type": "string"}, "op": {"type": "string", "enum": ["G", "M"]},
                        "atom": {"type": "string"}, "kind": {"type": "string"},
                        "text": {"type": "string"}, "hit": {"type": "boolean"}, "value": _NUM,
                        "evidence": {"type": "object", "nullable": True}}}},
                    "callsOmitted": {"type": "integer", "description": f"calls after the first {MAX_CALLS}"},
                    "warnings": {"type": "array", "items": _ref("Diagnostic")}}}),
            **_ERRORS,
        }),
        "/healthz": _get("health", "Liveness, worker and cache statistics (never waits for a worker)", {
            "200": _ok("the service is up", {"type": "object", "properties": {
                "status": {"type": "string"}, "version": {"type": "string"},
                "uptime": {"type": "number"}, "cache": {"type": "object"}, "workers": {"type": "object"}}})}),
        "/openapi.json": _get("openapi", "This description", {"200": {"description": "the OpenAPI document"}}),
    },
    "components": {"schemas": {
        "Rule": {
            "type": "object", "description": "A CoScore rule (also accepted as JSON text)",
            "required": ["atoms", "combos", "comboMode"],
            "properties": {
                "atoms": {"type": "object", "additionalProperties": {"type": "object", "properties": {
                    "type": {"type": "string", "enum": ["EM", "SM", "OP", "CS"]}, "desc": {"type": "string"}}}},
                "combos": {"type": "object", "additionalProperties": {"type": "object", "properties": {
                    "combo": {"type": "string"}, "score": {"type": "number"},
                    "mode": {"type": "string", "enum": ["logic", "value"]}}}},
                "comboMode": {"type": "string", "enum": ["ADD", "MAX"]},
                "dialect": {"type": "string", "enum": ["coscore", "manual"]},
            },
        },
        "Answer": {"description": "the blanks of one answer (one string for a one-blank answer)",
                   "oneOf": [{"type": "array", "items": {"type": "string"}}, {"type": "string"}]},
        "Diagnostic": {"type": "object", "properties": {
            "path": {"type": "string", "example": "combos.A.combo"}, "message": {"type": "string"},
            "column": {"type": "integer", "nullable": True},
            "severity": {"type": "string", "enum": ["error", "warning"]}}},
        "Error": {"type": "object", "properties": {"error": {"type": "string"}}},
        "BudgetError": {"type": "object", "properties": {
            "error": {"type": "string"},
            "budget": {"type": "string", "enum": ["time", "memory", "workers", "body", "body_timeout"]},
            "limit": {"type": "number", "description": "the budget: seconds, bytes, or workers"}}},
        "RuleErrors": {"type": "object", "properties": {
            "error": {"type": "string", "example": "invalid rule"},
            "diagnostics": {"type": "array", "items": _ref("Diagnostic")}}},
        "ScoringError": {"type": "object", "properties": {
            "error": {"type": "string", "example": "combos.B: division by zero"},
            "exception": {"type": "string", "example": "ZeroDivisionError"}}},
    }},
}
