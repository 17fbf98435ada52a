"""Evaluating a combo for one answer: the reference path, with Python's own semantics.

A checked tree is turned once into nested closures; evaluating them on an
:class:`Answer` applies Python's operators to plain Python values, so ``bool`` is an
``int``, ``and``/``or`` return an operand, comparisons chain, and an operand that is not
evaluated raises nothing — exactly as the original engine's ``eval`` did. Errors are
ordinary Python exceptions (``ZeroDivisionError``, ``TypeError``, ``IndexError``,
``KeyError``, ``OverflowError``) with readable messages.

Each answer has the original's per-answer caches (``T L Q F U`` by argument, atoms by
``(id, text)``): they are observable only in the types and signs of results (``U(1, 2)``
then ``U(1.0, 2)`` gives the cached ``1``), which the compatible API reproduces.

Each answer is also held to the answer budgets of its :class:`~coscore.limits.Limits`:
the characters its ``+`` and ``*`` build, its distinct atom calls and their kernel work
are counted, and the step that would go over raises
:class:`~coscore.limits.BudgetExceeded` before it allocates or runs anything.
"""
from __future__ import annotations

import math
import operator
import sys
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

from ..errors import CoscoreError
from ..limits import DEFAULT_LIMITS, BudgetExceeded, Limits
from .nodes import Arith, BoolOp, Call, Compare, Const, IfExp, Node, Unary

#: A compiled combo: the value of its expression for one answer (any of the language's
#: values: bool, int, float or str, with Python's semantics).
Evaluator = Callable[["Answer"], Any]
#: An atom, prepared: ``atom(text) -> (hit, value, ...)``.
AtomCall = Callable[[Any], tuple[Any, ...]]


