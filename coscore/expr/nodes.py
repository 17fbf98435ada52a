"""The checked syntax tree of a combo expression.

Every node carries ``col``, the 1-based character column of the construct in the
combo text, and ``depth``, its nesting depth (1 for a leaf). Chains of one
precedence level are flat: ``a + b - c`` is one :class:`Arith`, ``a < b <= c`` one
:class:`Compare`, ``a and b and c`` one :class:`BoolOp`.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

#: Operators of the rule language and their number of arguments (``None``: any, ``X`` needs one).
OPERATOR_ARITY: dict[str, tuple[int, int | None]] = {
    "T": (1, 1), "L": (1, 1), "Q": (1, 1), "F": (1, 1), "S": (1, 1),
    "G": (2, 2), "M": (2, 2), "U": (2, 2),
    "A": (0, None), "X": (1, None),
}
#: Operators whose single argument names a blank (an int or ``'*'``).
BLANK_OPERATORS = frozenset("TLQFS")
#: Operators whose first argument names an atom.
ATOM_OPERATORS = frozenset("GM")

Value = bool | int | float | str


@dataclass(frozen=True, slots=True, kw_only=True)
class _Node:
    """What every node carries (keywords, after the node's own fields)."""

    col: int
    depth: int = 1


@dataclass(frozen=True, slots=True)
class Const(_Node):
    value: Value


@dataclass(frozen=True, slots=True)
class Call(_Node):
    op: str
    args: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Unary(_Node):
    op: str  # "-", "+", "not"
    operand: Node


@dataclass(frozen=True, slots=True)
class Chain(_Node):
    """``first (op operand)*``: operators of one precedence level, kept flat; each item of
    ``rest`` is ``(operator, operand, column of the operator)``."""

    first: Node
    rest: tuple[tuple[str, Node, int], ...]


class Arith(Chain):
    """``+ - * /`` of one precedence level, folded left."""

    __slots__ = ()


class Compare(Chain):
    """A comparison chain ``first op1 x1 op2 x2 …`` (Python's chained comparison)."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class BoolOp(_Node):
    op: str  # "and" | "or"
    operands: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class IfExp(_Node):
    then: Node
    cond: Node
    orelse: Node


Node = Const | Call | Unary | Arith | BoolOp | Compare | IfExp


def literal_value(node: Node) -> Value:
    """The value of ``node``, a :class:`Const`: the literal argument of an operator that
    names a blank or an atom (the parser and the checks see that it is one)."""
    if not isinstance(node, Const):
        raise TypeError(f"not a literal: {node!r}")
    return node.value


def children(node: Node) -> tuple[Node, ...]:
    """The direct sub-expressions of ``node``, in evaluation order."""
    if isinstance(node, Const):
        return ()
    if isinstance(node, Call):
        return node.args
    if isinstance(node, Unary):
        return (node.operand,)
    if isinstance(node, Chain):
        return (node.first, *(operand for _, operand, _ in node.rest))
    if isinstance(node, BoolOp):
        return node.operands
    return (node.cond, node.then, node.orelse)


def walk(node: Node) -> Iterator[Node]:
    """Every node of the tree, parents before children (iterative: no recursion limit)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(children(current)))
