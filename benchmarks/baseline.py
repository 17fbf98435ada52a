"""The plain pure-Python implementation of the CoScore semantics that coscore is measured against.

This is the obvious implementation of docs/semantics.md, written the way a careful
Python programmer would without thinking about speed -- and without the original engine's
waste (it does not re-parse combos per answer, and it builds no vectorizers):

- each combo is parsed once with :mod:`ast` (``mode="eval"``), checked against the rule
  language, and evaluated per answer by walking the tree (a dispatch table by node type);
- atoms: EM by set membership, SM by the ordered option walk with ``in``, OP by the
  textbook dynamic-programming LCS (one row at a time), CS by :class:`collections.Counter`
  (the per-pair arithmetic is the kernels' pure-Python twins', ``coscore._fast.*_py``);
- atom results are cached per answer by ``(atom id, text)``, as the original engine does;
- every answer is scored on its own (no deduplication across answers).

``Rule(source).score(blanks) -> (score, combos, error)`` and ``score_many(answers)`` (a
plain loop) give the same numbers as :func:`coscore.Rule.score_many`: the clamped total as a
float (NaN when the answer fails), each combo's contribution, and an error message or
``None``. Only the ``coscore`` dialect is implemented (``L`` counts distinct CJK
characters), which is what every demo rule uses.
"""
from __future__ import annotations

import ast
import json
import math
import operator
from pathlib import Path

import numpy as np

from coscore._fast.jaccard_py import multiset_counts
from coscore._fast.jaccard_py import tokens as cs_tokens
from coscore._fast.lcs_py import lcs_length
from coscore._fast.substring_py import group_hits

# --------------------------------------------------------------------------- atoms
# The per-pair arithmetic (LCS length, token counts, one SM group's walk) is the kernels'
# pure-Python twins'; how an atom combines it over keys and groups is written out here.


def op_best(keys: list[str], s: str):
    """max(0, LCS(k, s) / len(k) over the keys) -- int 0 when nothing is similar."""
    best = 0
    for k in keys:
        if k:
            sim = lcs_length(k, s) / len(k)
            if sim > best:
                best = sim
    return best


def cs_best(keys: list[str], s: str):
    """max(0, multiset Jaccard of the characters of k and s over the keys)."""
    ns = cs_tokens(s)
    best = 0
    for k in keys:
        smin, smax = multiset_counts(cs_tokens(k), ns)
        if smax:
            sim = smin / smax
            if sim > best:
                best = sim
    return best


def sm_count(groups: list[list[str]], s: str) -> int:
    """The number of SM groups that hit ``s``: the ordered walk with ``!`` and ``~``."""
    return sum(1 for options in groups if group_hits(options, s))


class Atom:
    """``atom(text) -> (hit, value)`` for one atom of a rule."""

    def __init__(self, atom_id: str, kind: str, desc: str):
        self.id, self.kind, self.desc = atom_id, kind, desc
        if kind == "EM":
            self.keys = frozenset(desc.split(","))
        elif kind == "SM":
            self.groups = [group.split("|") for group in desc.split(",")]
            self.needs_text = any(o for g in self.groups for o in g)
        elif kind in ("OP", "CS"):
            if ":" not in desc:
                raise ValueError(f"atom {atom_id} ({kind}): desc has no ':'")
            threshold, keys = desc.split(":", 1)
            self.threshold = float(threshold)
            self.keys = keys.split(",")
            self.best = op_best if kind == "OP" else cs_best
        else:
            raise ValueError(f"atom {atom_id}: unknown type {kind!r}")

    def __call__(self, s):
        kind = self.kind
        if kind == "EM":
            return (True, 1) if type(s) is str and s in self.keys else (False, 0)
        if type(s) is not str:
            if kind == "SM" and not self.needs_text:
                return (False, 0)
            raise TypeError(f"atom {self.id} ({kind}) needs a string, not {type(s).__name__}")
        if kind == "SM":
            count = sm_count(self.groups, s)
            return (count > 0, count)
        best = self.best(self.keys, s)
        return (True, best) if best >= self.threshold else (False, 0)


# --------------------------------------------------------------------------- combos

_FUNCTIONS = {"T": 1, "L": 1, "Q": 1, "F": 1, "S": 1, "G": 2, "M": 2, "U": 2, "A": None, "X": None}
_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Div: operator.truediv}
_COMPARE = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt,
    ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
}


_ALLOWED = (ast.Expression, ast.BoolOp, ast.And, ast.Or, ast.UnaryOp, ast.Not, ast.USub, ast.UAdd,
            ast.BinOp, ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Compare, ast.IfExp, ast.Load,
            *_COMPARE)