class Answer:
    """One answer being scored: its blanks, the rule's atoms, the per-answer caches and
    what is left of the answer's budgets."""

    __slots__ = ("blanks", "atoms", "manual", "trace", "limits", "_built_left", "_calls_left", "_work_left",
                 "_joined", "_t", "_l", "_q", "_f", "_u", "_gm")

    def __init__(self, blanks: Sequence[Any], atoms: Mapping[str, AtomCall], manual: bool = False,
                 trace: list[tuple[Any, ...]] | None = None, limits: Limits = DEFAULT_LIMITS) -> None:
        self.blanks = blanks
        self.atoms = atoms
        self.manual = manual
        self.trace = trace
        self.limits = limits
        self._built_left = limits.max_built_chars
        self._calls_left = limits.max_atom_calls
        self._work_left = limits.max_work
        self._joined: str | None = None
        self._t: dict[Any, Any] = {}
        self._l: dict[Any, Any] = {}
        self._q: dict[Any, Any] = {}
        self._f: dict[Any, Any] = {}
        self._u: dict[Any, Any] = {}
        self._gm: dict[Any, tuple[Any, ...]] = {}

    # -- blanks ----------------------------------------------------------------------
    def joined(self) -> str:
        if self._joined is None:
            for i, blank in enumerate(self.blanks):
                if type(blank) is not str:
                    raise TypeError(f"blank {i} is {type(blank).__name__}, not a string")
            self._joined = "".join(self.blanks)
        return self._joined

    def blank(self, n: Any) -> str:
        """``T(n)`` without the cache: blank ``n``, or all blanks joined for ``'*'``."""
        if n == "*":
            return self.joined()
        if isinstance(n, str):
            raise TypeError(f"a blank is named by an int or '*', not {n!r}")
        try:
            blank = self.blanks[n]
        except IndexError:
            count = len(self.blanks)
            raise IndexError(f"blank {n} does not exist (the answer has {count} blank{'s' * (count != 1)})") from None
        except TypeError:
            raise TypeError(f"a blank is named by an int or '*', not {n!r}") from None
        if type(blank) is not str:
            raise TypeError(f"blank {n} is {type(blank).__name__}, not a string")
        return blank

    def T(self, n: Any) -> Any:
        return _cached(self._t, n, self.blank)

    def L(self, n: Any) -> Any:
        return _cached(self._l, n, self._length)

    def Q(self, n: Any) -> Any:
        return _cached(self._q, n, self._empty)

    def F(self, n: Any) -> Any:
        return _cached(self._f, n, self._number)

    def S(self, n: Any) -> int:
        return max(1, len(self.blank(n)))

    def U(self, f: Any, c: Any) -> Any:
        return _cached(self._u, (f, c), _smaller)

    def _length(self, n: Any) -> int:
        text = self.blank(n)
        if not self.manual:
            return cjk_count(text)
        if n == "*":
            return sum(0 if b == "null" else len(b) for b in self.blanks)
        return 0 if text == "null" else len(text)

    def _empty(self, n: Any) -> int | bool:
        if n == "*":
            self.joined()  # every blank must be a string
            return sum(1 for b in self.blanks if b != "null" and b != "")
        text = self.blank(n)
        return text == "null" or text == ""

    def _number(self, n: Any) -> float | int:
        text = self.blank(n)
        return 0 if text == "null" else to_float(text)

    # -- budgets ---------------------------------------------------------------------
    def build(self, size: int) -> None:
        """Count ``size`` characters about to be built; over budget, raise first."""
        self._built_left -= size
        if self._built_left < 0:
            raise BudgetExceeded("max_built_chars", self.limits.max_built_chars)

    def _over_calls(self) -> BudgetExceeded:
        if self._calls_left < 0:
            return BudgetExceeded("max_atom_calls", self.limits.max_atom_calls)
        return BudgetExceeded("max_work", self.limits.max_work)

    # -- atoms -----------------------------------------------------------------------
    def atom(self, k: Any, s: Any) -> tuple[Any, ...]:
        key = (k, s)
        try:
            result = self._gm[key]
        except KeyError:
            atom_id = str(k)
            atom = self.atoms.get(atom_id)
            if atom is None:
                raise KeyError(f"atom {atom_id!r} does not exist") from None
            # a new call: one more cache entry, and its kernel work, counted before it runs
            self._calls_left -= 1
            self._work_left -= (len(s) + 1 if type(s) is str else 1) * getattr(atom, "work", 1)
            if self._calls_left < 0 or self._work_left < 0:
                raise self._over_calls() from None
            result = self._gm[key] = atom(s)
        except TypeError:  # unhashable cannot happen with rule values; keep the message clear
            raise TypeError(f"cannot call an atom with {type(s).__name__}") from None
        return result

    def G(self, k: Any, s: Any) -> Any:
        hit = self.atom(k, s)[0]
        if self.trace is not None:
            self.trace.append(("G", str(k), s, *self.atom(k, s)))
        return hit

    def M(self, k: Any, s: Any) -> Any:
        value = self.atom(k, s)[1]
        if self.trace is not None:
            self.trace.append(("M", str(k), s, *self.atom(k, s)))
        return value


_MISSING = object()


def _cached(cache: dict[Any, Any], key: Hashable, compute: Callable[[Any], Any]) -> Any:
    """``cache[key]``; the first time, ``compute(key)``, kept (a failure keeps nothing)."""
    value = cache.get(key, _MISSING)
    if value is _MISSING:
        value = cache[key] = compute(key)
    return value


def _smaller(pair: tuple[Any, Any]) -> Any:
    """``U``: ``c if f >= c else f`` of the pair ``(f, c)``."""
    f, c = pair
    return c if f >= c else f


def cjk_count(text: str) -> int:
    """The number of distinct characters in U+4E00..U+9FA5 (what ``L`` counts)."""
    return len({ch for ch in text if "\u4e00" <= ch <= "\u9fa5"})


def to_float(text: str) -> float | int:
    """``float(text)``, or int ``0`` when Python's ``float()`` rejects it (as ``F`` does)."""
    try:
        return float(text)
    except (ValueError, OverflowError):
        return 0


#: The longest string ``+`` or ``*`` may build (code points): a rule cannot make an answer allocate more.
MAX_TEXT = 10_000_000


def _add(a: Any, b: Any, answer: Answer | None) -> Any:
    """Python's ``+``; joining strings is bounded (:data:`MAX_TEXT`, the answer's budget)."""
    if type(a) is str and type(b) is str:
        size = len(a) + len(b)
        if size > MAX_TEXT:
            raise ValueError(f"joining these strings would exceed {MAX_TEXT:,} characters")
        if answer is not None:
            answer.build(size)
    return a + b


