"""The HTTP layer ``coscore serve`` and ``coscore app`` share.

- :mod:`.responses`: JSON answers, :class:`ApiError` → ``{"error": ..., ...}``, budgets → statuses;
- :mod:`.bodies`: bodies read under a size cap, a time limit and a cap on bytes in flight,
  spooled to disk past 1 MiB; JSON parsing that names what is wrong;
- :mod:`.pool` and :mod:`.worker`: the worker processes every compile and score runs in,
  under a wall-time and a memory budget, requests first and tasks taking turns;
- :mod:`.rules`: what both servers' workers do with a rule (compile it, kept by content;
  the original ``/api/testRule``);
- :mod:`.app`: running jobs, Starlette's errors as JSON, start and stop, ``/healthz``;
- :mod:`.options`: sizes, ports, the address check and uvicorn.

The servers (:mod:`coscore.server`, :mod:`coscore.webapp`) import this and the public
API, never each other. It needs Starlette and uvicorn: ``pip install 'coscore[serve]'``.
"""
from __future__ import annotations

try:
    import starlette  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the installation
    raise ImportError(f"coscore's servers need starlette and uvicorn ({exc.name} is missing): "
                      "pip install 'coscore[serve]'") from exc

from .bodies import Body, BodyLimits, InFlight, json_object, parse_json, read_body
from .pool import JobCancelled, OverBudget, WorkerPool, WorkerStopped
from .responses import ApiError, error_response, json_response

__all__ = ["ApiError", "Body", "BodyLimits", "InFlight", "JobCancelled", "OverBudget", "WorkerPool",
           "WorkerStopped", "error_response", "json_object", "json_response", "parse_json", "read_body"]
