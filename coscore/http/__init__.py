"""The HTTP layer ``coscore serve`` and ``coscore app`` share.

- :mod:`.responses`: JSON answers, :class:`ApiError` → ``{"error": ..., ...}``, budgets → statuses;
- :mod:`.bodies`: bodies read under a size cap, a time limit and caps on bytes in flight
  (received, not declared; the server's and each client's), spooled to disk past 1 MiB,
  counted against a JSON budget as they arrive (:mod:`.jsonscan`); JSON parsing that
  names what is wrong;
- :mod:`.clients`: who a request comes from (:func:`~.clients.client_of`) and how many
  requests one client may have open; :mod:`.admission`: those budgets in one value;
- :mod:`.pool` and :mod:`.worker`: the worker processes every compile and score runs in,
  under a wall-time and a memory budget, requests first (fairly between clients) and
  tasks taking turns;
- :mod:`.rules`: what both servers' workers do with a rule (compile it, kept by content;
  the original ``/api/testRule``);
- :mod:`.app`: running jobs, Starlette's errors as JSON, start and stop, ``/healthz``;
- :mod:`.options`: sizes, ports, the address check and uvicorn;
- :mod:`.sqlite_db`: the SQLite database a server keeps its state in (a connection per
  thread, write transactions, a checkpoint at stop);
- :mod:`.settings`: :class:`~.settings.ServerSettings`, what a server is started with;
  :mod:`.proxy`: forwarded headers from trusted proxies and a path prefix.

The servers (:mod:`coscore.server`, :mod:`coscore.webapp`) import this and the public
API, never each other. It needs Starlette and uvicorn: ``pip install 'coscore[serve]'``.
"""
from __future__ import annotations

try:
    import starlette  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the installation
    raise ImportError(f"coscore's servers need starlette and uvicorn ({exc.name} is missing): "
                      "pip install 'coscore[serve]'") from exc

from .admission import Admission
from .bodies import Body, BodyLimits, InFlight, json_object, parse_json, read_body
from .clients import client_of
from .jsonscan import JsonBudget
from .pool import JobCancelled, OverBudget, WorkerPool, WorkerStopped
from .responses import ApiError, error_response, json_response

__all__ = ["Admission", "ApiError", "Body", "BodyLimits", "InFlight", "JobCancelled", "JsonBudget", "OverBudget",
           "WorkerPool", "WorkerStopped", "client_of", "error_response", "json_object", "json_response", "parse_json",
           "read_body"]
