"""What an expression can be, as the type pass (:mod:`coscore.expr.types`) infers it: a
:class:`Type` (the Python kinds it can have, an interval holding its numeric values,
whether its truth is known, its value when it is a constant), and how types combine under
the language's operators (the kinds of ``a op b``, the interval of a sum or a product,
whether a comparison always or never holds) -- without looking at any expression.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

#: The numeric kinds (``bool`` counts as 0/1), and every kind.
NUMBERS = frozenset({"bool", "int", "float"})
ANY = frozenset({"str"}) | NUMBERS
INF = math.inf


@dataclass(frozen=True)
class Type:
    """What an expression can be.

    ``kinds``: the Python types it may have; ``lo``/``hi``: bounds of its numeric values
    (``bool`` counts as 0/1); ``truth``: ``True``/``False`` when its truth never varies;
    ``const``: whether it is a constant, then ``value`` is it; ``tight``: whether ``lo``
    and ``hi`` are both reached by some answer (else they are only bounds).
    ``when_true``/``when_false``: the kinds it may have when its value is truthy / falsy,
    where they are fewer than ``kinds`` (``M`` of an OP atom is a float when it hits and
    the int 0 when not); ``None``: any of ``kinds``. See :attr:`split`.
    """

    kinds: frozenset[str] = ANY
    lo: float = -INF
    hi: float = INF
    truth: bool | None = None
    const: bool = False
    value: Any = None
    tight: bool = False
    when_true: frozenset[str] | None = None
    when_false: frozenset[str] | None = None

    @property
    def split(self) -> tuple[frozenset[str], frozenset[str]]:
        """The kinds it may have when truthy and when falsy."""
        return (self.kinds if self.when_true is None else self.when_true,
                self.kinds if self.when_false is None else self.when_false)

    def splitting(self, when_true: frozenset[str], when_false: frozenset[str]) -> Type:
        """This type, its value's kinds known apart by truth (kept only where they say more)."""
        if when_true == when_false == self.kinds:
            return self
        return replace(self, when_true=frozenset(when_true), when_false=frozenset(when_false))

    @property
    def name(self) -> str:
        """``str``, ``bool``, ``number`` (int/float), or a ``|``-joined union, or ``unknown``."""
        if self.kinds == ANY:
            return "unknown"
        names = ["str"] if "str" in self.kinds else []
        if "bool" in self.kinds:
            names.append("bool")
        if self.kinds & {"int", "float"}:
            names.append("number")
        return "|".join(names)


def const_type(value: Any) -> Type:
    """The type of the constant ``value``."""
    kind = "bool" if isinstance(value, bool) else type(value).__name__
    if kind == "str":
        return Type(frozenset({"str"}), truth=bool(value), const=True, value=value, tight=True)
    try:
        number = float(value)
    except OverflowError:
        number = INF if value > 0 else -INF
    if math.isnan(number):
        return Type(frozenset({kind}), truth=True, const=True, value=value)
    return Type(frozenset({kind}), number, number, bool(value), True, value, True)


def number_type(kinds: frozenset[str], lo: float, hi: float, tight: bool = False) -> Type:
    """A number of ``kinds`` within ``lo``..``hi`` (any when either is NaN), its truth
    known where the interval says it."""
    if math.isnan(lo) or math.isnan(hi):
        lo, hi = -INF, INF
    truth = None
    if lo == hi == 0:
        truth = False
    elif lo > 0 or hi < 0:
        truth = True
    return Type(kinds, lo, hi, truth, tight=tight)


#: A bool, a text, and the kinds of an int and of a float.
BOOL = number_type(frozenset({"bool"}), 0, 1, tight=True)
TEXT = Type(frozenset({"str"}))
INT, FLOAT = frozenset({"int"}), frozenset({"float"})


def union_type(types: list[Type]) -> Type:
    """The type of a value that is one of ``types``."""
    kinds = frozenset().union(*(t.kinds for t in types))
    numeric = [t for t in types if t.kinds & NUMBERS]
    lo = min((t.lo for t in numeric), default=-INF)
    hi = max((t.hi for t in numeric), default=INF)
    truths = {t.truth for t in types}
    union = Type(kinds, lo, hi, truths.pop() if len(truths) == 1 else None)
    return union.splitting(*split_union(types))


def split_union(types: list[Type]) -> tuple[frozenset[str], frozenset[str]]:
    """The kinds by truth of a value that is one of ``types``."""
    return (frozenset().union(*(t.split[0] for t in types)), frozenset().union(*(t.split[1] for t in types)))


def product_kinds(a: frozenset[str], b: frozenset[str]) -> frozenset[str]:
    """The kinds of ``x * y`` for ``x`` of kinds ``a`` and ``y`` of kinds ``b`` (failures give none)."""
    return frozenset(k for x in a for y in b if (k := arith_kind("*", x, y)) is not None)


def chained(result: Type, operands: list[Type], stop: bool) -> Type:
    """``result`` of an ``and`` (``stop`` false) or ``or`` chain of ``operands``, with its
    kinds by truth: an ``and`` is truthy only as its last operand, falsy as any of them."""
    last, any_of = operands[-1].split, split_union(operands)
    return result.splitting(*((any_of[0], last[1]) if stop else (last[0], any_of[1])))


def arith_kind(op: str, a: str, b: str) -> str | None:
    """The kind of ``a op b`` for operand kinds ``a`` and ``b``, ``None`` when it fails."""
    if a == "str" or b == "str":
        if op == "+" and a == b == "str":
            return "str"
        if op == "*" and {a, b} in ({"str", "int"}, {"str", "bool"}):
            return "str"
        return None
    if op == "/" or "float" in (a, b):
        return "float"
    return "int"


def interval(op: str, a: Type, b: Type) -> tuple[float, float]:
    """Bounds of ``a op b`` (``op``: ``+ - * /``) from the intervals of ``a`` and ``b``."""
    if op == "+":
        return a.lo + b.lo, a.hi + b.hi
    if op == "-":
        return a.lo - b.hi, a.hi - b.lo
    if op == "/" and b.lo <= 0 <= b.hi:
        return -INF, INF
    corners = []
    for x in (a.lo, a.hi):
        for y in (b.lo, b.hi):
            value = x * y if op == "*" else x / y
            if math.isnan(value):
                return -INF, INF
            corners.append(value)
    return min(corners), max(corners)


def compare_truth(op: str, a: Type, b: Type) -> bool | None:
    """Whether ``a op b`` always or never holds, judged on their numeric intervals."""
    if not (a.kinds <= NUMBERS and b.kinds <= NUMBERS):
        return None
    if op == "==":
        return False if a.hi < b.lo or b.hi < a.lo else None
    if op == "!=":
        return True if a.hi < b.lo or b.hi < a.lo else None
    if op in ("<", ">"):
        a, b = (a, b) if op == "<" else (b, a)
        return True if a.hi < b.lo else (False if a.lo >= b.hi else None)
    a, b = (a, b) if op == "<=" else (b, a)
    return True if a.hi <= b.lo else (False if a.lo > b.hi else None)
