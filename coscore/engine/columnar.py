"""The vectorised evaluator: combos evaluated over a whole chunk of distinct answers.

Each node of a combo becomes one operation over a column (a float64 array for numbers
and booleans, a list for strings), so a chunk costs a few array passes per node
instead of a Python call per node per answer. Alongside its values every column
carries a *flag* mask: the answers whose value this path cannot vouch for — an error
(division by zero, a missing blank), or an integer too large for a float64 to hold
exactly. Flags follow Python's evaluation order (an operand that ``and``/``or``,
``if``/``else`` or a comparison chain skips raises nothing), and every flagged answer
is scored again by the reference evaluator (:mod:`coscore.expr.evaluate`), which gives
its exact value or error message. So the two paths agree by construction wherever the
columns are exact, and the property tests check that they do.

Only combos whose operand types are known when the rule is compiled are vectorised
(:func:`column_kind`); a rule with any other combo is scored answer by answer.

:func:`run` evaluates a rule's combos (a :class:`~coscore.engine.plan.ColumnarPlan`)
in a :class:`~coscore.engine.context.BatchContext`, which holds the chunk's answers and
runs the kernels; the column functions read it, and it never calls them back.
"""
from __future__ import annotations

import operator
from collections.abc import Callable, Hashable, Mapping
from typing import Any, Protocol

import numpy as np

from ..expr.evaluate import MAX_TEXT, cjk_count, to_float
from ..expr.nodes import Arith, BoolOp, Call, Compare, Const, IfExp, Node, Unary, literal_value, walk
from ..limits import Limits
from .context import BatchContext, Column

#: Integers at or above this magnitude are not exact in float64: such answers are re-scored.
EXACT_LIMIT = float(2**53)

#: A column function: the column of a node, evaluated in a chunk's context.
ColumnFn = Callable[[BatchContext], Column]

_NUM, _STR = "num", "str"
_COMPARE = {
    "==": operator.eq, "!=": operator.ne, "<": operator.lt,
    "<=": operator.le, ">": operator.gt, ">=": operator.ge,
}


def column_kind(node: Node) -> str | None:
    """``"num"`` or ``"str"`` when ``node`` can be evaluated column-wise, else ``None``."""
    if isinstance(node, Const):
        if isinstance(node.value, str):
            return _STR
        if isinstance(node.value, int) and abs(node.value) >= 2**53:
            return None
        return _NUM
    if isinstance(node, Call):
        op, args = node.op, node.args
        if op in "TLQFS":
            blank = args[0].value if isinstance(args[0], Const) else None
            if blank != "*" and not (isinstance(blank, int) and abs(blank) < 2**62):
                return None  # computed, or too far out for a C index: the reference path
            return _STR if op == "T" else _NUM
        if op in "GM":
            return _NUM if isinstance(args[0], Const) and column_kind(args[1]) == _STR else None
        kinds = [column_kind(arg) for arg in args]
        if op == "A":
            return _NUM if None not in kinds else None
        return _NUM if all(k == _NUM for k in kinds) else None  # U, X
    if isinstance(node, Unary):
        kind = column_kind(node.operand)
        if node.op == "not":
            return _NUM if kind is not None else None
        return _NUM if kind == _NUM else None
    if isinstance(node, Arith):
        arith_kinds = {column_kind(node.first), *(column_kind(o) for _, o, _ in node.rest)}
        if arith_kinds == {_NUM}:
            return _NUM
        if arith_kinds == {_STR} and all(op == "+" for op, _, _ in node.rest):
            return _STR
        return None  # string repetition too: a number column does not tell an int count from a float
    if isinstance(node, Compare):
        left = column_kind(node.first)
        for op, operand, _ in node.rest:
            right = column_kind(operand)
            if left is None or right is None or (left != right and op not in ("==", "!=")):
                return None
            left = right
        return _NUM
    if isinstance(node, BoolOp):
        bool_kinds = {column_kind(o) for o in node.operands}
        return bool_kinds.pop() if len(bool_kinds) == 1 and None not in bool_kinds else None
    if isinstance(node, IfExp):
        if column_kind(node.cond) is None:
            return None
        then, orelse = column_kind(node.then), column_kind(node.orelse)
        return then if then == orelse else None
    return None


