"""A task's ``result`` JSON, byte for byte as the original CoScore server stored it.

The original stored ``json.dumps({"scores": [...], "logs": [debugInfo, ...]})`` with the
Python types its engine produced: ``0`` and ``10`` (ints) next to ``8.0`` (a float),
``true`` where a logic combo's score is a bool. The batch engine gives float64 columns,
so the types are inferred: each combo's expression gets a static *type pair* — the
Python type of its value when truthy and when falsy (``M`` of an OP atom is a float when
it hits and int ``0`` when not; ``G`` a bool; ``T`` a str; …) — and each answer's value
then picks one of the two. Where a pair cannot tell (``F`` of ``"0"`` is ``0.0`` but of
``"x"`` is ``0``; branches of different types; integers beyond 2**53), that answer is
scored again by :class:`coscore.compat.Rule`, the original engine's twin, once per
distinct answer. Everything else stays columnar.
"""
from __future__ import annotations

import json
from typing import Any, Sequence

import numpy as np

from ..compat import Rule as _CompatRule
from ..expr.nodes import Arith, BoolOp, Call, Compare, Const, IfExp, Node, Unary
from ..results import Batch
from ..rule import Rule

__all__ = ["AnswerFailed", "result_json"]

# Python types of values: bool, int, float, str; None when it cannot be told statically.
_BOOL, _INT, _FLOAT, _STR = "b", "i", "f", "s"
#: Integers at or beyond this magnitude are not exact in float64: such answers are re-scored.
_EXACT = 2.0**53


class AnswerFailed(Exception):
    """Scoring answer ``index`` (0-based) failed with ``message``."""

    def __init__(self, index: int, message: str):
        super().__init__(message)
        self.index = index
        self.message = message


def _type_of(value: Any) -> str | None:
    t = type(value)
    return {bool: _BOOL, int: _INT, float: _FLOAT, str: _STR}.get(t)


def _promote(a: str | None, b: str | None, op: str) -> str | None:
    """The type of ``a op b`` for ``+ - * /`` (``None``: unknown or an error)."""
    if a is None or b is None:
        return None
    if _STR in (a, b):
        return _STR if op == "+" and a == b == _STR else None
    if op == "/" or _FLOAT in (a, b):
        return _FLOAT
    return _INT


def _nonzero_number(node: Node) -> bool:
    return isinstance(node, Const) and type(node.value) in (int, float) and node.value != 0


def _same(*types: str | None) -> str | None:
    first = types[0]
    return first if all(t == first for t in types) else None


class _Types:
    """Type pairs ``(when truthy, when falsy)`` of a rule's expressions."""

    def __init__(self, rule: Rule):
        self.rule = rule
        self.u_args: set = set()

    def pair(self, node: Node) -> tuple:
        if isinstance(node, Const):
            t = _type_of(node.value)
            return t, t
        if isinstance(node, Call):
            return self._call(node)
        if isinstance(node, Unary):
            if node.op == "not":
                return _BOOL, _BOOL
            truthy, falsy = self.pair(node.operand)
            # -True is an int; -"x" an error
            fix = {_BOOL: _INT, _INT: _INT, _FLOAT: _FLOAT}
            return fix.get(truthy), fix.get(falsy)
        if isinstance(node, Compare):
            return _BOOL, _BOOL
        if isinstance(node, Arith):
            acc = self.pair(node.first)
            constant = _nonzero_number(node.first)  # a non-zero number times x is falsy when x is
            for op, operand, _ in node.rest:
                acc = self._arith(acc, op, operand, constant)
                constant = False
            return acc
        if isinstance(node, BoolOp):
            pairs = [self.pair(operand) for operand in node.operands]
            if node.op == "and":  # truthy: the last operand; falsy: the first falsy one
                return pairs[-1][0], _same(*(p[1] for p in pairs))
            return _same(*(p[0] for p in pairs)), pairs[-1][1]
        if isinstance(node, IfExp):
            then, orelse = self.pair(node.then), self.pair(node.orelse)
            return _same(then[0], orelse[0]), _same(then[1], orelse[1])
        return None, None

    def _arith(self, left: tuple, op: str, operand: Node, first_nonzero: bool = False) -> tuple:
        right = self.pair(operand)
        kinds = {_promote(a, b, op) for a in left for b in right}
        if len(kinds) == 1:
            kind = kinds.pop()
            return kind, kind
        if op == "*" and _nonzero_number(operand):
            # times a non-zero number: the product is falsy exactly when the left side is
            return _promote(left[0], right[0], op), _promote(left[1], right[0], op)
        if op == "*" and left[0] == left[1] and left[0] in (_INT, _FLOAT) and first_nonzero:
            return _promote(left[0], right[0], op), _promote(left[0], right[1], op)
        return None, None

    def _call(self, node: Call) -> tuple:
        op = node.op
        if op == "T":
            return _STR, _STR
        if op in "LSA":
            return _INT, _INT
        if op == "G":
            return _BOOL, _BOOL
        if op == "Q":
            arg = node.args[0]
            return (_INT, _INT) if isinstance(arg, Const) and arg.value == "*" else (_BOOL, _BOOL)
        if op == "F":  # float(text), or int 0 when it does not parse: a falsy F is either 0.0 or 0
            return _FLOAT, None
        if op == "M":
            key = node.args[0]
            atoms = self.rule.atoms
            kinds = {atoms[str(key.value)].kind} if isinstance(key, Const) and str(key.value) in atoms else {
                a.kind for a in atoms.values()}
            pairs = {(_FLOAT, _INT) if kind in ("OP", "CS") else (_INT, _INT) for kind in kinds}
            return pairs.pop() if len(pairs) == 1 else (None, None)
        if op == "U":  # C if f >= C else f, cached per answer by (f, C) value
            f, c = self.pair(node.args[0]), self.pair(node.args[1])
            self.u_args.add((f, c))
            return _same(f[0], c[0]), _same(f[1], c[1])
        if op == "X":
            pairs = [self.pair(arg) for arg in node.args]
            return _same(*(p[0] for p in pairs)), _same(*(p[1] for p in pairs))
        return None, None