def check(tree: ast.AST, text: str) -> None:
    """Refuse anything outside the rule language (raises ``ValueError``)."""
    called = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant):
            ok = type(node.value) in (bool, int, float, str)
        elif isinstance(node, ast.Name):
            ok = id(node) in called and node.id in _FUNCTIONS
        elif isinstance(node, ast.Call):
            name = node.func.id if isinstance(node.func, ast.Name) else None
            arity = _FUNCTIONS.get(name, -1)
            ok = (arity != -1 and not node.keywords and not any(isinstance(a, ast.Starred) for a in node.args)
                  and (len(node.args) == arity if arity else len(node.args) >= (name == "X")))
        else:
            ok = isinstance(node, _ALLOWED)
        if not ok:
            raise ValueError(f"{text!r}: {type(node).__name__} is not part of the rule language")


class Context:
    """One answer being scored: its blanks and its atom cache."""

    __slots__ = ("_joined", "atoms", "blanks", "cache")

    def __init__(self, blanks: list, atoms: dict):
        self.blanks = blanks
        self.atoms = atoms
        self.cache = {}
        self._joined = None

    def joined(self) -> str:
        if self._joined is None:
            for i, b in enumerate(self.blanks):
                if type(b) is not str:
                    raise TypeError(f"blank {i} is not a string")
            self._joined = "".join(self.blanks)
        return self._joined

    def blank(self, n) -> str:
        if n == "*":
            return self.joined()
        if isinstance(n, str):
            raise TypeError(f"a blank is named by an int or '*', not {n!r}")
        blank = self.blanks[n]  # IndexError / TypeError: this answer's error
        if type(blank) is not str:
            raise TypeError(f"blank {n} is not a string")
        return blank

    def atom(self, k, s):
        key = (k, s)
        result = self.cache.get(key)
        if result is None:
            atom = self.atoms.get(str(k))
            if atom is None:
                raise KeyError(f"atom {str(k)!r} does not exist")
            result = self.cache[key] = atom(s)
        return result


def _call(node: ast.Call, ctx: Context):
    name = node.func.id
    args = [evaluate(arg, ctx) for arg in node.args]
    if name == "T":
        return ctx.blank(args[0])
    if name == "G":
        return ctx.atom(args[0], args[1])[0]
    if name == "M":
        return ctx.atom(args[0], args[1])[1]
    if name == "L":
        return len({ch for ch in ctx.blank(args[0]) if "\u4e00" <= ch <= "\u9fa5"})
    if name == "Q":
        if args[0] == "*":
            ctx.joined()
            return sum(1 for b in ctx.blanks if b != "" and b != "null")
        text = ctx.blank(args[0])
        return text == "" or text == "null"
    if name == "F":
        text = ctx.blank(args[0])
        if text == "null":
            return 0
        try:
            return float(text)
        except (ValueError, OverflowError):
            return 0
    if name == "S":
        return max(1, len(ctx.blank(args[0])))
    if name == "U":
        f, c = args
        return c if f >= c else f
    if name == "A":
        return sum(1 for a in args if a)
    if name == "X":
        return max(args)
    raise ValueError(f"unknown function {name}")


def _boolop(node: ast.BoolOp, ctx: Context):
    if isinstance(node.op, ast.And):
        for operand in node.values:
            value = evaluate(operand, ctx)
            if not value:
                return value
        return value
    for operand in node.values:
        value = evaluate(operand, ctx)
        if value:
            return value
    return value


def _binop(node: ast.BinOp, ctx: Context):
    left, right = evaluate(node.left, ctx), evaluate(node.right, ctx)
    if isinstance(node.op, ast.Mult):
        if type(left) is str or type(right) is str:
            raise TypeError("strings cannot be multiplied")
        return left * right
    return _BINARY[type(node.op)](left, right)


def _unary(node: ast.UnaryOp, ctx: Context):
    value = evaluate(node.operand, ctx)
    if isinstance(node.op, ast.Not):
        return not value
    return -value if isinstance(node.op, ast.USub) else +value


def _compare(node: ast.Compare, ctx: Context):
    left = evaluate(node.left, ctx)
    result = True
    for op, operand in zip(node.ops, node.comparators):
        right = evaluate(operand, ctx)
        result = _COMPARE[type(op)](left, right)
        if not result:
            return result
        left = right
    return result


def _ifexp(node: ast.IfExp, ctx: Context):
    return evaluate(node.body, ctx) if evaluate(node.test, ctx) else evaluate(node.orelse, ctx)


