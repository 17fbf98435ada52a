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
streams in, never read whole). Compiled rules are kept in a bounded LRU keyed by the
rule's content; parsing, compiling and scoring run in worker threads, off the event loop.
Numbers that JSON cannot hold (NaN, ±inf) are sent as ``null``.

Run it with ``coscore serve`` or embed :func:`create_app` in any ASGI server.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import math
import re
import time
from typing import Any, Awaitable, Callable

from . import __version__
from . import rule as _rule
from .compat import RuleCache
from .diagnostics import RuleError, json_type
from .results import failure_message

try:  # the service is an extra: pip install 'coscore[serve]'
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.exceptions import HTTPException
    from starlette.requests import ClientDisconnect, Request
    from starlette.responses import Response
    from starlette.routing import Route
except ImportError as exc:  # pragma: no cover - depends on the installation
    raise ImportError(f"coscore serve needs starlette and uvicorn ({exc.name} is missing)") from exc

DEFAULT_MAX_BODY = 16 * 2**20
DEFAULT_CACHE_SIZE = 256

__all__ = ["create_app", "add_arguments", "run", "OPENAPI", "DEFAULT_MAX_BODY"]


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


def json_response(payload: Any, status: int = 200, headers: dict | None = None) -> Response:
    body = json.dumps(payload, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return Response(body.encode("utf-8"), status, headers=headers, media_type="application/json")


def _error_response(exc: ApiError) -> Response:
    payload = {"error": exc.message, **exc.extra}
    headers = {"Connection": "close"} if exc.status == 413 else None
    return json_response(_finite(payload), exc.status, headers)


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


def _object(body: bytes, required: tuple[str, ...]) -> dict:
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
    return [d.to_dict() for d in items]


# -- the service -------------------------------------------------------------------------


class Service:
    """The endpoint logic, synchronous (it runs in worker threads)."""

    def __init__(self, cache_size: int = DEFAULT_CACHE_SIZE):
        self.cache = RuleCache(cache_size)
        self.started = time.time()

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
        data = _object(body, ("rule", "answer"))
        rule = self.compile(data)
        answer = data["answer"]
        if not isinstance(answer, (list, str)):
            raise ApiError(400, f"'answer' must be an array of strings (the blanks), not {json_type(answer)}")
        blanks = list(answer)  # as the original: a string is indexed by character
        results: list = []
        try:
            score = rule.evaluate(blanks, results)
        except Exception as exc:  # the answer cannot be scored: the original answered 500
            message = failure_message(rule.combo_ids, results, exc)
            raise ApiError(422, message, exception=type(exc).__name__) from None
        debug = dict(zip(rule.combo_ids, results))
        return {"score": _finite(score), "debugInfo": _finite(debug)}

    # POST /v1/score
    def score(self, body: bytes) -> Any:
        data = _object(body, ("rule", "answers"))
        rule = self.compile(data)
        answers = data["answers"]
        if not isinstance(answers, list):
            raise ApiError(400, f"'answers' must be an array of answers, not {json_type(answers)}")
        batch = rule.score_many(answers)  # a malformed answer is that answer's error
        return {
            "scores": _floats(batch.scores),
            "combos": {cid: _floats(values) for cid, values in batch.combos.items()},
            "errors": list(batch.errors),
            "warnings": _diagnostics(rule.warnings),
        }

    # POST /v1/check
    def check(self, body: bytes) -> Any:
        data = _object(body, ("rule",))
        try:
            rule = self.compile(data)
        except ApiError as exc:
            if exc.status != 422:
                raise
            return {"valid": False, "diagnostics": exc.extra["diagnostics"], "combos": []}
        return {"valid": True, "diagnostics": _diagnostics(rule.warnings), "combos": list(rule.combo_ids)}

    # POST /v1/explain
    def explain(self, body: bytes) -> Any:
        data = _object(body, ("rule", "answer"))
        rule = self.compile(data)
        blanks = _answer(data["answer"], "'answer'")
        outcome, calls = rule.trace(blanks)
        return _finite({
            "score": outcome.score,
            "error": outcome.error,
            "combos": dict(outcome.combos),
            "calls": [
                {
                    "combo": c.combo, "op": c.op, "atom": c.atom, "kind": _kind(rule, c.atom),
                    "text": c.text, "hit": bool(c.hit), "value": c.value, "evidence": _evidence(rule, c),
                }
                for c in calls
            ],
            "warnings": _diagnostics(rule.warnings),
        })

    def health(self) -> Any:
        return {"status": "ok", "version": __version__, "uptime": round(time.time() - self.started, 3),
                "cache": self.cache.info()}


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


async def read_body(request: Request, limit: int) -> bytes:
    """The whole body, refusing (413) one over ``limit`` bytes without reading it all."""
    declared = request.headers.get("content-length")
    if declared is not None:
        try:
            length = int(declared)
        except ValueError:
            raise ApiError(400, "invalid Content-Length") from None
        if length > limit:
            raise ApiError(413, f"the request body is {length} bytes; the limit is {limit}", limit=limit)
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise ApiError(413, f"the request body is over the limit of {limit} bytes", limit=limit)
            chunks.append(chunk)
    except ClientDisconnect:
        raise ApiError(400, "the client disconnected while sending the body") from None
    return b"".join(chunks)


def _endpoint(handler: Callable[[bytes], Any], max_body: int) -> Callable[[Request], Awaitable[Response]]:
    async def endpoint(request: Request) -> Response:
        try:
            body = await read_body(request, max_body)
            payload = await run_in_threadpool(handler, body)
        except ApiError as exc:
            return _error_response(exc)
        except Exception as exc:  # never take the service down
            return json_response({"error": f"internal error: {type(exc).__name__}: {exc}"}, 500)
        return json_response(payload)

    return endpoint


def create_app(max_body: int = DEFAULT_MAX_BODY, cache_size: int = DEFAULT_CACHE_SIZE,
               cors_origins: list[str] | None = None) -> Starlette:
    """The ASGI application.

    ``max_body`` is the largest request body accepted (bytes), ``cache_size`` how many
    compiled rules are kept, ``cors_origins`` the browser origins allowed to call the
    service from another site (``["*"]`` for any; default none).
    """
    if max_body < 0:
        raise ValueError("max_body must be >= 0")
    service = Service(cache_size)

    async def health(request: Request) -> Response:
        return json_response(service.health())

    async def openapi(request: Request) -> Response:
        return json_response(OPENAPI)

    async def http_error(request: Request, exc: Exception) -> Response:
        status = getattr(exc, "status_code", 500)
        detail = getattr(exc, "detail", None) or "error"
        return json_response({"error": detail}, status, getattr(exc, "headers", None))

    routes = [
        Route("/api/testRule", _endpoint(service.test_rule, max_body), methods=["POST"]),
        Route("/v1/score", _endpoint(service.score, max_body), methods=["POST"]),
        Route("/v1/check", _endpoint(service.check, max_body), methods=["POST"]),
        Route("/v1/explain", _endpoint(service.explain, max_body), methods=["POST"]),
        Route("/healthz", health, methods=["GET"]),
        Route("/openapi.json", openapi, methods=["GET"]),
    ]
    middleware = []
    if cors_origins:
        from starlette.middleware import Middleware
        from starlette.middleware.cors import CORSMiddleware

        middleware.append(Middleware(CORSMiddleware, allow_origins=list(cors_origins),
                                     allow_methods=["GET", "POST"], allow_headers=["Content-Type"]))
    app = Starlette(routes=routes, middleware=middleware, exception_handlers={HTTPException: http_error})
    app.state.service = service
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


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``coscore serve``."""
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1; "
                        "0.0.0.0 for every interface)")
    parser.add_argument("--port", type=_port, default=8000, help="port to listen on (default 8000)")
    parser.add_argument("--max-body", type=parse_size, default=DEFAULT_MAX_BODY, metavar="BYTES",
                        help="largest request body accepted, e.g. 16M (default 16 MiB); larger ones get 413")
    parser.add_argument("--cache-size", type=int, default=DEFAULT_CACHE_SIZE, metavar="N",
                        help=f"compiled rules kept in memory (default {DEFAULT_CACHE_SIZE})")
    parser.add_argument("--cors-origin", action="append", metavar="ORIGIN", dest="cors_origins",
                        help="allow browser pages from ORIGIN (e.g. http://localhost:5000, or '*') to call "
                        "the service; repeatable")
    parser.add_argument("--log-level", default="info",
                        choices=["critical", "error", "warning", "info", "debug", "trace"],
                        help="uvicorn log level (default info)")


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted; return the exit status."""
    import uvicorn

    if args.cache_size < 0:
        raise SystemExit("coscore serve: --cache-size must be >= 0")
    app = create_app(max_body=args.max_body, cache_size=args.cache_size, cors_origins=args.cors_origins)
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level)
    return 0