def _combo_pairs(rule: Rule) -> list[tuple]:
    """Each combo's result type pair ``(when non-zero, when zero)``."""
    types = _Types(rule)
    pairs = []
    for combo in rule.spec.combos:
        truthy, falsy = types.pair(combo.tree)
        score = combo.score
        st = _type_of(score)
        if combo.mode == "logic":  # score if truthy else int 0
            pair = (st, _INT) if score else (None, _INT if st == _INT else None)
        else:  # value * score
            products = (_promote(truthy, st, "*"), _promote(falsy, st, "*"))
            pair = products if score else (None, _same(*products))
        pairs.append(pair)
    if len(types.u_args) > 1:  # U's per-answer cache could hand one call another's typed value
        pairs = [(None, None)] * len(pairs)
    return pairs


def _typed_columns(rule: Rule, batch: Batch) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """Per combo the per-answer type codes; the score's codes; and which answers to re-score."""
    codes = {None: 0, _BOOL: 1, _INT: 2, _FLOAT: 3, _STR: 0}
    n = len(batch)
    unknown = np.zeros(n, dtype=bool)
    columns = []
    values = []
    for (truthy, falsy), cid in zip(_combo_pairs(rule), rule.combo_ids):
        column = batch.combos[cid]
        nonzero = column != 0
        kind = np.where(nonzero, codes[truthy], codes[falsy]).astype(np.int8)
        unknown |= kind == 0
        unknown |= np.abs(column) >= _EXACT
        unknown |= (column == 0) & np.signbit(column)  # -0.0: ints have no sign, floats may
        columns.append(kind)
        values.append(column)
    if rule.combo_mode == "ADD":
        score_kind = np.full(n, codes[_INT], dtype=np.int8)
        for kind in columns:
            score_kind = np.where(kind == codes[_FLOAT], kind, score_kind)
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
    score_kind = np.where(clamped, codes[_INT], score_kind).astype(np.int8)
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


def result_json(rule: Rule, source: Any, answers: Sequence[list], batch: Batch | None = None) -> str:
    """The original's ``result`` text for ``answers`` scored with ``rule``:
    ``json.dumps({"scores": [...], "logs": [debugInfo, ...]})``, byte for byte.

    ``source`` is the rule as given (dict or JSON text), for the answers re-scored by the
    original engine's twin. Raises :class:`AnswerFailed` for the first answer that fails.
    """
    if batch is None:
        batch = rule.score_many(answers)
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
    return '{"scores": [' + ", ".join(scores.tolist()) + '], "logs": [' + logs + "]}"
