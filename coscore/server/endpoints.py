"""The service's endpoints, synchronous: one :class:`Service` runs in each worker process.

Each endpoint takes the request body (bytes) and returns the JSON-ready answer, or raises
:class:`~coscore.http.ApiError`; :meth:`Service.handle` turns either into
``(status, JSON bytes, statistics of this worker)`` for the pool. No answer is larger
than ``max_response`` bytes: ``/v1/score`` refuses a request whose answer would be
(answers × (combos + 1) numbers) before scoring it, and any answer that comes out larger
is replaced by a 422 naming the budget. ``/v1/exam/score`` (:mod:`.exams`) scores an
exam's papers, under the per-request ``timeout`` times its number of items.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from ..diagnostics import RuleError, json_type, shorten
from ..http.bodies import json_object
from ..http.responses import ApiError, answer, error_payload, finite, floats, json_bytes, short_strings
from ..http.rules import DEFAULT_CACHE_BYTES, DEFAULT_CACHE_SIZE, Compiler, diagnostics, listed, test_rule
from ..language import combo_findings
from ..limits import DEFAULT_LIMITS, Limits
from ..rule import Rule
from .exams import ExamClock, score_exam

__all__ = ["Service", "handler", "MAX_CALLS", "DEFAULT_MAX_RESPONSE"]

#: ``/v1/explain`` lists at most this many atom calls.
MAX_CALLS = 1000
#: The largest answer (bytes of JSON) the service sends.
DEFAULT_MAX_RESPONSE = 16 * 2**20


def _answer(value: Any, where: str) -> list:
    """One answer from the request: an array of blanks (strings), or one string."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return value
    raise ApiError(400, f"{where} must be an array of strings (the blanks), not {json_type(value)}")


