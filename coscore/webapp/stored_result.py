"""A task's ``result`` JSON, byte for byte as the original CoScore server stored it.

The original stored ``json.dumps({"scores": [...], "logs": [debugInfo, ...]})`` with the
Python types its engine produced: ``0`` and ``10`` (ints) next to ``8.0`` (a float),
``true`` where a logic combo's score is a bool. The batch engine gives float64 columns,
so the types come from the type pass (:func:`coscore.language.combo_kinds`): the
Python types each combo's value may have when truthy and when falsy (``M`` of an OP atom
is a float when it hits and int ``0`` when not; ``G`` a bool; ``T`` a str; …), and each
answer's value, zero or not, picks one side. Where a side holds more than one type
(``F`` of ``"0"`` is ``0.0`` but of ``"x"`` is ``0``; branches of different types;
integers beyond 2**53), that answer is scored again by :class:`coscore.compat.Rule`, the
original engine's twin, once per distinct answer. Everything else stays columnar.
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..compat import Rule as _CompatRule
from ..errors import CoscoreError
from ..language import combo_kinds
from ..results import Batch
from ..rule import Rule

__all__ = ["AnswerFailed", "result_json", "result_parts", "result_text", "score_answers"]

#: Integers at or beyond this magnitude are not exact in float64: such answers are re-scored.
_EXACT = 2.0**53
#: The code of each kind a stored value can have (0: not known, re-score the answer).
_CODES = {"bool": 1, "int": 2, "float": 3}


class AnswerFailed(CoscoreError):
    """Scoring answer ``index`` (0-based) failed with ``message``."""

    def __init__(self, index: int, message: str):
        super().__init__(message)
        self.index = index
        self.message = message


def _code(kinds: frozenset[str]) -> int:
    """The code of the one kind in ``kinds``; 0 when there are several (or none)."""
    return _CODES.get(next(iter(kinds)), 0) if len(kinds) == 1 else 0


def _combo_codes(rule: Rule) -> list[tuple[int, int]]:
    """Each combo's contribution's kind codes ``(when non-zero, when zero)``, from the
    type pass (:func:`coscore.language.combo_kinds`); ``(0, 0)`` where not known."""
    return [(_code(c.contribution[0]), _code(c.contribution[1])) if c.contribution is not None else (0, 0)
            for c in combo_kinds(rule)]


def _typed_columns(rule: Rule, batch: Batch) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """Per combo the per-answer type codes; the score's codes; and which answers to re-score."""
    n = len(batch)
    unknown = np.zeros(n, dtype=bool)
    columns = []
    values = []
    for (truthy, falsy), cid in zip(_combo_codes(rule), rule.combo_ids):
        column = batch.combos[cid]
        nonzero = column != 0
        kind = np.where(nonzero, truthy, falsy).astype(np.int8)
        unknown |= kind == 0
        unknown |= np.abs(column) >= _EXACT
        unknown |= (column == 0) & np.signbit(column)  # -0.0: ints have no sign, floats may
        columns.append(kind)
        values.append(column)
    if rule.combo_mode == "ADD":
        score_kind = np.full(n, _CODES["int"], dtype=np.int8)
        for kind in columns:
            score_kind = np.where(kind == _CODES["float"], kind, score_kind)
        best = None
    else:  # the first maximum, as max() keeps it
        best = values[0].copy()
        score_kind = columns[0].copy()
        for column, kind in zip(values[1:], columns[1:]):
            greater = column > best
            best = np.where(greater, column, best)
            score_kind = np.where(greater, kind, score_kind)
    if best is None:
        best = np.zeros(n)
        for column in values:
            best = best + column
    clamped = (best < 0) | (best > 10)
    score_kind = np.where(clamped, _CODES["int"], score_kind).astype(np.int8)
    unknown |= (batch.scores == 0) & np.signbit(batch.scores)
    return columns, score_kind, unknown


_FROM_CODE = {1: bool, 2: int, 3: float}


def _tokens(values: np.ndarray, kinds: np.ndarray) -> np.ndarray:
    """Each value's JSON text as ``json.dumps`` writes it with its type code, formatted
    once per distinct value (an object array)."""
    tokens = np.empty(len(values), dtype=object)
    positive = values + 0.0  # -0.0 answers are re-scored; keep them from standing for 0.0
    for code, cast in _FROM_CODE.items():
        mask = kinds == code
        if not mask.any():
            continue
        distinct, inverse = np.unique(positive[mask], return_inverse=True)
        texts = np.array([json.dumps(cast(v)) for v in distinct.tolist()], dtype=object)
        tokens[mask] = texts[inverse.ravel()]
    return tokens


def score_answers(rule: Rule, answers: Any) -> Batch:
    """The answers of a task scored by ``rule``: the one scoring call a task makes.
    ``answers`` are lists of blanks, or blank columns (see :meth:`coscore.Rule.score_many`)."""
    return rule.score_many(answers)


def result_parts(rule: Rule, source: Any, answers: Sequence[list], batch: Batch | None = None) -> tuple[str, str]:
    """The two lists of the original's ``result`` text for ``answers``, without their
    brackets: the scores and the logs (``"5.0, 10"`` and ``'{"A": 5.0}, {"A": 10}'``).
    Parts of consecutive answers joined with ``", "`` are the parts of them all.

    ``source`` is the rule as given (dict or JSON text), for the answers re-scored by the
    original engine's twin; ``batch``, the answers already scored (default: scored here by
    :func:`score_answers`). Raises :class:`AnswerFailed` for the first answer that fails.
    """
    if batch is None:
        batch = score_answers(rule, answers)
    for index, error in enumerate(batch.errors):
        if error is not None:
            raise AnswerFailed(index, error)
    ids = rule.combo_ids
    kinds, score_kinds, unknown = _typed_columns(rule, batch)
    scores = _tokens(batch.scores, score_kinds)
    columns = [_tokens(batch.combos[cid], kind) for cid, kind in zip(ids, kinds)]
    redo = np.flatnonzero(unknown).tolist()
    if redo:
        original = _CompatRule(source)
        seen: dict = {}
        for index in redo:
            key = tuple(answers[index])
            if key not in seen:
                try:
                    score, debug = original.calculate(answers[index])
                except Exception as exc:  # the batch said it scores; keep the task honest anyway
                    raise AnswerFailed(index, f"{type(exc).__name__}: {exc}") from None
                seen[key] = json.dumps(score), [json.dumps(debug[cid]) for cid in ids]
            scores[index] = seen[key][0]
            for column, token in zip(columns, seen[key][1]):
                column[index] = token
    keys = [json.dumps(cid).replace("{", "{{").replace("}", "}}") for cid in ids]
    entry = "{{" + ", ".join(f"{key}: {{}}" for key in keys) + "}}"
    logs = ", ".join(map(entry.format, *columns)) if columns else ", ".join(["{}"] * len(scores))
    return ", ".join(scores.tolist()), logs


def result_text(scores: Sequence[str], logs: Sequence[str]) -> str:
    """The ``result`` text of consecutive parts (see :func:`result_parts`)."""
    return '{"scores": [' + ", ".join(p for p in scores if p) + '], "logs": [' + ", ".join(p for p in logs if p) + "]}"


def result_json(rule: Rule, source: Any, answers: Sequence[list], batch: Batch | None = None) -> str:
    """The original's ``result`` text for ``answers`` scored with ``rule``:
    ``json.dumps({"scores": [...], "logs": [debugInfo, ...]})``, byte for byte.
    Raises :class:`AnswerFailed` for the first answer that fails."""
    scores, logs = result_parts(rule, source, answers, batch)
    return result_text([scores], [logs])