def _or(a: np.ndarray | None, b: np.ndarray | None) -> np.ndarray | None:
    if a is None:
        return b
    if b is None:
        return a
    both: np.ndarray = a | b
    return both


def _and_flag(mask: np.ndarray, flag: np.ndarray | None) -> np.ndarray | None:
    """``flag`` where ``mask`` holds (the flag of an operand evaluated only there)."""
    if flag is None:
        return None
    where: np.ndarray = mask & flag
    return where


def truthy(column: Column) -> np.ndarray:
    """Python's truth value of each row of a column (NaN is true, ``""`` false)."""
    kind, values, _ = column
    if kind == _NUM:
        nonzero: np.ndarray = values != 0
        return nonzero
    return np.fromiter((len(s) > 0 for s in values), dtype=bool, count=len(values))


def _inexact(values: np.ndarray) -> np.ndarray | None:
    big = np.abs(values) >= EXACT_LIMIT
    return big if big.any() else None


def integral(node: Node, atoms: Mapping[str, Any], zero_only: bool = False) -> bool:
    """Whether ``node`` always gives a Python ``int`` or ``bool``, never a float
    (``zero_only``: whenever it gives zero, that zero is an int — true of every ``M``)."""
    if isinstance(node, Const):
        return isinstance(node.value, int) or (zero_only and node.value != 0)
    if isinstance(node, Call):
        if node.op in "GQLSA":
            return True
        if node.op == "M":  # an atom's value 0 is the int 0; EM and SM values are ints
            atom = atoms.get(str(node.args[0].value)) if isinstance(node.args[0], Const) else None
            return zero_only or (atom is not None and atom.kind in ("EM", "SM"))
        return node.op in "UX" and all(integral(arg, atoms, zero_only) for arg in node.args)
    if isinstance(node, Unary):
        return node.op == "not" or integral(node.operand, atoms, zero_only)
    if isinstance(node, Arith):  # 0.5 - 0.5 is a float zero: every operand must be an int
        operands = (node.first, *(o for _, o, _ in node.rest))
        return all(op != "/" for op, _, _ in node.rest) and all(integral(o, atoms) for o in operands)
    if isinstance(node, Compare):
        return True
    if isinstance(node, BoolOp):
        return all(integral(o, atoms, zero_only) for o in node.operands)
    if isinstance(node, IfExp):
        return integral(node.then, atoms, zero_only) and integral(node.orelse, atoms, zero_only)
    return False


def signed_zeros(values: np.ndarray, flag: np.ndarray | None, int_zero: bool) -> tuple[np.ndarray, np.ndarray | None]:
    """Values and flag after an operation that may turn ``0`` into ``-0.0`` (``*``, unary
    ``-``, a combo's ``value * score``).

    Where Python's zero there is the int ``0`` (``int_zero``, from :func:`integral`),
    ``-0.0`` becomes ``0.0``. Otherwise Python's sign depends on whether each operand
    was an int or a float, which a float64 column does not keep: those rows are flagged
    for the reference path.
    """
    negative = (values == 0) & np.signbit(values)
    if not negative.any():
        return values, flag
    if int_zero:
        return values + 0.0, flag  # -0.0 + 0.0 is 0.0; every other value is unchanged
    return values, _or(flag, negative)


