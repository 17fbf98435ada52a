"""The one-answer path: an answer scored by the reference evaluator
(:mod:`coscore.expr.evaluate`), with Python's own semantics and the original engine's
exceptions.

:func:`evaluate` gives the raw total as the original did; :func:`score_one` an
:class:`~coscore.results.Outcome` (a failure is its ``error``, at most
:data:`~coscore.diagnostics.MESSAGE_LIMIT` characters); :func:`trace` lists every atom
call. :func:`score_flagged` scores the answers of a chunk that the columnar path could
not vouch for, each distinct one once.
"""
from __future__ import annotations

import math
import threading
import weakref
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ..diagnostics import shorten
from ..expr.evaluate import Answer, OperandError, combo_result, compile_tree, total
from ..expr.failures import reason
from ..results import AtomCall, Outcome, failure_message
from .plan import Plan

#: An answer: its blanks, or one string for a one-blank answer.
AnswerLike = Sequence[str] | str


def evaluate(plan: Plan, blanks: list[Any], results: list[Any], trace: list[Any] | None = None,
             add: Callable[[list[Any]], Any] | None = None) -> Any:
    """The raw total (Python int/float, as the original engine) of one answer.

    Appends each combo's raw result to ``results`` as it completes, so after an
    exception ``len(results)`` is the index of the failing combo. Errors are the
    original engine's exception classes. ``trace``, when given, receives the index
    of each combo as it starts and a ``(op, atom, text, hit, value)`` per atom call.
    ``add`` replaces ADD's left-to-right sum (:func:`coscore.expr.evaluate.total`).
    """
    answer = Answer(blanks, plan.atoms, plan.manual, trace, plan.limits)
    for evaluate_combo, score, mode in plan.combos:
        if trace is not None:
            trace.append(len(results))
        results.append(combo_result(evaluate_combo(answer), score, mode))
    return total(results, plan.combo_mode, add)


def score_one(plan: Plan, answer: AnswerLike, trace: list[Any] | None = None) -> Outcome:
    """One answer's :class:`~coscore.results.Outcome` by the reference evaluator; its
    failure is its ``error``, never an exception."""
    blanks = answer_blanks(answer)
    if blanks is None:
        return refused(type(answer).__name__)
    return score_blanks(plan, blanks, trace)


def score_blanks(plan: Plan, blanks: list[Any], trace: list[Any] | None = None) -> Outcome:
    """:func:`score_one` of an answer whose blanks :func:`answer_blanks` has taken. The
    error quotes what failed, shortened (:func:`coscore.diagnostics.shorten`): a message
    that quotes a long blank stays one short line."""
    results: list[Any] = []
    try:
        value = evaluate(plan, blanks, results, trace)
    except Exception as exc:  # one answer's failure never escapes
        combos = {cid: _as_float(r) for cid, r in zip(plan.combo_ids, results)}
        if type(exc) is TypeError:  # an operator of the rule given what it does not take: say which
            exc = _explained(plan, blanks, len(results), exc)
        return Outcome(None, combos, shorten(failure_message(plan.combo_ids, results, exc)))
    combos = {cid: _as_float(r) for cid, r in zip(plan.combo_ids, results)}
    return Outcome(float(value), combos)


#: Each plan's combos compiled to explain an operator's failure (``compile_tree(…, explain=True)``),
#: made the first time one of its answers fails so.
_EXPLAINING: weakref.WeakKeyDictionary[Plan, tuple[list[tuple[Any, float, str]], dict[Any, str]]] = \
    weakref.WeakKeyDictionary()
_EXPLAINING_LOCK = threading.Lock()


def _explained(plan: Plan, blanks: list[Any], index: int, exc: TypeError) -> Exception:
    """``exc``, which combo ``index`` raised on ``blanks``, worded in the rule's terms when
    an operator of the rule failed (:func:`coscore.expr.failures.reason`: ``cannot compare
    text with a number ('>' between T(0), a text, and 3)``); else ``exc`` itself. The
    answer is scored again by the explaining closures, with fresh per-answer caches, so
    the same step fails; only the message changes, never whether or where it fails."""
    explaining = _EXPLAINING.get(plan)
    if explaining is None:
        with _EXPLAINING_LOCK:
            explaining = _EXPLAINING.get(plan)
            if explaining is None:
                combos = [(compile_tree(c.tree, explain=True), c.score, c.mode) for c in plan.spec.combos]
                explaining = _EXPLAINING[plan] = (combos, {})
    combos, reasons = explaining
    answer = Answer(blanks, plan.atoms, plan.manual, None, plan.limits)
    try:
        for done, (evaluate_combo, score, mode) in enumerate(combos):
            combo_result(evaluate_combo(answer), score, mode)
            if done >= index:
                break
    except OperandError as found:
        if done == index:  # the words depend on the expression and the kinds of its operands only
            key = (id(found.node), found.index, _kinds(found.values))
            why = reasons.get(key)
            if why is None:
                why = reason(found)
                if len(reasons) < 1024:
                    reasons[key] = why
            return TypeError(why)
    except Exception:  # noqa: BLE001 - not the failure explained here: it keeps its own words
        return exc
    return exc