def _multiply(a: Any, b: Any, answer: Answer | None) -> Any:
    """Python's ``*``; a string repeated by an int or bool is bounded like ``+``."""
    if type(a) is str:
        text, count = a, b
    elif type(b) is str:
        text, count = b, a
    else:
        return a * b
    if type(count) in (int, bool) and -sys.maxsize - 1 <= count <= sys.maxsize:
        size = len(text) * count
        if size > MAX_TEXT:
            raise ValueError(f"repeating this string would exceed {MAX_TEXT:,} characters")
        if answer is not None and size > 0:
            answer.build(size)
    return a * b  # Python's own result, or its error (str * str, str * float, a count beyond an index)


def _subtract(a: Any, b: Any, answer: Answer | None) -> Any:
    return a - b


def _divide(a: Any, b: Any, answer: Answer | None) -> Any:
    return a / b


_BINARY: dict[str, Callable[[Any, Any, Answer | None], Any]] = {"+": _add, "-": _subtract, "*": _multiply, "/": _divide}
#: The operators whose result does not depend on the answer's budgets.
_PLAIN: dict[str, Callable[[Any, Any], Any]] = {"-": operator.sub, "/": operator.truediv}
_COMPARE: dict[str, Callable[[Any, Any], Any]] = {
    "==": operator.eq, "!=": operator.ne, "<": operator.lt,
    "<=": operator.le, ">": operator.gt, ">=": operator.ge,
}


class OperandError(CoscoreError, TypeError):
    """A ``TypeError`` of one of Python's operators as an explaining evaluation
    (``compile_tree(…, explain=True)``) raises it: ``node`` is the rule's expression that
    failed, ``index`` the place of the operator in a chain (``None`` for a call or a unary
    operator), ``values`` the operands it was given; ``str()`` is still Python's message."""

    def __init__(self, exc: TypeError, node: Node, index: int | None, values: tuple[Any, ...]) -> None:
        super().__init__(*exc.args)
        self.node, self.index, self.values = node, index, values


def _explaining(apply: Callable[..., Any], node: Node, index: int | None) -> Callable[..., Any]:
    """``apply`` (an operator of ``node``, taking the operands and maybe the answer),
    whose ``TypeError`` becomes an :class:`OperandError` naming ``node``; the operands are
    evaluated before it is called, so only the operator's own failure is caught."""
    def explained(*operands: Any) -> Any:
        try:
            return apply(*operands)
        except OperandError:
            raise
        except TypeError as exc:
            values = operands[:-1] if operands and isinstance(operands[-1], Answer) else operands
            raise OperandError(exc, node, index, values) from None

    return explained