def build(node: Node) -> ColumnFn:
    """A function ``f(ctx) -> column`` for a node :func:`column_kind` accepts."""
    if isinstance(node, Const):
        value = node.value
        if isinstance(value, str):
            return lambda ctx: (_STR, [value] * ctx.n, None)
        number = float(value)
        return lambda ctx: (_NUM, np.full(ctx.n, number), None)
    if isinstance(node, Call):
        return _build_call(node)
    if isinstance(node, Unary):
        inner = build(node.operand)
        if node.op == "not":
            def negation(ctx: BatchContext) -> Column:
                column = inner(ctx)
                return _NUM, (~truthy(column)).astype(np.float64), column[2]
            return negation
        if node.op == "-":
            def minus(ctx: BatchContext) -> Column:
                _, values, flag = inner(ctx)
                return _NUM, *signed_zeros(-values, flag, integral(node.operand, ctx.atoms, zero_only=True))
            return minus
        return inner
    if isinstance(node, Arith):
        return _build_arith(node)
    if isinstance(node, Compare):
        return _build_compare(node)
    if isinstance(node, BoolOp):
        return _build_boolop(node)
    if isinstance(node, IfExp):
        return _build_ifexp(node)
    raise TypeError(f"not a columnar node: {node!r}")


def _build_call(node: Call) -> ColumnFn:
    op, args = node.op, node.args
    if op in "TLQFS":
        n = literal_value(args[0])
        assert isinstance(n, (int, str))  # a blank's number or '*' (column_kind)
        if op == "T":
            return lambda ctx: ctx.blank(n)
        per_text = _BLANK_MEASURES[op]

        def measure(ctx: BatchContext) -> Column:
            key = (op, n, ctx.manual)
            if key not in ctx.cache:
                if op == "Q" and n == "*":
                    values = np.fromiter(
                        (sum(1 for b in _blanks(a) if b != "" and b != "null") for a in ctx.answers),
                        dtype=np.float64,
                        count=ctx.n,
                    )
                    ctx.cache[key] = (_NUM, values, None)
                elif op == "L" and ctx.manual:
                    _, strings, flag = ctx.blank(n)
                    if n == "*":
                        lengths = (sum(0 if b == "null" else len(b) for b in _blanks(a)) for a in ctx.answers)
                    else:
                        lengths = (0 if s == "null" else len(s) for s in strings)
                    ctx.cache[key] = (_NUM, np.fromiter(lengths, dtype=np.float64, count=ctx.n), flag)
                else:
                    _, strings, flag = ctx.blank(n)
                    values = np.fromiter(map(per_text, strings), dtype=np.float64, count=ctx.n)
                    ctx.cache[key] = (_NUM, values, flag)
            measured: Column = ctx.cache[key]
            return measured

        return measure
    if op in "GM":
        atom_id = str(literal_value(args[0]))
        text = build(args[1])
        key = text_key(args[1])
        use_hits = op == "G"

        def atom_call(ctx: BatchContext) -> Column:
            found = ctx.found(atom_id, key)
            hits, values, flag = found if found is not None else ctx.atom(atom_id, key, text(ctx))
            return _NUM, hits if use_hits else values, flag

        return atom_call
    parts = [build(arg) for arg in args]
    if op == "A":
        def count(ctx: BatchContext) -> Column:
            total = np.zeros(ctx.n)
            flag = None
            for part in parts:
                column = part(ctx)
                total += truthy(column)
                flag = _or(flag, column[2])
            return _NUM, total, flag
        return count
    if op == "X":
        def maximum(ctx: BatchContext) -> Column:
            _, best, flag = parts[0](ctx)
            for part in parts[1:]:
                _, values, f = part(ctx)
                best = np.where(values > best, values, best)
                flag = _or(flag, f)
            return _NUM, best, flag
        return maximum
    # U(f, C): C if f >= C else f
    first, cap = parts

    def upper(ctx: BatchContext) -> Column:
        _, f, flag_f = first(ctx)
        _, c, flag_c = cap(ctx)
        return _NUM, np.where(f >= c, c, f), _or(flag_f, flag_c)

    return upper


def _blanks(answer: Any) -> Any:
    """The blanks of a well-formed answer (a ``str`` is one blank)."""
    return (answer,) if type(answer) is str else answer


def _cjk(text: str) -> int:
    return cjk_count(text) if text else 0


def _is_empty(text: str) -> bool:
    return text == "" or text == "null"


def _number(text: str) -> float | int:
    return 0 if text == "null" else to_float(text)