class Service:
    """The endpoint logic, synchronous: one runs in each worker process (see :func:`handler`)."""

    def __init__(self, cache_size: int = DEFAULT_CACHE_SIZE, cache_bytes: int | None = DEFAULT_CACHE_BYTES,
                 limits: Limits = DEFAULT_LIMITS, max_response: int = DEFAULT_MAX_RESPONSE,
                 timeout: float | None = None):
        """``timeout`` is the pool's wall-time budget of one request (seconds; ``None``:
        none), which an exam gets once per item (see :meth:`exam_score`)."""
        self.compiler = Compiler(cache_size, cache_bytes, limits)
        self.limits = limits
        self.max_response = max_response
        self.timeout = timeout
        self.cache = self.compiler.cache
        self.endpoints: dict[str, Callable[[bytes], Any]] = {
            "testRule": self.test_rule, "score": self.score, "check": self.check, "explain": self.explain,
            "exam": self.exam_score,
        }

    def handle(self, kind: str, body: bytes) -> tuple[int, bytes, dict]:
        """Answer one request: ``(status, JSON bytes, statistics of this worker)``.

        ``MemoryError`` is left to the caller (the worker pool answers it as over budget).
        """
        status, payload = answer(self.endpoints[kind], body)
        data = json_bytes(payload)
        if len(data) > self.max_response:
            data = json_bytes(error_payload(self._too_large(f"the answer is {len(data):,} bytes")))
            status = 422
        return status, data, self.compiler.stats()

    def _too_large(self, what: str) -> ApiError:
        return ApiError.budget("response", f"{what}; the limit is {self.max_response:,} (send fewer answers, or a "
                               "rule with fewer combos, per request)", self.max_response)

    def compile(self, data: dict) -> Rule:
        """The request's ``rule``, compiled (kept by content); 422 with its diagnostics."""
        return self.compiler.rule(data["rule"])

    # POST /api/testRule
    def test_rule(self, body: bytes) -> Any:
        """The original CoScore backend's rule test (see :func:`coscore.http.rules.test_rule`)."""
        return test_rule(self.compiler, body)

    # POST /v1/score
    def score(self, body: bytes) -> Any:
        """Many answers with one rule: scores, combo values, errors, and in ``warnings`` what
        ``/v1/check`` finds in the rule (its warnings and the type pass's findings: a combo
        that fails on every answer is there before its answers fail; at most
        :data:`~coscore.http.rules.MAX_LISTED`, errors first, ``warningsOmitted`` counting the rest)."""
        data = json_object(body, ("rule", "answers"))
        rule = self.compile(data)
        answers = data["answers"]
        if not isinstance(answers, list):
            raise ApiError(400, f"'answers' must be an array of answers, not {json_type(answers)}")
        numbers = len(answers) * (len(rule.combo_ids) + 1)
        if 2 * numbers > self.max_response:  # each number takes 2 bytes at least ("0,")
            raise self._too_large(f"the answer would hold {numbers:,} numbers, at least {2 * numbers:,} bytes")
        batch = rule.score_many(answers)  # a malformed answer is that answer's error
        return {
            "scores": floats(batch.scores),
            "combos": {cid: floats(values) for cid, values in batch.combos.items()},
            "errors": [None if e is None else shorten(e) for e in batch.errors],
            **listed(self.compiler.findings(rule)),
        }

    # POST /v1/check
    def check(self, body: bytes) -> Any:
        """A rule's errors and warnings, as ``coscore check`` finds them (the rule compiled,
        then the type pass: what fails on every answer, what never counts), and its combos."""
        data = json_object(body, ("rule",))
        try:
            rule = self.compiler.get(data["rule"])
        except RuleError as exc:  # what the type pass finds in the combos that were read well, too
            return {"valid": False, "diagnostics": diagnostics([*exc.diagnostics, *combo_findings(exc)]), "combos": []}
        found = self.compiler.findings(rule)
        valid = not any(d.severity == "error" for d in found)
        return {"valid": valid, "diagnostics": diagnostics(found), "combos": list(rule.combo_ids)}

    # POST /v1/exam/score
    def exam_score(self, body: bytes) -> Any:
        """An exam's papers scored, each item by its own rule (see :mod:`coscore.server.exams`):
        the exam compiled with the service's limits, within :data:`~.exams.MAX_EXAM_ITEMS`
        items, the answer's size checked before scoring, and ``timeout`` seconds per item."""
        return score_exam(body, limits=self.limits, clock=ExamClock(self.timeout),
                          max_response=self.max_response)

    # POST /v1/explain
    def explain(self, body: bytes) -> Any:
        """One answer scored, with every atom call and its evidence (at most :data:`MAX_CALLS`)."""
        data = json_object(body, ("rule", "answer"))
        rule = self.compile(data)
        blanks = _answer(data["answer"], "'answer'")
        outcome, calls = rule.trace(blanks)
        return short_strings(finite({
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
            **listed(self.compiler.findings(rule)),
        }))


def handler(cache_size: int = DEFAULT_CACHE_SIZE, cache_bytes: int | None = DEFAULT_CACHE_BYTES,
            limits: Limits = DEFAULT_LIMITS, max_response: int = DEFAULT_MAX_RESPONSE,
            timeout: float | None = None) -> Callable:
    """A worker's request handler, :meth:`Service.handle` (the factory of the worker pool);
    rules are compiled with ``limits``; an exam gets ``timeout`` seconds per item."""
    return Service(cache_size, cache_bytes, limits, max_response, timeout).handle


def _kind(rule: Rule, atom_id: str) -> str | None:
    atom = rule.atoms.get(str(atom_id))
    return getattr(atom, "kind", None)


def _evidence(rule: Rule, call: Any) -> Any:
    """Why the atom hit or missed (see :mod:`coscore.explain`), or ``None`` if unavailable."""
    try:
        from ..explain import atom_evidence

        atom = rule.atoms[str(call.atom)]
        if type(call.text) is not str:
            return None
        return dataclasses.asdict(atom_evidence(atom, call.text))
    except Exception:  # evidence is a bonus: never fail the request for it
        return None