def _kinds(values: tuple[Any, ...]) -> tuple[Any, ...]:
    """The types of an operator's operands (``X`` gets one list of them)."""
    return tuple(tuple(map(type, v)) if type(v) is list else type(v) for v in values)


def trace(plan: Plan, answer: AnswerLike) -> tuple[Outcome, list[AtomCall]]:
    """Score one answer and list every atom call made, in evaluation order."""
    events: list[Any] = []
    outcome = score_one(plan, answer, events)
    calls: list[AtomCall] = []
    combo = plan.combo_ids[0] if plan.combo_ids else ""
    for event in events:
        if isinstance(event, int):
            combo = plan.combo_ids[event]
        else:
            calls.append(AtomCall(combo, *event))
    return outcome, calls


def score_flagged(plan: Plan, rows: Iterable[int], answer_at: Callable[[int], AnswerLike],
                  put: Callable[[int, Outcome], None]) -> None:
    """Score answers ``rows`` of a chunk one by one (``answer_at(i)`` gives answer ``i``)
    and ``put(i, outcome)`` each: answers of exact strings that are alike share one
    outcome, scored once (see :func:`_shared_key`)."""
    seen: dict[tuple[Any, ...], Outcome] = {}
    refusals: dict[str, Outcome] = {}
    for i in rows:
        # validated and normalised first: only answers of exact strings share an outcome
        answer = answer_at(i)
        blanks = answer_blanks(answer)
        if blanks is None:  # not an answer: its outcome says only its type's name
            kind = type(answer).__name__
            outcome = refusals.get(kind)
            if outcome is None:
                outcome = refusals[kind] = refused(kind)
        else:
            key = _shared_key(blanks)
            outcome = None if key is None else seen.get(key)
            if outcome is None:
                outcome = score_blanks(plan, blanks)
                if key is not None:
                    seen[key] = outcome
        put(i, outcome)


def answer_blanks(answer: object) -> list[Any] | None:
    """The blanks of an answer as a new list: a ``str`` is one blank, a list or tuple
    (subclasses too) holds them; ``None`` for anything else (see :func:`refused`).

    Only the answer's shape is checked here: a blank that is not a ``str`` (``1``,
    ``None``, a ``str`` subclass such as ``numpy.str_``) fails the answer when a combo
    reads it, as the contract says. No code of the answer's own runs (a subclass's
    ``__iter__`` is not called), so taking the blanks never fails otherwise.
    """
    if isinstance(answer, str):
        return [answer]
    if isinstance(answer, list):
        return list.copy(answer)
    if isinstance(answer, tuple):
        return list(tuple.__iter__(answer))
    return None


def refused(kind: str) -> Outcome:
    """The outcome of something that is not an answer, of the type named ``kind``."""
    return Outcome(None, {}, f"answer: an answer is a list of blanks or a string, not {shorten(kind, 100)}")


def _shared_key(blanks: list[Any]) -> tuple[Any, ...] | None:
    """The key under which answers with these blanks share one outcome in a chunk: the
    blanks themselves when every one is an exact ``str`` (``"a"``, ``["a"]`` and
    ``("a",)`` score alike); ``(type, value)`` in place of an ``int``, ``bool`` or
    ``None`` blank; ``None`` (scored on its own) for any other blank, whose equality is
    its own to define (``1 == 1.0 == True``, a ``str`` subclass equal to its text)."""
    for blank in blanks:
        if type(blank) is not str:
            break
    else:
        return tuple(blanks)
    key: list[Any] = []
    for blank in blanks:
        kind = type(blank)
        if kind is str:
            key.append(blank)
        elif kind is int or kind is bool or blank is None:  # equal ones are alike (a float is not: -0.0)
            key.append((kind, blank))
        else:
            return None
    return tuple(key)


def _as_float(value: Any) -> float:
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf
