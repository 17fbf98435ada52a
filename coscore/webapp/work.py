"""What the web app's worker processes do: compile rules and test them.

One :class:`AppWork` runs in each worker of the app's pool (:class:`coscore.http.pool.WorkerPool`),
keeping compiled rules by content, so a rule that ``saveRule`` compiled is not compiled
again by ``createTask`` on the same worker. Jobs:

- ``"testRule"``, the request body → the original ``/api/testRule`` answer (JSON bytes);
- ``"compile"``, ``(rule text, what, markup)`` → ``None``, or the 422 error naming every
  problem; with ``markup``, 400 when testing the rule could show markup (:mod:`.markup`);
- ``"chunk"``, ``(rule text, lines)`` → ``("ok", scores, logs, seconds)``: a task's
  lines of data split into answers (:func:`.answers.answers_of`) and scored, as parts of the stored
  ``result`` (:func:`.stored_result.result_parts`),
  and the seconds it took; ``("failed", index, message)`` for the first answer that
  cannot be scored; ``("invalid", message)`` when the rule does not compile;
- ``"workbench.*"``: the rule workbench's jobs (:mod:`coscore.workbench.jobs`).
"""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from ..diagnostics import RuleError
from ..http.responses import ApiError, answer, json_bytes
from ..http.rules import DEFAULT_CACHE_BYTES, DEFAULT_CACHE_SIZE, Compiler, test_rule
from ..limits import DEFAULT_LIMITS, Limits
from ..rule import Rule
from ..workbench import workbench_jobs
from .answers import answers_of, describe_rule_error
from .markup import rule_markup
from .stored_result import AnswerFailed, result_parts, score_answers

__all__ = ["AppWork", "handler", "score_lines"]


class AppWork:
    """The web app's jobs, synchronous (one instance per worker process)."""

    def __init__(self, cache_size: int = DEFAULT_CACHE_SIZE, cache_bytes: int | None = DEFAULT_CACHE_BYTES,
                 limits: Limits = DEFAULT_LIMITS):
        self.compiler = Compiler(cache_size, cache_bytes, limits)
        self.jobs: dict[str, Callable[[Any], Any]] = {"testRule": self.test_rule, "compile": self.compile,
                                                      "chunk": self.chunk}
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

    def compile(self, payload: tuple[str, str, bool]) -> None:
        """Compile a stored rule's text; 422 naming every problem when it does not compile."""
        text, what, markup = payload
        try:
            rule = self.compiler.get(text)
        except RuleError as exc:
            raise ApiError(422, f"{what} does not compile: {exc}",
                           diagnostics=[d.to_dict() for d in exc.diagnostics]) from None
        problem = rule_markup(rule) if markup else None
        if problem is not None:
            raise ApiError(400, f"'rule' is refused: {problem}")


    def chunk(self, payload: tuple[str, list[str]]) -> tuple:
        """Score some of a task's answers (see the module's description)."""
        text, lines = payload
        start = time.perf_counter()
        try:
            rule = self.compiler.get(text)
        except RuleError as exc:
            return "invalid", describe_rule_error(exc)
        try:
            scores, logs = score_lines(rule, text, lines)
        except AnswerFailed as exc:
            return "failed", exc.index, exc.message
        return "ok", scores, logs, time.perf_counter() - start


def score_lines(rule: Rule, text: str, lines: list[str]) -> tuple[str, str]:
    """A slice of a task's lines of data split into answers and scored: the parts of the
    stored ``result`` (the one place a task splits and scores its answers)."""
    answers = answers_of(lines)
    return result_parts(rule, text, answers, score_answers(rule, answers.blanks))


def handler(cache_size: int = DEFAULT_CACHE_SIZE, cache_bytes: int | None = DEFAULT_CACHE_BYTES,
            limits: Limits = DEFAULT_LIMITS) -> Callable:
    """A worker's job handler, :meth:`AppWork.handle` (the factory of the app's pool)."""
    return AppWork(cache_size, cache_bytes, limits).handle