_DISPATCH = {
    ast.Constant: lambda node, ctx: node.value,
    ast.Call: _call,
    ast.BoolOp: _boolop,
    ast.BinOp: _binop,
    ast.UnaryOp: _unary,
    ast.Compare: _compare,
    ast.IfExp: _ifexp,
}


def evaluate(node: ast.AST, ctx: Context):
    """The value of an expression node for one answer (Python semantics)."""
    return _DISPATCH[type(node)](node, ctx)


# --------------------------------------------------------------------------- rules


class Rule:
    """A rule ready to score: ``Rule(dict | JSON text | path)``."""

    def __init__(self, source):
        if isinstance(source, Path):
            source = source.read_text(encoding="utf-8")
        if isinstance(source, str):
            source = json.loads(source)
        self.atoms = {str(aid): Atom(str(aid), a["type"], a["desc"]) for aid, a in source["atoms"].items()}
        self.combo_mode = source.get("comboMode", "ADD")
        if self.combo_mode not in ("ADD", "MAX"):
            raise ValueError(f"comboMode {self.combo_mode!r}")
        self.combos = []
        for cid, c in source["combos"].items():
            tree = ast.parse(c["combo"].strip(), mode="eval")
            check(tree, c["combo"])
            if c["mode"] not in ("logic", "value"):
                raise ValueError(f"combo {cid}: mode {c['mode']!r}")
            if type(c["score"]) not in (int, float):
                raise ValueError(f"combo {cid}: score {c['score']!r}")
            self.combos.append((cid, tree.body, c["score"], c["mode"]))
        self.combo_ids = [cid for cid, *_ in self.combos]
        if self.combo_mode == "MAX" and not self.combos:
            raise ValueError("MAX needs a combo")

    def score(self, blanks: list):
        """``(score, combos, error)``: the clamped total as a float (NaN on error), each combo's
        result in rule order (the ones that completed), and the error message or ``None``."""
        ctx = Context(blanks, self.atoms)
        results = []
        try:
            for _cid, tree, score, mode in self.combos:
                value = evaluate(tree, ctx)
                if mode == "logic":
                    results.append(score if value else 0)
                else:
                    if type(value) is str:
                        raise TypeError("a value-mode combo must give a number")
                    results.append(value * score)
            if self.combo_mode == "ADD":
                total = 0
                for r in results:
                    total = total + r
            else:
                total = max(results)
            if isinstance(total, float) and math.isnan(total):
                raise ValueError("the total is NaN")
        except Exception as exc:  # one answer's failure never stops the batch
            return math.nan, results, f"{type(exc).__name__}: {exc}"
        return float(0 if total < 0 else 10 if total > 10 else total), results, None

    def score_many(self, answers):
        """``(scores, errors, combos)`` for a list of answers, like coscore's Batch."""
        n = len(answers)
        scores = np.full(n, np.nan)
        errors = [None] * n
        combos = {cid: np.full(n, np.nan) for cid in self.combo_ids}
        columns = [combos[cid] for cid in self.combo_ids]
        for i, blanks in enumerate(answers):
            score, results, error = self.score(blanks)
            scores[i] = score
            errors[i] = error
            for column, r in zip(columns, results):
                column[i] = _as_float(r)
        return scores, errors, combos


def _as_float(value) -> float:
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def compare(batch, expected) -> list[str]:
    """Differences between a coscore Batch and ``Rule.score_many``'s result (empty: equal)."""
    scores, errors, combos = expected
    problems = []
    if len(batch.scores) != len(scores):
        return [f"{len(batch.scores)} results, expected {len(scores)}"]
    same = (batch.scores == scores) | (np.isnan(batch.scores) & np.isnan(scores))
    failed = np.array([e is not None for e in batch.errors], dtype=bool)
    expect_failed = np.array([e is not None for e in errors], dtype=bool)
    for i in np.flatnonzero(~same | (failed != expect_failed))[:5]:
        problems.append(f"answer {i}: coscore {batch.scores[i]!r} ({batch.errors[i]}), "
                        f"baseline {scores[i]!r} ({errors[i]})")
    for cid, values in combos.items():
        got = batch.combos.get(cid)
        if got is None or len(got) != len(values):
            problems.append(f"combo {cid}: missing")
            continue
        bad = ~((got == values) | (np.isnan(got) & np.isnan(values)))
        for i in np.flatnonzero(bad)[:3]:
            problems.append(f"answer {i}, combo {cid}: coscore {got[i]!r}, baseline {values[i]!r}")
    return problems
