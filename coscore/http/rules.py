"""What both servers' workers do with rules: compile them (kept by content) and test one.

:class:`Compiler` compiles a rule from a request through a :class:`coscore.rulecache.RuleCache`
(bounded in count and bytes), turning a :class:`coscore.RuleError` into a 422 naming every
problem. :func:`test_rule` is the original CoScore backend's ``/api/testRule``: one answer
scored, ``{"score", "debugInfo"}`` with the original's number types; ``coscore serve`` and
``coscore app`` answer it alike.
"""
from __future__ import annotations

import functools
import weakref
from collections.abc import Iterable
from typing import Any

from ..diagnostics import Diagnostic, RuleError, json_type, shorten
from ..expr.types import check_rule
from ..limits import DEFAULT_LIMITS, BudgetExceeded, Limits, rss_bytes
from ..results import failure_message
from ..rule import Rule
from ..rule import compile as compile_rule
from ..rulecache import RuleCache
from .bodies import json_object
from .responses import ApiError, finite

__all__ = [
    "DEFAULT_CACHE_BYTES",
    "DEFAULT_CACHE_SIZE",
    "MAX_LISTED",
    "Compiler",
    "diagnostics",
    "findings",
    "listed",
    "test_rule",
]

#: Compiled rules kept per worker, and their bytes (see :class:`coscore.rulecache.RuleCache`).
DEFAULT_CACHE_SIZE = 256
DEFAULT_CACHE_BYTES = 256 * 2**20
#: The most findings an answer that scores lists with its results (``/v1/check`` lists them all).
MAX_LISTED = 100


def diagnostics(items: Iterable[Diagnostic]) -> list[dict]:
    """Diagnostics as JSON objects, their messages shortened."""
    return [{**d.to_dict(), "message": shorten(d.message)} for d in items]


def findings(rule: Rule) -> list[Diagnostic]:
    """What ``coscore check`` finds in a compiled rule: its warnings, then the type pass's
    findings (:func:`coscore.expr.types.check_rule`: a combo that fails on every answer,
    such as ``T(0) > 3``, is an error; one that never counts a warning)."""
    return [*rule.warnings, *check_rule(rule).diagnostics]


def listed(found: list[Diagnostic], limit: int = MAX_LISTED) -> dict[str, Any]:
    """``{"warnings": …}``: at most ``limit`` of ``found`` as JSON objects, the errors
    first (each kind in its order), and ``"warningsOmitted"``, how many more there are,
    when some are left out (a rule of 1,000 combos that never count would otherwise
    outweigh its scores)."""
    errors = [d for d in found if d.severity == "error"]
    kept = (errors + [d for d in found if d.severity != "error"])[:limit] if len(found) > limit else found
    out: dict[str, Any] = {"warnings": diagnostics(kept)}
    if len(found) > len(kept):
        out["warningsOmitted"] = len(found) - len(kept)
    return out


class Compiler:
    """Rules compiled with ``limits`` and kept by content (``cache_size`` rules, at most
    ``cache_bytes`` bytes of them, measured as the worker's memory grows)."""

    def __init__(self, cache_size: int = DEFAULT_CACHE_SIZE, cache_bytes: int | None = DEFAULT_CACHE_BYTES,
                 limits: Limits = DEFAULT_LIMITS):
        self.cache = RuleCache(cache_size, compiler=functools.partial(compile_rule, limits=limits),
                               maxbytes=cache_bytes, measure=True)
        # each kept rule's findings, made the first time they are asked for: they go with the rule
        self._findings: weakref.WeakKeyDictionary[Rule, list[Diagnostic]] = weakref.WeakKeyDictionary()

    def get(self, source: Any) -> Rule:
        """The compiled rule; raises :class:`RuleError` (a rule of the wrong type included)."""
        if not isinstance(source, (dict, str)):
            raise RuleError([Diagnostic("rule", f"a rule is a JSON object, not {json_type(source)}")])
        return self.cache.get(source)

    def rule(self, source: Any) -> Rule:
        """The compiled rule of a request; :class:`ApiError` 422 ``invalid rule`` with its diagnostics."""
        try:
            return self.get(source)
        except RuleError as exc:
            raise ApiError(422, "invalid rule", diagnostics=diagnostics(exc.diagnostics)) from None

    def findings(self, rule: Rule) -> list[Diagnostic]:
        """:func:`findings` of a rule this compiler gave, found once per compiled rule."""
        found = self._findings.get(rule)
        if found is None:
            found = self._findings[rule] = findings(rule)
        return found

    def stats(self) -> dict:
        """What the worker reports after each job: its cache and its resident memory."""
        return {"cache": self.cache.info(), "rss": rss_bytes()}


def test_rule(compiler: Compiler, body: bytes) -> dict:
    """``POST /api/testRule`` ``{"rule", "answer"}``: ``{"score", "debugInfo"}`` as the
    original answered; a malformed request is 400, a rule that does not compile 422 with
    its diagnostics, an answer that cannot be scored 422 naming the original engine's
    exception class (and the budget, when one stopped it)."""
    data = json_object(body, ("rule", "answer"))
    rule = compiler.rule(data["rule"])
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
    return {"score": finite(score), "debugInfo": finite(debug)}
