"""Parsing combo text into a checked tree, without recursion and within fixed bounds.

The grammar is the subset of Python expressions the rule language has: literals,
``True``/``False``, calls of the operators ``T L Q F S G M U A X``, unary ``- + not``,
``* /``, ``+ -``, comparison chains, ``and``/``or`` and ``a if b else c``, with Python's
precedence. The parser is an operator-precedence (shunting-yard) parser with explicit
stacks, so a hostile text can exhaust neither the Python stack nor time: the text length
and bracket depth are bounded before parsing, and the tree depth while it is built.
"""
from __future__ import annotations

from dataclasses import dataclass

from .nodes import (
    ATOM_OPERATORS,
    BLANK_OPERATORS,
    OPERATOR_ARITY,
    Arith,
    BoolOp,
    Call,
    Compare,
    Const,
    IfExp,
    Node,
    Unary,
    walk,
)
from .tokens import ExprSyntaxError, Token, tokenize

#: Longest combo text accepted, in characters.
MAX_LENGTH = 10_000
#: Deepest nesting accepted: brackets before parsing, and the depth of the tree.
MAX_DEPTH = 100

# Precedence levels, lowest first (Python's order).
_IF, _OR, _AND, _NOT, _CMP, _ADD, _MUL, _NEG = range(8)
_BINARY_LEVEL = {
    "or": _OR, "and": _AND,
    "==": _CMP, "!=": _CMP, "<": _CMP, "<=": _CMP, ">": _CMP, ">=": _CMP,
    "+": _ADD, "-": _ADD, "*": _MUL, "/": _MUL,
}
_REFUSED_OPERATORS = {
    "**": "the power operator '**' is not in the rule language",
    "//": "floor division '//' is not in the rule language (use '/')",
    "%": "the operator '%' is not in the rule language",
    "@": "the operator '@' is not in the rule language",
    "&": "the operator '&' is not in the rule language (use 'and')",
    "|": "the operator '|' is not in the rule language (use 'or')",
    "^": "the operator '^' is not in the rule language",
    "<<": "shift operators are not in the rule language",
    ">>": "shift operators are not in the rule language",
    "~": "the operator '~' is not in the rule language (use 'not')",
    ".": "attribute access is not allowed",
    "[": "subscripts and list literals are not allowed",
    "{": "dict and set literals are not allowed",
    ":=": "assignment expressions (':=') are not allowed",
    "=": "'=' is not allowed (to compare, use '==')",
    ":": "unexpected ':' (slices, lambdas and annotations are not in the rule language)",
    ";": "unexpected ';' (a combo is a single expression)",
    "->": "unexpected '->'",
    "!": "unexpected '!' (to compare, use '!=', for negation 'not')",
}
_REFUSED_KEYWORDS = {
    "None": "'None' is not in the rule language",
    "lambda": "lambda is not allowed",
    "in": "the operator 'in' is not in the rule language",
    "is": "the operator 'is' is not in the rule language (use '==')",
    "for": "comprehensions are not allowed",
    "async": "comprehensions are not allowed",
    "await": "'await' is not allowed",
    "yield": "'yield' is not allowed",
}
_KEYWORDS = frozenset({"and", "or", "not", "if", "else", "True", "False"}) | frozenset(_REFUSED_KEYWORDS)


@dataclass(frozen=True, slots=True)
class Problem:
    """One problem in one combo text: ``message`` at a 1-based ``column`` (or ``None``)."""

    message: str
    column: int | None


@dataclass(slots=True)
class _Op:
    kind: str  # "bin" | "prefix" | "if" | "else" | "group" | "call"
    text: str
    level: int
    col: int
    args: int = 0  # calls: arguments completed so far


