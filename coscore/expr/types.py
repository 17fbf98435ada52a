"""Type inference over combo trees: what each combo can give, and what must fail.

Each expression gets a :class:`Type`: the Python kinds it can have (``str``, ``bool``,
``int``, ``float``), an interval holding its numeric values, whether its truth is known,
and its value when it is a constant. From these, :func:`check_rule` finds what the engine
would refuse on *every* answer (ordering text against numbers, arithmetic on text, a
blank the data does not have, a string in a value-mode combo) and what never counts (a
combo that is never true, a combo always dominated under ``MAX``), and bounds the total.

An operand that runs only sometimes (the right of ``and``/``or``, a branch of
``if``/``else``, the later links of a comparison chain) turns a sure failure into a
warning: Python never evaluates it when the branch is skipped, so some answers may score.

:class:`Type` and how types combine under each operator are in :mod:`coscore.expr.type_algebra`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

from ..diagnostics import Diagnostic
from ..spec import CompiledRule, RuleSpec
from .atom_ids import atom_id_problems
from .cases import outcomes
from .evaluate import constant_value
from .nodes import Arith, BoolOp, Call, Compare, Const, IfExp, Node, Unary, walk
from .ranges import blank_count, dominated, never_counting, show, total_range, witnesses
from .type_algebra import (
    BOOL,
    FLOAT,
    INF,
    INT,
    NUMBERS,
    TEXT,
    Type,
    arith_kind,
    chained,
    compare_truth,
    const_type,
    interval,
    number_type,
    product_kinds,
    union_type,
)


def _nonzero_number(node: Node) -> bool:
    return isinstance(node, Const) and type(node.value) in (int, float) and node.value != 0


@dataclass
class Finding:
    """A problem in one combo: ``sure`` when it happens on every answer (then an error);
    ``always_warning`` for what never counts but never fails."""

    message: str
    column: int
    sure: bool
    always_warning: bool = False
    error: bool = False  # an error even where it fails only sometimes (an atom id the answer picks)


@dataclass
class ComboType:
    """What one combo can give: its expression's type and its contribution's bounds."""

    id: str
    type: Type
    mode: str
    score: float
    lo: float
    hi: float
    findings: list[Finding] = field(default_factory=list)
    values: frozenset[float] | None = None  # every contribution the case analysis found

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {"id": self.id, "type": self.type.name, "mode": self.mode, "score": self.score,
                "contribution": {"min": _finite(self.lo), "max": _finite(self.hi)},
                "values": sorted(self.values) if self.values is not None else None}

    def describe(self) -> str:
        """One line: ``combo A (value × 5): number, contributes 0–5``."""
        how = f"value × {show(self.score)}" if self.mode == "value" else f"logic, {show(self.score)}"
        some = sorted(self.values) if self.values else (
            [self.lo, self.hi] if self.mode == "logic" or self.type.kinds == {"bool"} else [])
        if self.lo == self.hi:
            gives = f"always contributes {show(self.lo)}"
        elif 1 < len(some) <= 6:
            gives = "contributes " + ", ".join(show(v) for v in some[:-1]) + f" or {show(some[-1])}"
        elif math.isfinite(self.lo) and math.isfinite(self.hi):
            gives = f"contributes {show(self.lo)}–{show(self.hi)}"
        elif math.isfinite(self.lo) or math.isfinite(self.hi):
            gives = (f"contributes at least {show(self.lo)}" if math.isfinite(self.lo)
                     else f"contributes at most {show(self.hi)}")
        else:
            gives = "contributes any number"
        return f"combo {self.id} ({how}): {self.type.name}, {gives}"


@dataclass
class TypeReport:
    """The outcome of :func:`check_rule`: diagnostics, the blanks the rule needs
    (``blanks_needed``: how many blanks an answer must have; ``reads_all_blanks``: it uses
    ``'*'``) and the range of the total (``exact`` when both ends are reached, else bounds)."""

    diagnostics: list[Diagnostic]
    combos: list[ComboType]
    blanks_needed: int
    reads_all_blanks: bool
    score_min: float
    score_max: float
    exact: bool
    always_fails: bool = False

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form (the diagnostics excluded: the caller lists them);
        ``score_range`` is ``None`` when every answer fails."""
        scores = None if self.always_fails else {"min": self.score_min, "max": self.score_max, "exact": self.exact}
        return {
            "blanks_needed": self.blanks_needed,
            "reads_all_blanks": self.reads_all_blanks,
            "always_fails": self.always_fails,
            "score_range": scores,
            "combos": [c.to_dict() for c in self.combos],
        }

    def describe_range(self) -> str:
        """The score range in words: ``scores exactly 0–10``, ``scores within 0–10``, or
        that every answer fails."""
        if self.always_fails:
            return "every answer fails: no score"
        return f"scores {'exactly' if self.exact else 'within'} {show(self.score_min)}–{show(self.score_max)}"


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