# -- OpenAPI -----------------------------------------------------------------------------


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def _json_body(schema: dict) -> dict:
    return {"required": True, "content": {"application/json": {"schema": schema}}}


def _ok(description: str, schema: dict) -> dict:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


_ERRORS = {
    "400": _ok("malformed JSON or request", _ref("Error")),
    "413": _ok("request body over the limit", _ref("Error")),
    "422": _ok("invalid rule (with its diagnostics)", _ref("RuleErrors")),
}
_NUM = {"type": "number", "nullable": True}

OPENAPI: dict = {
    "openapi": "3.0.3",
    "info": {
        "title": "coscore",
        "version": __version__,
        "description": "Score students' short answers with CoScore rules. Numbers JSON cannot hold "
        "(NaN, ±inf) are null.",
    },
    "paths": {
        "/api/testRule": {"post": {
            "summary": "The original CoScore backend's rule test: score one answer",
            "operationId": "testRule",
            "requestBody": _json_body({"type": "object", "required": ["rule", "answer"], "properties": {
                "rule": _ref("Rule"), "answer": _ref("Answer")}}),
            "responses": {
                "200": _ok("the score and each combo's value, with the original's number types", {
                    "type": "object", "properties": {
                        "score": {"type": "number"},
                        "debugInfo": {"type": "object", "additionalProperties": _NUM}}}),
                "400": _ERRORS["400"], "413": _ERRORS["413"],
                "422": _ok("invalid rule (diagnostics), or the answer cannot be scored (exception: the "
                           "original engine's exception class, e.g. ZeroDivisionError)",
                           {"oneOf": [_ref("RuleErrors"), _ref("ScoringError")]}),
            },
        }},
        "/v1/score": {"post": {
            "summary": "Score many answers with one rule",
            "operationId": "score",
            "requestBody": _json_body({"type": "object", "required": ["rule", "answers"], "properties": {
                "rule": _ref("Rule"), "answers": {"type": "array", "items": _ref("Answer")}}}),
            "responses": {
                "200": _ok("results aligned with the answers; a failed answer has a null score and its "
                           "message in errors", {"type": "object", "properties": {
                               "scores": {"type": "array", "items": _NUM},
                               "combos": {"type": "object", "additionalProperties": {
                                   "type": "array", "items": _NUM}},
                               "errors": {"type": "array", "items": {"type": "string", "nullable": True}},
                               "warnings": {"type": "array", "items": _ref("Diagnostic")}}}),
                **_ERRORS,
            },
        }},
        "/v1/check": {"post": {
            "summary": "Check a rule: its errors and warnings",
            "operationId": "check",
            "requestBody": _json_body({"type": "object", "required": ["rule"], "properties": {
                "rule": _ref("Rule")}}),
            "responses": {
                "200": _ok("valid is false when the rule has errors", {"type": "object", "properties": {
                    "valid": {"type": "boolean"},
                    "diagnostics": {"type": "array", "items": _ref("Diagnostic")},
                    "combos": {"type": "array", "items": {"type": "string"}}}}),
                "400": _ERRORS["400"], "413": _ERRORS["413"],
            },
        }},
        "/v1/explain": {"post": {
            "summary": "Score one answer and show every atom call with its evidence",
            "operationId": "explain",
            "requestBody": _json_body({"type": "object", "required": ["rule", "answer"], "properties": {
                "rule": _ref("Rule"), "answer": _ref("Answer")}}),
            "responses": {
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
                        "warnings": {"type": "array", "items": _ref("Diagnostic")}}}),
                **_ERRORS,
            },
        }},
        "/healthz": {"get": {
            "summary": "Liveness and cache statistics",
            "operationId": "health",
            "responses": {"200": _ok("the service is up", {"type": "object", "properties": {
                "status": {"type": "string"}, "version": {"type": "string"},
                "uptime": {"type": "number"}, "cache": {"type": "object"}}})},
        }},
        "/openapi.json": {"get": {
            "summary": "This description",
            "operationId": "openapi",
            "responses": {"200": {"description": "the OpenAPI document"}},
        }},
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
        "RuleErrors": {"type": "object", "properties": {
            "error": {"type": "string", "example": "invalid rule"},
            "diagnostics": {"type": "array", "items": _ref("Diagnostic")}}},
        "ScoringError": {"type": "object", "properties": {
            "error": {"type": "string", "example": "combos.B: division by zero"},
            "exception": {"type": "string", "example": "ZeroDivisionError"}}},
    }},
}