def _size(text: str) -> int:
    return max(1, len(text))


_BLANK_MEASURES: dict[str, Callable[[str], Any]] = {"L": _cjk, "Q": _is_empty, "F": _number, "S": _size}


def text_key(node: Node) -> Hashable:
    """A structural key of a string expression, so equal expressions share one atom pass."""
    if isinstance(node, Const):
        return ("lit", node.value)
    if isinstance(node, Call):
        return ("T", literal_value(node.args[0]))
    if isinstance(node, Arith):
        return ("cat", text_key(node.first), *(text_key(o) for _, o, _ in node.rest))
    return ("node", id(node))


def built_over(trees: list[Node]) -> Callable[[BatchContext, int], np.ndarray | None] | None:
    """A function ``f(ctx, limit)`` giving the answers for which the reference
    evaluator's string ``+`` over ``trees`` could build more than ``limit`` characters
    (``None``: no answer can); ``None`` when the trees join no strings.

    Each join counts the length of its result, as
    :meth:`coscore.expr.evaluate.Answer.build` does, and every join is counted as if
    every branch ran: an upper bound, per answer from its blanks' lengths, or for the
    whole batch from their sums (one sum per blank, enough when the batch is small).
    """
    joins = [node for tree in trees for node in walk(tree) if isinstance(node, Arith) and column_kind(node) == _STR]
    if not joins:
        return None

    def built(length: Callable[[Node], Any]) -> Any:
        total = 0
        for node in joins:
            size = length(node.first)
            for _, operand, _ in node.rest:
                size = size + length(operand)
                total = total + size
        return total

    def over(ctx: BatchContext, limit: int) -> np.ndarray | None:
        if built(lambda node: _length(node, ctx, True)) <= limit:
            return None
        over_limit: np.ndarray = built(lambda node: _length(node, ctx, False)) > limit
        return over_limit

    return over


def _length(node: Node, ctx: BatchContext, batch: bool) -> Any:
    """The length of a string expression: per answer (at most, for ``and``/``or``/``if``),
    or with ``batch`` a bound of every answer's, from the sums of the blanks' lengths."""
    if isinstance(node, Const):
        text = str(node.value)  # a string expression's constant is a str
        return len(text) if batch else np.full(ctx.n, float(len(text)))
    if isinstance(node, Call):  # T(n)
        blank = literal_value(node.args[0])
        assert isinstance(blank, (int, str))
        key = ("chars" if batch else "len", blank)
        if key not in ctx.cache:
            strings = ctx.blank(blank)[1]
            lengths = map(len, strings)
            ctx.cache[key] = sum(lengths) if batch else np.fromiter(lengths, dtype=np.float64, count=ctx.n)
        return ctx.cache[key]
    if isinstance(node, Arith):
        size = _length(node.first, ctx, batch)
        for _, operand, _ in node.rest:
            size = size + _length(operand, ctx, batch)
        return size
    operands = (node.operands if isinstance(node, BoolOp)
                else (node.then, node.orelse) if isinstance(node, IfExp) else ())
    if not operands:
        return np.inf if batch else np.full(ctx.n, np.inf)
    sizes = [_length(o, ctx, batch) for o in operands]
    return sum(sizes) if batch else np.maximum.reduce(sizes)


