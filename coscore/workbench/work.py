"""What the worker processes of ``coscore workbench`` do: the workbench's jobs
(:func:`.jobs.workbench_jobs`: check, explain, score a dataset) and those of its own store:

- ``"workbench.preview"``, ``(FileRequest, rule text or None)`` → :func:`.datasets.preview`;
- ``"workbench.import"``, ``(FileRequest, mapping, view path, rule text or None)`` →
  :func:`.datasets.import_file`;
- ``"workbench.exam"``, ``(exam path, rule files allowed, FileRequest or None, views
  folder, dataset key)`` → :func:`.exams.exam_items`.

A rule sent with a file is only there to say how many blanks it reads (the default blank
columns must fit it); one that does not compile says nothing.
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ..diagnostics import RuleError
from ..http.responses import answer
from ..http.rules import DEFAULT_CACHE_BYTES, DEFAULT_CACHE_SIZE, Compiler
from ..limits import DEFAULT_LIMITS, Limits
from .datasets import FileRequest, import_file, preview
from .exams import exam_items
from .jobs import workbench_jobs

__all__ = ["BenchWork", "handler"]


class BenchWork:
    """The jobs of one worker process (see the module's description)."""

    def __init__(self, cache_size: int = DEFAULT_CACHE_SIZE, cache_bytes: int | None = DEFAULT_CACHE_BYTES,
                 limits: Limits = DEFAULT_LIMITS):
        self.compiler = Compiler(cache_size, cache_bytes, limits)
        self.jobs: dict[str, Callable[[Any], Any]] = workbench_jobs(self.compiler)
        self.jobs.update({"workbench.preview": self.preview, "workbench.import": self.import_file,
                          "workbench.exam": functools.partial(_exam)})

    def _need(self, rule: Any) -> tuple[int, bool] | None:
        if rule is None:
            return None
        try:
            return tuple(self.compiler.get(rule).blank_need)  # type: ignore[return-value]
        except RuleError:
            return None

    def preview(self, payload: tuple[FileRequest, Any]) -> dict[str, Any]:
        request, rule = payload
        return preview(request, self._need(rule))

    def import_file(self, payload: tuple[FileRequest, Any, str, Any]) -> dict[str, Any]:
        request, mapping, view, rule = payload
        return import_file(request, mapping, view, self._need(rule))

    def handle(self, kind: str, payload: Any) -> tuple[int, Any, dict[str, Any]]:
        """Run one job: ``(status, reply, statistics of this worker)``."""
        status, reply = answer(self.jobs[kind], payload)
        return status, reply, self.compiler.stats()


def _exam(payload: tuple[Any, ...]) -> dict[str, Any]:
    return exam_items(*payload)


def handler(cache_size: int = DEFAULT_CACHE_SIZE, cache_bytes: int | None = DEFAULT_CACHE_BYTES,
            limits: Limits = DEFAULT_LIMITS) -> Callable[..., Any]:
    """A worker's job handler (the factory of the workbench server's pool)."""
    return BenchWork(cache_size, cache_bytes, limits).handle
