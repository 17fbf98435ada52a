"""``coscore serve``: the original CoScore HTTP API, plus a batch scoring service.

Endpoints (all JSON; see ``GET /openapi.json``):

- ``POST /api/testRule`` ``{"rule": {...}, "answer": [...]}`` → ``{"score", "debugInfo"}``,
  exactly what the original CoScore backend answered (without ``calMemory``).
- ``POST /v1/score`` ``{"rule": {...}, "answers": [[...], ...]}`` →
  ``{"scores": [...], "combos": {"A": [...]}, "errors": [...], "warnings": [...]}``.
- ``POST /v1/check`` ``{"rule": {...}}`` → ``{"valid", "diagnostics", "combos"}``.
- ``POST /v1/explain`` ``{"rule": {...}, "answer": [...]}`` → every atom call and its evidence.
- ``POST /v1/exam/score`` ``{"exam": {...}, "papers": [{"q1": [...], ...}, ...]}`` → each
  paper's per-item results and weighted ``total`` (:mod:`.exams`; rules inline, at most
  100 items, ``timeout`` seconds per item).
- ``GET /healthz``; ``GET /openapi.json``.

Malformed JSON or a malformed request gives 400, an invalid rule 422 with its
diagnostics, a body over the limit 413 (refused from its ``Content-Length`` or while it
streams in, never read whole), a body still arriving after ``body_timeout`` seconds 408.
Parsing, compiling and scoring run in a bounded pool of worker processes
(:mod:`coscore.http.pool`), off the event loop: a request past its wall-time budget is
answered 503 and its worker killed and replaced, one past the memory budget 422; both
name the budget (``{"error": ..., "budget": "time", "limit": 5}``). Each worker keeps its
compiled rules in an LRU keyed by the rule's content and bounded in count and bytes.
Messages are at most 1,000 characters (:func:`coscore.diagnostics.shorten`). Numbers
that JSON cannot hold (NaN, ±inf) are sent as ``null``.

The package holds the endpoints run in the workers (:mod:`.endpoints`, the exam's in
:mod:`.exams`), the ASGI app (:mod:`.app`), the OpenAPI document (:mod:`.openapi`); its
command is :mod:`coscore.cli.serve`; what it shares with ``coscore app`` is
:mod:`coscore.http`. Run it with ``coscore serve`` or embed :func:`create_app` in any ASGI server
(``uvicorn --factory coscore.server:create_app``; see docs/deployment.md).
"""
from __future__ import annotations

from ..http.options import parse_size
from ..http.rules import DEFAULT_CACHE_BYTES, DEFAULT_CACHE_SIZE
from ..http.settings import ServerSettings
from .app import (
                  DEFAULT_BODY_TIMEOUT,
                  DEFAULT_MAX_BODY,
                  DEFAULT_MEMORY,
                  DEFAULT_SETTINGS,
                  DEFAULT_TIMEOUT,
                  DEFAULT_WORKERS,
                  create_app,
)
from .endpoints import MAX_CALLS, Service, handler
from .openapi import OPENAPI

__all__ = [
           "DEFAULT_BODY_TIMEOUT",
           "DEFAULT_CACHE_BYTES",
           "DEFAULT_CACHE_SIZE",
           "DEFAULT_MAX_BODY",
           "DEFAULT_MEMORY",
           "DEFAULT_TIMEOUT",
           "DEFAULT_WORKERS",
           "MAX_CALLS",
           "OPENAPI",
           "DEFAULT_SETTINGS",
           "ServerSettings",
           "Service",
           "create_app",
           "handler",
           "parse_size",
]