def parse(text: str, atom_ids: frozenset[str] | set[str] | None = None) -> Node:
    """Parse and check one combo expression.

    ``atom_ids``, when given, are the ids ``G``/``M`` may name with a literal.
    Raises :class:`ExprSyntaxError` (message and column) for the first problem.
    """
    if not isinstance(text, str):
        raise ExprSyntaxError("the combo must be a string", 1)
    if len(text) > MAX_LENGTH:
        raise ExprSyntaxError(f"the expression is longer than {MAX_LENGTH:,} characters ({len(text):,})", 1)
    tokens = tokenize(text)
    _check_brackets(tokens)
    tree = _Parser(tokens).parse()
    _check(tree, atom_ids)
    return tree


def _check_brackets(tokens: list[Token]) -> None:
    depth = 0
    for token in tokens:
        if token.kind == "op" and token.text in "([{":
            depth += 1
            if depth > MAX_DEPTH:
                raise ExprSyntaxError(f"brackets nest deeper than {MAX_DEPTH} levels", token.col)
        elif token.kind == "op" and token.text in ")]}":
            depth -= 1


class _Parser:
    def __init__(self, tokens: list[Token]):
        self.tokens = tokens
        self.pos = 0
        self.ops: list[_Op] = []
        self.vals: list[Node] = []
        # nodes written in parentheses, by id (holding the node keeps its id from being reused)
        self.grouped: dict[int, Node] = {}

    # -- driving loop ---------------------------------------------------------------
    def parse(self) -> Node:
        expect_operand = True
        while True:
            token = self.tokens[self.pos]
            self.pos += 1
            if expect_operand:
                expect_operand = self._operand(token)
            elif token.kind == "end":
                self._reduce_frame()
                if self.ops:
                    opener = self.ops[-1]
                    name = opener.text if opener.kind == "call" else ""
                    raise ExprSyntaxError(f"'{name}(' was never closed", opener.col)
                (tree,) = self.vals
                return tree
            else:
                expect_operand = self._operator(token)

    def _operand(self, token: Token) -> bool:
        """Handle a token where an operand is expected; return whether one is still expected."""
        kind, text, col = token.kind, token.text, token.col
        if kind in ("num", "str"):
            assert token.value is not None  # a literal's
            self.vals.append(Const(token.value, col=col))
            return False
        if kind == "name":
            if text in ("True", "False"):
                self.vals.append(Const(text == "True", col=col))
                return False
            if text == "not":
                top = self._top()
                if top is not None and top.kind in ("bin", "prefix") and top.level >= _CMP:
                    raise ExprSyntaxError(f"'not' cannot follow '{top.text}' without parentheses", col)
                self.ops.append(_Op("prefix", "not", _NOT, col))
                return True
            if text in OPERATOR_ARITY:
                following = self.tokens[self.pos]
                if following.text != "(" or following.kind != "op":
                    raise ExprSyntaxError(f"operator '{text}' must be called, as in {text}(…)", col)
                self.pos += 1
                if self.tokens[self.pos].text == ")" and self.tokens[self.pos].kind == "op":
                    self.pos += 1
                    self.vals.append(Call(text, (), col=col))
                    return False
                self.ops.append(_Op("call", text, -1, col))
                return True
            if text in _REFUSED_KEYWORDS:
                raise ExprSyntaxError(_REFUSED_KEYWORDS[text], col)
            if text in _KEYWORDS:
                raise ExprSyntaxError(f"expected an operand, found '{text}'", col)
            following = self.tokens[self.pos]
            if following.kind == "op" and following.text == "(":
                raise ExprSyntaxError(f"unknown operator '{text}'", col)
            if following.kind == "op" and following.text == ":=":
                raise ExprSyntaxError(_REFUSED_OPERATORS[":="], following.col)
            raise ExprSyntaxError(f"unknown name '{text}'", col)
        if kind == "end":
            raise ExprSyntaxError("unexpected end of expression", col)
        # operators
        if text == "(":
            self.ops.append(_Op("group", "(", -1, col))
            return True
        if text in ("-", "+"):
            self.ops.append(_Op("prefix", text, _NEG, col))
            return True
        if text == ")":
            top = self._top_any()
            if top is not None and top.kind == "call" and top.args > 0:  # trailing comma: T(0,)
                self._finish_call()
                return False
            if top is not None and top.kind == "group" and self.tokens[self.pos - 2].text == "(":
                raise ExprSyntaxError("empty parentheses '()'", top.col)
            raise ExprSyntaxError("expected an operand before ')'", col)
        if text in ("*", "**"):
            raise ExprSyntaxError("starred arguments are not allowed", col)
        if text in _REFUSED_OPERATORS:
            raise ExprSyntaxError(_REFUSED_OPERATORS[text], col)
        raise ExprSyntaxError(f"expected an operand, found '{text}'", col)

    def _operator(self, token: Token) -> bool:
        """Handle a token where an operator is expected; return whether an operand follows."""
        kind, text, col = token.kind, token.text, token.col
        if (kind == "name" and text in ("and", "or")) or (kind == "op" and text in _BINARY_LEVEL):
            level = _BINARY_LEVEL[text]
            self._reduce(level)
            self.ops.append(_Op("bin", text, level, col))
            return True
        if kind == "name" and text == "if":
            self._reduce(_IF + 1)
            top = self._top()
            if top is not None and top.kind == "if":
                raise ExprSyntaxError("expected 'else' before another 'if' (add parentheses)", col)
            self.ops.append(_Op("if", "if", _IF, col))
            return True
        if kind == "name" and text == "else":
            self._reduce(_IF + 1)
            top = self._top()
            if top is None or top.kind != "if":
                raise ExprSyntaxError("'else' without 'if'", col)
            top.kind = "else"
            return True
        if kind == "op" and text == ",":
            top = self._opener("unexpected ',' (a combo is a single expression)", col)
            if top.kind == "group":
                raise ExprSyntaxError("tuples are not in the rule language", col)
            top.args += 1
            return True
        if kind == "op" and text == ")":
            top = self._opener("unmatched ')'", col)
            if top.kind == "call":
                top.args += 1
                self._finish_call()
            else:
                self.ops.pop()
                self.grouped[id(self.vals[-1])] = self.vals[-1]
            return False
        if kind == "op" and text == "(":
            raise ExprSyntaxError("only the rule's operators can be called", col)
        if kind == "op" and text == "=" and any(op.kind == "call" for op in self.ops):
            raise ExprSyntaxError("keyword arguments are not allowed", col)
        if kind == "op" and text in _REFUSED_OPERATORS:
            raise ExprSyntaxError(_REFUSED_OPERATORS[text], col)
        if kind == "name" and text in _REFUSED_KEYWORDS:
            raise ExprSyntaxError(_REFUSED_KEYWORDS[text], col)
        shown = token.text if kind != "str" else "string"
        raise ExprSyntaxError(f"unexpected {shown!r} (missing operator?)" if kind != "str"
                              else "unexpected string (missing operator?)", col)

    # -- stacks ---------------------------------------------------------------------
    def _top(self) -> _Op | None:
        """The innermost pending operator of the current bracket frame, if any."""
        if self.ops and self.ops[-1].kind not in ("group", "call"):
            return self.ops[-1]
        return None

    def _top_any(self) -> _Op | None:
        return self.ops[-1] if self.ops else None

    def _reduce(self, min_level: int) -> None:
        """Apply pending operators of the current frame whose level is at least ``min_level``."""
        while self.ops:
            top = self.ops[-1]
            if top.kind in ("group", "call") or top.level < min_level:
                return
            if top.kind == "if":
                raise ExprSyntaxError("expected 'else' after the condition of 'if'", top.col)
            self._apply(self.ops.pop())

    def _reduce_frame(self) -> None:
        self._reduce(_IF)

    def _opener(self, unopened: str, col: int) -> _Op:
        """Apply the pending operators of the current bracket frame and return the bracket
        that opened it (a group or a call); with none open, the syntax error ``unopened``."""
        self._reduce_frame()
        if not self.ops:
            raise ExprSyntaxError(unopened, col)
        return self.ops[-1]

    def _finish_call(self) -> None:
        call = self.ops.pop()
        args = tuple(self.vals[len(self.vals) - call.args :])
        del self.vals[len(self.vals) - call.args :]
        self._push(Call(call.text, args, col=call.col, depth=1 + max((a.depth for a in args), default=0)))

    def _push(self, node: Node) -> None:
        if node.depth > MAX_DEPTH:
            raise ExprSyntaxError(f"the expression nests deeper than {MAX_DEPTH} levels", node.col)
        self.vals.append(node)

    def _apply(self, op: _Op) -> None:
        if op.kind == "prefix":
            operand = self.vals.pop()
            if op.text in "-+" and isinstance(operand, Const) and not isinstance(operand.value, str):
                # a signed number literal (T(-1)) is a constant, as Python folds it
                value = -operand.value if op.text == "-" else +operand.value
                self._push(Const(value, col=op.col))
                return
            self._push(Unary(op.text, operand, col=op.col, depth=operand.depth + 1))
            return
        if op.kind == "else":
            orelse, cond, then = self.vals.pop(), self.vals.pop(), self.vals.pop()
            depth = 1 + max(orelse.depth, cond.depth, then.depth)
            self._push(IfExp(then, cond, orelse, col=then.col, depth=depth))
            return
        right, left = self.vals.pop(), self.vals.pop()
        text, level = op.text, op.level
        if level in (_OR, _AND):
            if isinstance(left, BoolOp) and left.op == text:
                node: Node = BoolOp(text, (*left.operands, right), col=left.col, depth=max(left.depth, right.depth + 1))
            else:
                node = BoolOp(text, (left, right), col=left.col, depth=1 + max(left.depth, right.depth))
        elif level == _CMP:
            if isinstance(left, Compare) and id(left) not in self.grouped:
                node = Compare(left.first, (*left.rest, (text, right, op.col)), col=left.col,
                                   depth=max(left.depth, right.depth + 1))
            else:
                node = Compare(left, ((text, right, op.col),), col=left.col, depth=1 + max(left.depth, right.depth))
        else:
            if isinstance(left, Arith) and _BINARY_LEVEL[left.rest[0][0]] == level:  # the same level
                node = Arith(left.first, (*left.rest, (text, right, op.col)), col=left.col,
                             depth=max(left.depth, right.depth + 1))
            else:
                node = Arith(left, ((text, right, op.col),), col=left.col, depth=1 + max(left.depth, right.depth))
        self._push(node)


