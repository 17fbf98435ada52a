"""What the web app's worker processes do: compile rules and test them.

One :class:`AppWork` runs in each worker of the app's pool (:class:`coscore.http.pool.WorkerPool`),
keeping compiled rules by content, so a rule that ``saveRule`` compiled is not compiled
again by ``createTask`` on the same worker. Jobs:

- ``"testRule"``, the request body → the original ``/api/testRule`` answer (JSON bytes);
- ``"compile"``, ``(rule text, what)`` → ``None``, or the 422 error naming every problem;
- ``"workbench.*"``: the rule workbench's jobs (:mod:`.workbench.jobs`).
"""
from __future__ import annotations

from typing import Any, Callable

from ..diagnostics import RuleError
from ..http.responses import ApiError, answer, json_bytes
from ..http.rules import DEFAULT_CACHE_BYTES, DEFAULT_CACHE_SIZE, Compiler, test_rule
from ..limits import DEFAULT_LIMITS, Limits
from .workbench.jobs import workbench_jobs

__all__ = ["AppWork", "handler"]


class AppWork:
    """The web app's jobs, synchronous (one instance per worker process)."""

    def __init__(self, cache_size: int = DEFAULT_CACHE_SIZE, cache_bytes: int | None = DEFAULT_CACHE_BYTES,
                 limits: Limits = DEFAULT_LIMITS):
        self.compiler = Compiler(cache_size, cache_bytes, limits)
        self.jobs: dict[str, Callable[[Any], Any]] = {"testRule": self.test_rule, "compile": self.compile}
        self.jobs.update(workbench_jobs(self.compiler))  # the workbench's check, explain and dataset jobs

    def handle(self, kind: str, payload: Any) -> tuple[int, Any, dict]:
        """Run one job: ``(status, reply, statistics of this worker)``."""
        status, reply = answer(self.jobs[kind], payload)
        if kind == "testRule":
            reply = json_bytes(reply)
        return status, reply, self.compiler.stats()

    def test_rule(self, body: bytes) -> Any:
        """The original ``/api/testRule`` (see :func:`coscore.http.rules.test_rule`)."""
        return test_rule(self.compiler, body)

    def compile(self, payload: tuple[str, str]) -> None:
        """Compile a stored rule's text; 422 naming every problem when it does not compile."""
        text, what = payload
        try:
            self.compiler.get(text)
        except RuleError as exc:
            raise ApiError(422, f"{what} does not compile: {exc}",
                           diagnostics=[d.to_dict() for d in exc.diagnostics]) from None


def handler(cache_size: int = DEFAULT_CACHE_SIZE, cache_bytes: int | None = DEFAULT_CACHE_BYTES,
            limits: Limits = DEFAULT_LIMITS) -> Callable:
    """A worker's job handler, :meth:`AppWork.handle` (the factory of the app's pool)."""
    return AppWork(cache_size, cache_bytes, limits).handle