def _build_arith(node: Arith) -> ColumnFn:
    first = build(node.first)
    rest = [(op, build(operand)) for op, operand, _ in node.rest]
    if column_kind(node) == _STR:
        def concat(ctx: BatchContext) -> Column:
            _, values, flag = first(ctx)
            for _, part in rest:
                _, more, f = part(ctx)
                flag = _or(flag, f)
                if ctx.joins_fit:  # every join of every answer here is known to fit
                    values = [a + b for a, b in zip(values, more)]
                    continue
                too_long = np.fromiter((len(a) + len(b) > MAX_TEXT for a, b in zip(values, more)), bool, ctx.n)
                if too_long.any():  # the reference path reports it; never build it here
                    flag = _or(flag, too_long)
                    values = ["" if big else a + b for a, b, big in zip(values, more, too_long)]
                else:
                    values = [a + b for a, b in zip(values, more)]
            return _STR, values, flag
        return concat

    def arith(ctx: BatchContext) -> Column:
        _, acc, flag = first(ctx)
        for op, part in rest:
            _, values, f = part(ctx)
            flag = _or(flag, f)
            if op == "+":
                acc = acc + values
            elif op == "-":
                acc = acc - values
            elif op == "*":
                acc, flag = signed_zeros(acc * values, flag, integral(node, ctx.atoms))
            else:
                zero = values == 0
                if zero.any():
                    flag = _or(flag, zero)
                    values = np.where(zero, 1.0, values)
                acc = acc / values
            flag = _or(flag, _inexact(acc))
        return _NUM, acc, flag

    return arith


def _compare_columns(op: str, left: Column, right: Column) -> np.ndarray:
    lk, lv, _ = left
    rk, rv, _ = right
    if lk == _NUM and rk == _NUM:
        compared: np.ndarray = _COMPARE[op](lv, rv)
        return compared
    if lk != rk:  # a string and a number are never equal
        return np.full(len(lv), op == "!=")
    test = _COMPARE[op]
    return np.fromiter((test(a, b) for a, b in zip(lv, rv)), dtype=bool, count=len(lv))


def _build_compare(node: Compare) -> ColumnFn:
    first = build(node.first)
    rest = [(op, build(operand)) for op, operand, _ in node.rest]

    def compare(ctx: BatchContext) -> Column:
        left = first(ctx)
        flag = left[2]
        active = None  # rows where the chain is still being evaluated
        for op, part in rest:
            right = part(ctx)
            flag = _or(flag, right[2] if active is None else _and_flag(active, right[2]))
            result = _compare_columns(op, left, right)
            active = result if active is None else active & result
            left = right
        assert active is not None  # a comparison has at least one operator
        return _NUM, active.astype(np.float64), flag

    return compare


def _select(mask: np.ndarray, kind: str | None, when_true: Any, when_false: Any) -> Any:
    if kind == _NUM:
        return np.where(mask, when_true, when_false)
    return [a if m else b for m, a, b in zip(mask, when_true, when_false)]


def _build_boolop(node: BoolOp) -> ColumnFn:
    parts = [build(operand) for operand in node.operands]
    kind = column_kind(node)
    conjunction = node.op == "and"

    def boolop(ctx: BatchContext) -> Column:
        columns = [part(ctx) for part in parts]
        _, values, flag = columns[-1]
        for column in reversed(columns[:-1]):
            true = truthy(column)
            goes_on = true if conjunction else ~true  # rows that evaluate the next operand
            values = _select(goes_on, kind, values, column[1])
            flag = _or(column[2], _and_flag(goes_on, flag))
        assert kind is not None  # build() takes what column_kind accepts
        return kind, values, flag

    return boolop


def _build_ifexp(node: IfExp) -> ColumnFn:
    then, cond, orelse = build(node.then), build(node.cond), build(node.orelse)
    kind = column_kind(node)

    def ifexp(ctx: BatchContext) -> Column:
        condition = cond(ctx)
        true = truthy(condition)
        a, b = then(ctx), orelse(ctx)
        flag = _or(condition[2], _or(_and_flag(true, a[2]), _and_flag(~true, b[2])))
        assert kind is not None  # build() takes what column_kind accepts
        return kind, _select(true, kind, a[1], b[1]), flag

    return ifexp


# -- a rule's combos over one chunk -------------------------------------------------------
class CombosPlan(Protocol):
    """What :func:`run` reads of a :class:`~coscore.engine.plan.ColumnarPlan` (a protocol:
    plan.py is built on this module): each combo as ``(id, column function, score, mode,
    int zero)``, how they are totalled, the atoms, the budgets and what bounds them."""

    @property
    def combos(self) -> list[tuple[str, ColumnFn, float, str, bool]]: ...
    @property
    def combo_mode(self) -> str: ...
    @property
    def atoms(self) -> Mapping[str, Any]: ...
    @property
    def manual(self) -> bool: ...
    @property
    def kernel_texts(self) -> bool: ...
    @property
    def groups(self) -> Mapping[tuple[str, Hashable], Any]: ...
    @property
    def call_sites(self) -> Mapping[tuple[str, Hashable], int]: ...
    @property
    def limits(self) -> Limits: ...
    @property
    def built_over(self) -> Callable[[BatchContext, int], np.ndarray | None] | None: ...


def run(plan: CombosPlan, answers: Any, view: int | str | None = None,
        longest: int | None = None) -> tuple[np.ndarray, dict[str, np.ndarray], np.ndarray]:
    """Totals, combo results and flags of a :class:`~coscore.engine.plan.ColumnarPlan`
    ``plan`` for distinct, well-formed answers.

    With ``view`` set, each answer is a string standing for blank ``view`` (``"*"``: the
    joined blanks) — all the rule reads; ``answers`` may then be any sequence of ``str``
    or a ``Texts`` (see ``plan.kernel_texts``) — and ``longest``, when given, is at
    least the length of the longest of them."""
    if not (plan.kernel_texts or isinstance(answers, list)):
        answers = list(answers)
    ctx = _context(plan, answers, view, longest)
    n = len(answers)
    flag = np.zeros(n, dtype=bool)
    if plan.built_over is not None:
        over = plan.built_over(ctx, plan.limits.max_built_chars)
        if over is not None and over.any():  # never build these: the reference path stops at the budget
            flag |= over
            empty = "" if view is not None else ()
            ctx = _context(plan, [empty if o else a for a, o in zip(answers, over.tolist())], view, longest)
        # no answer left builds more than its budget in all: then no one join is too long
        ctx.joins_fit = plan.limits.max_built_chars <= MAX_TEXT
    results: dict[str, np.ndarray] = {}
    with np.errstate(all="ignore"):
        for combo_id, column, score, mode, int_zero in plan.combos:
            kind, values, f = column(ctx)
            if f is not None:
                flag |= f
            if mode == "logic":
                result = np.where(truthy((kind, values, f)), score, 0.0)
            elif kind != _NUM:  # a string in value mode is an error: the reference path says so
                flag[:] = True
                result = np.zeros(n)
            else:
                result = values * score
                if int_zero:  # -0.0 means 0.0 (see signed_zeros); -0.0 + 0.0 is 0.0, all else unchanged
                    result += 0.0
                else:
                    result, f = signed_zeros(result, None, False)
                    if f is not None:
                        flag |= f
                _flag_inexact(result, flag)
            results[combo_id] = result
        combos = list(results.values())
        if plan.combo_mode == "ADD":  # 0.0 + the results, left to right (-0.0 sums to 0.0)
            total = combos[0] + 0.0
            _flag_inexact(total, flag)
            for result in combos[1:]:
                total += result
                _flag_inexact(total, flag)
        else:
            total = combos[0].copy()
            for result in combos[1:]:
                np.copyto(total, result, where=result > total)
        flag |= np.isnan(total)
        over = ctx.over_work()
        if over is not None:
            flag |= over
        np.copyto(total, 0.0, where=total < 0)
        np.copyto(total, 10.0, where=total > 10)
    return total, results, flag


def _context(plan: CombosPlan, answers: Any, view: int | str | None, longest: int | None) -> BatchContext:
    return BatchContext(answers, plan.atoms, plan.manual, view, plan.groups, plan.limits, plan.call_sites, longest)


def _flag_inexact(values: np.ndarray, flag: np.ndarray) -> None:
    """Flag the rows of ``values`` at or beyond :data:`EXACT_LIMIT` in magnitude (two
    reductions when none is, the usual case; NaN is never flagged here)."""
    if not (values.size and values.min() > -EXACT_LIMIT and values.max() < EXACT_LIMIT):
        flag |= np.abs(values) >= EXACT_LIMIT