class _Inference:
    """One walk over one combo tree, collecting findings and the blanks it reads."""

    def __init__(self, atom_kinds: dict[str, tuple[str, int]], blanks: tuple[int, int] | None) -> None:
        self.atom_kinds = atom_kinds
        self.u_args: set[tuple[Any, ...]] = set()  # the kinds by truth of each U call's arguments
        self.blanks = blanks  # the fewest and the most blanks an answer of the data has
        self.findings: list[Finding] = []
        self.needed = 0
        self.all_blanks = False

    def fail(self, message: str, column: int, sure: bool) -> None:
        self.findings.append(Finding(message, column, sure))

    def infer(self, node: Node, sure: bool) -> Type:
        """The type of ``node``; ``sure`` is whether the node runs on every answer."""
        if isinstance(node, Const):
            return const_type(node.value)
        if isinstance(node, Call):
            result = self._call(node, sure)
        elif isinstance(node, Unary):
            result = self._unary(node, sure)
        elif isinstance(node, Arith):
            result = self._arith(node, sure)
        elif isinstance(node, Compare):
            result = self._compare(node, sure)
        elif isinstance(node, BoolOp):
            result = self._boolop(node, sure)
        else:
            result = self._ifexp(node, sure)
        return result

    # -- constants -------------------------------------------------------------------
    def _fold(self, node: Node, parts: list[Type], sure: bool, fallback: Type, reported: bool = False) -> Type:
        """``node``'s value when every part is a constant (computed by the evaluator
        itself), else ``fallback``; ``reported``: its failure is already a finding."""
        if not parts or not all(p.const for p in parts):
            return fallback
        try:
            return const_type(constant_value(node))
        except Exception as exc:  # noqa: BLE001 - the evaluator's own error is the finding
            if not reported:
                self.fail(f"always fails: {exc}", node.col, sure)
            return fallback

    # -- operators -------------------------------------------------------------------
    def _call(self, node: Call, sure: bool) -> Type:
        op = node.op
        if op in "TLQFS":
            arg = node.args[0]
            n = arg.value if isinstance(arg, Const) else None
            if not isinstance(arg, Const):
                self.infer(arg, sure)
            elif isinstance(n, int) and not isinstance(n, bool):
                self._blank(n, arg.col, sure)
            else:
                self.all_blanks = True
            return {
                "T": TEXT,
                "L": number_type(frozenset({"int"}), 0, INF),
                "Q": (number_type(frozenset({"int"}), 0, INF if self.blanks is None else self.blanks[1]) if n == "*"
                      else BOOL),
                "F": number_type(frozenset({"int", "float"}), -INF, INF).splitting(FLOAT, NUMBERS - {"bool"}),
                "S": number_type(frozenset({"int"}), 1, INF),
            }[op]
        args = [self.infer(arg, sure) for arg in node.args]
        if op in "GM":
            for message, every in atom_id_problems(node.args[0], args[0].name, self.atom_kinds, op):
                self.findings.append(Finding(message, node.args[0].col, sure and every, error=True))
            atom = node.args[0]
            kind, groups = self.atom_kinds.get(str(atom.value), ("", 0)) if isinstance(atom, Const) else ("", 0)
            if "str" not in args[1].kinds:
                what = args[1].name
                if kind == "EM":
                    self.findings.append(Finding(f"an EM atom never matches a {what}: this call is always false",
                                                 node.args[1].col, False, always_warning=True))
                else:
                    self.fail(f"the atom needs text, not a {what}: always fails", node.args[1].col, sure and bool(kind))
            if op == "G":
                return BOOL
            if kind == "EM":
                return number_type(frozenset({"int"}), 0, 1, tight=True)
            if kind == "SM":
                return number_type(frozenset({"int"}), 0, groups, tight=True)
            if kind in ("OP", "CS"):  # the similarity when it hits, the int 0 when not
                return number_type(frozenset({"int", "float"}), 0, 1, tight=True).splitting(FLOAT, INT)
            kinds = {k for k, _ in self.atom_kinds.values()}  # any atom: what each kind gives
            hit = (FLOAT if kinds & {"OP", "CS"} else frozenset()) | (INT if kinds & {"EM", "SM"} else frozenset())
            return number_type(frozenset({"int", "float"}), 0, INF).splitting(hit, INT)
        if op == "A":
            return number_type(frozenset({"int"}), 0, len(args))
        if op == "U":
            self._order(args[0], args[1], ">=", node.col, sure)
            self.u_args.add((*args[0].split, *args[1].split))
            result = union_type(args)
            return number_type(result.kinds, min(args[0].lo, args[1].lo), min(args[0].hi, args[1].hi)).splitting(
                *result.split) if not result.kinds & {"str"} else result
        # X: max over the arguments compares each with the others
        for other in args[1:]:
            self._order(args[0], other, ">", node.col, sure)
        result = union_type(args)
        if result.kinds & {"str"}:
            return result
        return number_type(result.kinds, max(a.lo for a in args), max(a.hi for a in args)).splitting(*result.split)

    def _blank(self, n: int, column: int, sure: bool) -> None:
        count = n + 1 if n >= 0 else -n
        if sure:
            self.needed = max(self.needed, count)
        if self.blanks is None or count <= self.blanks[0]:
            return
        fewest, most = self.blanks
        if count > most:
            self.fail(f"reads blank {n}, but the data has {most} blank{'s' * (most != 1)}", column, sure)
        else:
            self.findings.append(Finding(f"reads blank {n}, but some answers have only {fewest} "
                                         f"blank{'s' * (fewest != 1)}: they fail", column, False, True))

    def _unary(self, node: Unary, sure: bool) -> Type:
        inner = self.infer(node.operand, sure)
        if node.op == "not":
            truth = None if inner.truth is None else not inner.truth
            fallback = Type(frozenset({"bool"}), 0, 1, truth, tight=truth is None)
            return self._fold(node, [inner], sure, fallback)
        if inner.kinds == {"str"}:
            self.fail(f"unary {node.op} of text always fails", node.col, sure)
            return Type(NUMBERS)
        def signed(kinds: frozenset[str]) -> frozenset[str]:  # -True is an int; -"x" fails
            return (kinds - {"str", "bool"}) | (INT if "bool" in kinds else frozenset())

        lo, hi = (-inner.hi, -inner.lo) if node.op == "-" else (inner.lo, inner.hi)
        result = number_type(signed(inner.kinds), lo, hi).splitting(*map(signed, inner.split))
        return self._fold(node, [inner], sure, result)

    def _arith(self, node: Arith, sure: bool) -> Type:
        start = len(self.findings)
        acc = self.infer(node.first, sure)
        parts = [acc]
        for index, (op, operand, column) in enumerate(node.rest):
            right = self.infer(operand, sure)
            parts.append(right)
            left, acc = acc, self._binary(op, acc, right, column, sure)
            if op == "*" and len(acc.kinds) > 1:  # times a non-zero number, the truth is the other side's
                if _nonzero_number(operand):
                    acc = acc.splitting(*(product_kinds(k, right.kinds) for k in left.split))
                elif index == 0 and _nonzero_number(node.first):
                    acc = acc.splitting(*(product_kinds(left.kinds, k) for k in right.split))
        return self._fold(node, parts, sure, acc, reported=len(self.findings) > start)

    def _binary(self, op: str, a: Type, b: Type, column: int, sure: bool) -> Type:
        kinds = set()
        for ka in a.kinds:
            for kb in b.kinds:
                kind = arith_kind(op, ka, kb)
                if kind is not None:
                    kinds.add(kind)
        if not kinds:
            what = {"+": "add", "-": "subtract", "*": "multiply", "/": "divide"}[op]
            self.fail(f"cannot {what} {a.name} and {b.name}: always fails", column, sure)
            return Type(NUMBERS)
        if op == "/" and b.const and not isinstance(b.value, str) and b.value == 0:
            self.fail("division by zero: always fails", column, sure)
        if kinds == {"str"}:
            return TEXT
        lo, hi = interval(op, a, b)
        return number_type(frozenset(kinds) - {"str"}, lo, hi) if "str" not in kinds else Type(frozenset(kinds))

    def _order(self, a: Type, b: Type, op: str, column: int, sure: bool) -> None:
        text_number = a.kinds == {"str"} and b.kinds <= NUMBERS
        number_text = a.kinds <= NUMBERS and b.kinds == {"str"}
        if text_number or number_text:
            left, right = ("text", "a number") if text_number else ("a number", "text")
            self.fail(f"'{op}' orders {left} against {right}: always fails", column, sure)

    def _compare(self, node: Compare, sure: bool) -> Type:
        left = self.infer(node.first, sure)
        parts, truths = [left], []
        for index, (op, operand, column) in enumerate(node.rest):
            runs = sure and index == 0  # a later link runs only when the earlier ones hold
            right = self.infer(operand, runs)
            parts.append(right)
            if op not in ("==", "!="):
                self._order(left, right, op, column, runs)
            truths.append(compare_truth(op, left, right))
            left = right
        truth = False if False in truths else (True if all(t is True for t in truths) else None)
        fallback = Type(frozenset({"bool"}), 0 if truth is not True else 1, 1 if truth is not False else 0,
                        truth, tight=truth is None)
        return self._fold(node, parts, sure, fallback)

    def _boolop(self, node: BoolOp, sure: bool) -> Type:
        stop = node.op == "or"  # the truth that ends the chain
        results: list[Type] = []
        runs = sure
        for operand in node.operands:
            t = self.infer(operand, runs)
            if t.truth is stop:
                earlier = [r for r in results if r.truth is None]
                return chained(union_type([*earlier, t]) if earlier else t, [*results, t], stop)
            results.append(t)
            if t.truth is None:
                runs = False
        # every operand but the last either ran through or may have; the result is one of them
        last = results[-1]
        candidates = [t for t in results[:-1] if t.truth is None] + [last]
        result = union_type(candidates) if len(candidates) > 1 else last
        if all(t.truth is not None for t in results):
            result = Type(result.kinds, result.lo, result.hi, last.truth, last.const, last.value, last.tight)
        return chained(result, results, stop)

    def _ifexp(self, node: IfExp, sure: bool) -> Type:
        cond = self.infer(node.cond, sure)
        then = self.infer(node.then, sure and cond.truth is True)
        orelse = self.infer(node.orelse, sure and cond.truth is False)
        if cond.truth is not None:
            chosen = then if cond.truth else orelse
            if cond.const:
                return chosen
            # the branch is known but the condition still reads the answer: not a constant
            # the evaluator could fold without one
            return replace(chosen, const=False)
        return union_type([then, orelse])


def _infer(spec: RuleSpec, blanks: int | tuple[int, int] | None) -> list[tuple[_Inference, Type]]:
    """Each combo's walk and the type of its expression."""
    atom_kinds = {aid: (a.kind, len(a.groups)) for aid, a in spec.atoms.items()}
    found = []
    for combo in spec.combos:
        inference = _Inference(atom_kinds, (blanks, blanks) if isinstance(blanks, int) else blanks)
        found.append((inference, inference.infer(combo.tree, True)))
    return found


def combo_types(rule: CompiledRule) -> tuple[list[Type], bool]:
    """The :class:`Type` of each combo's expression of ``rule`` (a compiled
    :class:`coscore.Rule`), its kinds by truth included, from the walk :func:`check_rule`
    makes; and whether its ``U`` calls take arguments of different kinds (``U`` keeps one
    result per answer and argument values, so ``U(x, 1)`` and ``U(y, 1.0)`` may hand each
    other their result, of the other's kind)."""
    found = _infer(rule.spec, None)
    calls = set().union(*(inference.u_args for inference, _ in found))
    return [t for _, t in found], len(calls) > 1


def _combo_findings(combo: Any, inference: _Inference, t: Type) -> list[Diagnostic]:
    """What the walk of one combo found, as diagnostics: sure failures are errors, failures
    only some answers reach warnings."""
    path = f"combos.{combo.id}.combo"
    if combo.mode == "value" and t.kinds == {"str"}:
        inference.fail("a value-mode combo must give a number, but this gives text: always fails", 1, True)
    found = []
    for f in inference.findings:
        if f.always_warning:
            found.append(Diagnostic(path, f.message, f.column, "warning", combo.text))
            continue
        message = (f.message if f.sure or f.error
                   else f"{f.message.replace(': always fails', '')}: fails whenever this part runs")
        found.append(Diagnostic(path, message, f.column, "error" if f.sure or f.error else "warning", combo.text))
    return found


def combo_findings(error: Any) -> list[Diagnostic]:
    """What the type pass finds in each combo of an invalid rule that was read without a
    problem (``error``, a :class:`~coscore.diagnostics.RuleError`, keeps them in
    ``parsed``): so that one combo's syntax error does not hide another's ``T(0) > 3``.
    A combo that names an atom that was not read well is left out, and so is all that
    needs the whole rule (what never counts, the range of the total)."""
    parsed = getattr(error, "parsed", None)
    if not parsed:
        return []
    atoms, combos = parsed
    atom_kinds = {aid: (a.kind, len(a.groups)) for aid, a in atoms.items()}
    found: list[Diagnostic] = []
    for combo in combos:
        named = {str(n.args[0].value) for n in walk(combo.tree)
                 if isinstance(n, Call) and n.op in "GM" and n.args and isinstance(n.args[0], Const)}
        if not named <= atom_kinds.keys():
            continue
        inference = _Inference(atom_kinds, None)
        found.extend(_combo_findings(combo, inference, inference.infer(combo.tree, True)))
    return found


def check_rule(rule: CompiledRule, blanks: int | tuple[int, int] | None = None) -> TypeReport:
    """Infer the types of ``rule``'s combos (a compiled :class:`coscore.Rule`).

    ``blanks`` is how many blanks the data's answers have (``(fewest, most)`` when they
    differ; ``None``: unknown). Sure failures are
    errors; failures only some answers reach, and what never counts, are warnings.

    The range of the total comes from the types (sound bounds); it is ``exact`` when
    answers built from the atoms' own keys and options (:func:`witnesses`), scored by
    the rule, reach both ends.
    """
    spec = rule.spec
    diagnostics: list[Diagnostic] = []
    combos: list[ComboType] = []
    needed, all_blanks = 0, False
    for combo, (inference, t) in zip(spec.combos, _infer(spec, blanks)):
        path = f"combos.{combo.id}"
        needed = max(needed, inference.needed)
        all_blanks = all_blanks or inference.all_blanks
        lo, hi = _contribution(t, combo.mode, combo.score)
        diagnostics.extend(_combo_findings(combo, inference, t))
        result = ComboType(combo.id, t, combo.mode, combo.score, lo, hi, inference.findings)
        combos.append(result)
        if not 0 <= combo.score <= 10:
            diagnostics.append(Diagnostic(f"{path}.score", f"score {combo.score} is outside the 0–10 scale",
                                          severity="warning"))
        if combo.mode == "logic" and t.truth is False:
            diagnostics.append(Diagnostic(f"{path}.combo", "never true: this combo never counts", 1, "warning",
                                          combo.text))
        elif lo == hi == 0 and not any(f.sure for f in inference.findings):
            diagnostics.append(Diagnostic(path, "always contributes 0: this combo never counts", severity="warning"))
    if not combos:
        diagnostics.append(Diagnostic("combos", "no combos: every answer scores 0", severity="warning"))
    elif spec.combo_mode == "MAX":
        diagnostics.extend(dominated(combos))
    score_min, score_max = total_range(combos, spec.combo_mode)
    always_fails = any(f.sure and not f.always_warning for c in combos for f in c.findings)
    exact = False
    if not always_fails:
        count = blank_count(spec) if blanks is None else (blanks if isinstance(blanks, int) else blanks[1])
        found = outcomes(spec, count)
        if found is not None and found.scored:
            diagnostics.extend(never_counting(spec, combos, found, diagnostics))
            if found.totals:
                score_min, score_max = max(score_min, min(found.totals)), min(score_max, max(found.totals))
        reached = [s for s in rule.score_many(witnesses(rule, max(count, needed, 1))).scores.tolist() if s == s]
        if reached:
            score_min, score_max = min(score_min, min(reached)), max(score_max, max(reached))
            exact = min(reached) == score_min and max(reached) == score_max
    return TypeReport(diagnostics, combos, needed, all_blanks, score_min, score_max, exact, always_fails)


def _contribution(t: Type, mode: str, score: float) -> tuple[float, float]:
    if mode == "logic":
        if t.truth is not None:
            return (score, score) if t.truth else (0, 0)
        return min(0, score), max(0, score)
    if not t.kinds <= NUMBERS:
        return -INF, INF
    lo, hi = interval("*", t, const_type(score))
    return lo, hi
