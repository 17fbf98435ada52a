"""Why an answer failed, in the rule's terms: an operator of the rule given operands of
types it does not take (ordering text against a number, ``-`` of a text, ``X`` of text
and numbers), worded from the expression that failed, not from Python's message.

``cannot compare text with a number ('>' between T(0), a text, and 3)``

:func:`reason` words an :class:`~coscore.expr.evaluate.OperandError`, which an explaining
evaluation (``compile_tree(…, explain=True)``) raises in place of the operator's
``TypeError``; :func:`unparse` writes an expression back as a rule would spell it.
Only the words change: the answer fails exactly where and when it failed before.
"""
from __future__ import annotations

from ..diagnostics import shorten
from .evaluate import OperandError
from .nodes import Arith, BoolOp, Call, Compare, Const, IfExp, Node, Unary

__all__ = ["reason", "unparse"]

#: The longest text of one operand a reason quotes (longer ones are shortened).
OPERAND_LIMIT = 80

# precedence, loosest first: a child at the same level or looser is put in parentheses
_IF, _OR, _AND, _NOT, _COMPARE, _SUM, _PRODUCT, _SIGN, _ATOM = range(9)


def _level(node: Node) -> int:
    if isinstance(node, IfExp):
        return _IF
    if isinstance(node, BoolOp):
        return _OR if node.op == "or" else _AND
    if isinstance(node, Unary):
        return _NOT if node.op == "not" else _SIGN
    if isinstance(node, Compare):
        return _COMPARE
    if isinstance(node, Arith):
        return _SUM if node.rest[0][0] in "+-" else _PRODUCT
    return _ATOM


def unparse(node: Node) -> str:
    """``node`` written as a combo: ``T(0) > 3``, ``G(1, T('*'))``, ``-(F(0) + 1)``."""
    if isinstance(node, Const):
        return repr(node.value)
    if isinstance(node, Call):
        return f"{node.op}({', '.join(unparse(arg) for arg in node.args)})"
    level = _level(node)

    def inner(child: Node, first: bool = False) -> str:
        text = unparse(child)
        child_level = _level(child)
        # a chain of comparisons is no nesting of them: ``(1 < 2) < 3`` keeps its parentheses
        same = child_level == level and level != _ATOM and (not first or level == _COMPARE)
        tight = child_level < level or same
        return f"({text})" if tight else text

    if isinstance(node, Unary):
        return f"not {inner(node.operand, True)}" if node.op == "not" else f"{node.op}{inner(node.operand, True)}"
    if isinstance(node, (Arith, Compare)):
        return " ".join([inner(node.first, True), *(f"{op} {inner(operand)}" for op, operand, _ in node.rest)])
    if isinstance(node, BoolOp):
        return f" {node.op} ".join(inner(operand, i == 0) for i, operand in enumerate(node.operands))
    return f"{inner(node.then)} if {inner(node.cond)} else {inner(node.orelse)}"


def _kind(value: object) -> str:
    """What a value is, for a teacher: text, a number, a truth value."""
    if isinstance(value, str):
        return "text"
    if isinstance(value, bool):
        return "a truth value"
    if isinstance(value, (int, float)):
        return "a number"
    return f"a {type(value).__name__}"


def _shown(node: Node, value: object) -> str:
    """An operand as a reason quotes it: its expression, and what it gave unless it is a
    literal (``T(0), a text``; ``3``)."""
    text = shorten(unparse(node), OPERAND_LIMIT)
    if isinstance(node, Const):
        return text
    kind = _kind(value)
    return f"{text}, {'a text' if kind == 'text' else kind}"


def _pair(left: str, right: str) -> str:
    """``T(0), a text, and 3``; ``3 and T(0), a text``."""
    return f"{left}, and {right}" if "," in left else f"{left} and {right}"


_VERBS = {"+": ("add", "and"), "-": ("subtract", "from"), "*": ("multiply", "by"), "/": ("divide", "by")}


def reason(error: OperandError) -> str:
    """Why the operator of ``error.node`` failed, in the rule's terms (one line)."""
    node, values = error.node, error.values
    if isinstance(node, (Arith, Compare)) and error.index is not None and len(values) == 2:
        op, right, _ = node.rest[error.index]
        if isinstance(node, Compare):
            left: Node = node.first if error.index == 0 else node.rest[error.index - 1][1]
        else:  # a fold: the left operand is everything before the operator
            left = node.first if error.index == 0 else Arith(node.first, node.rest[:error.index], col=node.col)
        a, b = values
        between = f"'{op}' between {_pair(_shown(left, a), _shown(right, b))}"
        if isinstance(node, Compare):
            return f"cannot compare {_kind(a)} with {_kind(b)} ({between})"
        count = b if isinstance(a, str) else a
        if op == "*" and isinstance(a, str) != isinstance(b, str) and isinstance(count, float):
            return f"text repeats only by a whole number, not by a decimal number ({between})"
        verb, joint = _VERBS[op]
        first, second = (b, a) if op == "-" else (a, b)
        return f"cannot {verb} {_kind(first)} {joint} {_kind(second)} ({between})"
    if isinstance(node, Unary):
        (value,) = values
        what = "negate" if node.op == "-" else "take '+' of"
        return f"cannot {what} {_kind(value)} ('{node.op}' of {_shown(node.operand, value)})"
    if isinstance(node, Call) and node.op in "XU":
        operands = values[0] if node.op == "X" else values
        kinds = list(dict.fromkeys(_kind(v) for v in operands))
        shown = [_shown(arg, v) for arg, v in zip(node.args, operands)]
        if node.op == "U":
            doing = f"U compares {shown[0]}{',' * (',' in shown[0])} with {shown[1]}"
        else:
            doing = f"X takes the largest of {', '.join(shown[:-1])}, and {shown[-1]}" if len(shown) > 2 \
                else f"X takes the larger of {_pair(*shown)}"
        return f"cannot compare {' with '.join(kinds[:2])} ({doing})"
    return str(error).splitlines()[0] if str(error) else "TypeError"