def compile_tree(node: Node, explain: bool = False) -> Evaluator:
    """A function ``f(answer) -> value`` evaluating ``node`` with Python semantics.

    With ``explain``, the same evaluation, but a ``TypeError`` of one of Python's
    operators (ordering text against a number, ``-`` of a text…) is raised as an
    :class:`OperandError` naming the expression that failed (for
    :mod:`coscore.expr.failures`; a little slower, so only used again on an answer that
    failed)."""
    if isinstance(node, Const):
        value = node.value
        return lambda a: value
    if isinstance(node, Call):
        return _compile_call(node, explain)
    if isinstance(node, Unary):
        inner = compile_tree(node.operand, explain)
        if node.op == "not":
            return lambda a: not inner(a)
        if explain:
            sign = _explaining(operator.neg if node.op == "-" else operator.pos, node, None)
            return lambda a: sign(inner(a))
        if node.op == "-":
            return lambda a: -inner(a)
        return lambda a: +inner(a)
    if isinstance(node, Arith):
        first = compile_tree(node.first, explain)
        rest = tuple((_explaining(_BINARY[op], node, i) if explain else _BINARY[op], compile_tree(operand, explain))
                     for i, (op, operand, _) in enumerate(node.rest))
        if len(rest) == 1:
            (op, _, _), = node.rest
            (apply, second), = rest
            if op in _PLAIN and not explain:
                plain = _PLAIN[op]
                return lambda a: plain(first(a), second(a))
            return lambda a: apply(first(a), second(a), a)

        def arith(a: Answer) -> Any:
            acc = first(a)
            for apply, operand in rest:
                acc = apply(acc, operand(a), a)
            return acc

        return arith
    if isinstance(node, Compare):
        first = compile_tree(node.first, explain)
        links = tuple((_explaining(_COMPARE[op], node, i) if explain else _COMPARE[op], compile_tree(operand, explain))
                      for i, (op, operand, _) in enumerate(node.rest))
        if len(links) == 1:
            (test, second), = links
            return lambda a: test(first(a), second(a))

        def chain(a: Answer) -> Any:
            left = first(a)
            result = True
            for test, operand in links:
                right = operand(a)
                result = test(left, right)
                if not result:
                    return result
                left = right
            return result

        return chain
    if isinstance(node, BoolOp):
        operands = tuple(compile_tree(operand, explain) for operand in node.operands)
        if node.op == "and":
            def conjunction(a: Answer) -> Any:
                for operand in operands:
                    value = operand(a)
                    if not value:
                        return value
                return value

            return conjunction

        def disjunction(a: Answer) -> Any:
            for operand in operands:
                value = operand(a)
                if value:
                    return value
            return value

        return disjunction
    if isinstance(node, IfExp):
        then, cond, orelse = (compile_tree(node.then, explain), compile_tree(node.cond, explain),
                              compile_tree(node.orelse, explain))
        return lambda a: then(a) if cond(a) else orelse(a)
    raise TypeError(f"not an expression node: {node!r}")


def constant_value(node: Node) -> Any:
    """The value of ``node``, an expression that reads nothing of an answer (no blank, no
    atom): Python's own error where it fails."""
    return compile_tree(node)(None)  # type: ignore[arg-type]  # nothing of the answer is read


def _compile_call(node: Call, explain: bool = False) -> Evaluator:
    op = node.op
    args = tuple(compile_tree(arg, explain) for arg in node.args)
    if op in "TLQFS":
        method = getattr(Answer, op)
        (arg,) = node.args
        if isinstance(arg, Const):
            n = arg.value
            return lambda a: method(a, n)
        (inner,) = args
        return lambda a: method(a, inner(a))
    if op in "GMU":
        method = getattr(Answer, op)
        first, second = args
        if explain and op == "U":
            smaller = _explaining(lambda f, c, a: a.U(f, c), node, None)
            return lambda a: smaller(first(a), second(a), a)
        if isinstance(node.args[0], Const):
            k = node.args[0].value
            return lambda a: method(a, k, second(a))
        return lambda a: method(a, first(a), second(a))
    if op == "A":
        return lambda a: sum(1 for arg in args if arg(a))
    if op == "X":
        if explain:
            largest = _explaining(max, node, None)
            return lambda a: largest([arg(a) for arg in args])
        if len(args) == 1:
            (only,) = args
            return lambda a: max((only(a),))
        return lambda a: max([arg(a) for arg in args])
    raise TypeError(f"unknown operator {op}")  # the parser refuses these


def combo_result(value: Any, score: float, mode: str) -> Any:
    """A combo's contribution: ``score`` or int 0 in logic mode, ``value * score`` in value mode."""
    if mode == "logic":
        return score if value else 0
    if type(value) is str:
        raise TypeError("a value-mode combo must give a number, not a string")
    return value * score


def total(results: list[Any], combo_mode: str, add: Callable[[list[Any]], Any] | None = None) -> Any:
    """ADD: the left-to-right sum from int 0 (or ``add(results)``, e.g. the interpreter's
    own ``sum``); MAX: the first maximum; then clamped to [0, 10]."""
    if combo_mode == "ADD" and add is not None:
        result = add(results)
    elif combo_mode == "ADD":
        result = 0
        for value in results:
            result = result + value
    else:
        result = max(results)
    if isinstance(result, float) and math.isnan(result):
        raise ValueError("the total is NaN")
    return 0 if result < 0 else (10 if result > 10 else result)