def _check(tree: Node, atom_ids: frozenset[str] | set[str] | None) -> None:
    """Refuse calls with the wrong number of arguments and literal arguments that cannot work."""
    for node in walk(tree):
        if not isinstance(node, Call):
            continue
        lo, hi = OPERATOR_ARITY[node.op]
        count = len(node.args)
        if count < lo or (hi is not None and count > hi):
            wanted = f"exactly {lo}" if lo == hi else f"at least {lo}"
            plural = "argument" if lo == 1 else "arguments"
            raise ExprSyntaxError(f"{node.op}() takes {wanted} {plural} ({count} given)", node.col)
        if node.op in BLANK_OPERATORS:
            arg = node.args[0]
            if isinstance(arg, Const) and not (
                arg.value == "*" or (isinstance(arg.value, int) and not isinstance(arg.value, str))
            ):
                raise ExprSyntaxError(
                    f"{node.op}() takes a blank number or '*', not {arg.value!r}", arg.col
                )
        elif node.op in ATOM_OPERATORS and atom_ids is not None:
            arg = node.args[0]
            if isinstance(arg, Const) and str(arg.value) not in atom_ids:
                known = ", ".join(sorted(atom_ids)) or "none"
                raise ExprSyntaxError(f"atom {str(arg.value)!r} does not exist (atoms: {known})", arg.col)
