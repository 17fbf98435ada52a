"""Every outcome a rule's combos can have, found by trying each case of its atom calls.

Many rules depend on the answer only through their atom calls: an EM call hits or not,
an SM call counts 0…(groups) groups, an OP/CS call used only by ``G`` hits or not. For
such a rule, :func:`outcomes` evaluates every combo (with the language's own evaluator)
for every combination of those results, so what :mod:`.types` can only bound it knows
exactly: which combos can count, which never change the total, and the total's range.

Each distinct call (an atom on one text: ``G(0, T(0))`` and ``M(0, T(0))`` are one
call) is one case variable. The texts are taken symbolically (each blank a distinct
token), so two calls on equal texts share a variable; calls on different texts vary
independently, which real answers may not. The outcomes found therefore include every
outcome a real answer can have: a combo found never to count never counts, and the
total lies within the range found, although not every outcome need be reachable.

A combo that reads the blanks in other ways (``T`` compared with text, ``Q``, ``L``,
``F``, ``S``), gives an atom a text built from anything but blanks and constants, or takes
``M`` of an OP/CS atom (a continuous value) is left to :mod:`.types`; the others are still
tried, and what holds for them alone still holds (a combo that never counts; under
``MAX``, a combo another always matches). The total's range needs every combo. Past
:data:`MAX_CASES` combinations (or :data:`MAX_WORK` evaluations), :func:`outcomes`
returns ``None``.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any

from .evaluate import Answer, combo_result, compile_tree, total
from .nodes import ATOM_OPERATORS, BLANK_OPERATORS, Call, Const, Node, children, walk

#: The most combinations of atom results tried, and the most node evaluations in all.
MAX_CASES, MAX_WORK = 4096, 1_000_000
#: Surrounds each blank's token in the symbolic texts (a noncharacter no rule contains).
_MARK = "\ufdd0"


@dataclass
class Outcomes:
    """What the combos give over every case: ``tried[i]`` whether combo ``i`` is of the
    finite kind; ``contributions[i]`` the values it contributes in some case where the
    tried combos score (empty when not tried); ``totals`` the totals (clamped; empty
    unless every combo was tried); ``irrelevant[i]``: removing combo ``i`` never changes
    the total; ``cases`` how many combinations were tried and ``scored`` how many scored
    without an error."""

    tried: list[bool]
    contributions: list[set[float]]
    totals: set[float]
    irrelevant: list[bool]
    cases: int
    scored: int


def outcomes(spec: Any, blanks: int) -> Outcomes | None:
    """The outcomes of the combos of ``spec`` (a :class:`coscore.spec.RuleSpec`) on
    answers of ``blanks`` blanks, or ``None`` when no combo is of the finite kind or
    there are too many cases."""
    tokens = [f"{_MARK}{i}{_MARK}" for i in range(max(blanks, 1))]
    symbolic = Answer(tokens, {})
    domains: dict[tuple[str, str], list[tuple[bool, int]]] = {}
    tried = []
    size = nodes = 1
    for combo in spec.combos:
        own: dict[tuple[str, str], list[tuple[bool, int]]] = {}
        tried.append(_collect(combo.tree, spec.atoms, symbolic, own))
        if tried[-1]:
            domains.update(own)
            size = math.prod(len(d) for d in domains.values())
            nodes += sum(1 for _ in walk(combo.tree))
            if size > MAX_CASES or size * nodes > MAX_WORK:
                return None
    if not any(tried):
        return None
    keys = list(domains)
    combos = [(i, compile_tree(c.tree), c) for i, c in enumerate(spec.combos) if tried[i]]
    every = all(tried)
    # a combo is irrelevant when the others give the same total; with combos left out,
    # that is known only under MAX (the others' maximum can only be larger)
    judged = every or spec.combo_mode == "MAX"
    contributions: list[set[float]] = [set() for _ in spec.combos]
    totals: set[float] = set()
    irrelevant = [judged and t for t in tried]
    scored = 0
    for case in itertools.product(*(domains[k] for k in keys)):
        results = dict(zip(keys, case))
        answer = Answer(tokens, {aid: _fixed(aid, results) for aid in spec.atoms})
        try:
            values = [combo_result(f(answer), c.score, c.mode) for _, f, c in combos]
            whole = total(values, spec.combo_mode)
        except Exception:  # noqa: BLE001 - this case fails, as the answers that have it do
            continue
        scored += 1
        if every:
            totals.add(float(whole))
        for (i, _, _), value in zip(combos, values):
            contributions[i].add(float(value))
        for k, (i, _, _) in enumerate(combos):
            if irrelevant[i] and _without(values, k, spec.combo_mode) != whole:
                irrelevant[i] = False
    return Outcomes(tried, contributions, totals, irrelevant, size, scored)


def _without(values: list[Any], i: int, mode: str) -> Any:
    """The total with combo ``i`` left out (0 when no combo is left)."""
    rest = values[:i] + values[i + 1:]
    try:
        return total(rest, mode) if rest else 0
    except ValueError:
        return math.nan


def _fixed(atom_id: str, results: dict[tuple[str, str], tuple[bool, int]]) -> Any:
    def atom(text: Any) -> tuple[bool, int]:
        return results[(atom_id, text)]

    return atom


def _collect(node: Node, atoms: dict[str, Any], symbolic: Answer,
             domains: dict[tuple[str, str], list[tuple[bool, int]]]) -> bool:
    """Add the case variables of the atom calls under ``node`` to ``domains``; ``False``
    when the tree is not of the finite kind."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, Const):
            if isinstance(current.value, str) and _MARK in current.value:
                return False
            continue
        if isinstance(current, Call) and current.op in BLANK_OPERATORS:
            return False  # the blanks read other than through an atom
        if isinstance(current, Call) and current.op in ATOM_OPERATORS:
            if not _variable(current, atoms, symbolic, domains):
                return False
            continue
        stack.extend(children(current))
    return True


def _variable(call: Call, atoms: dict[str, Any], symbolic: Answer,
              domains: dict[tuple[str, str], list[tuple[bool, int]]]) -> bool:
    first, text_node = call.args
    atom = atoms.get(str(first.value)) if isinstance(first, Const) else None
    if atom is None:
        return False
    for n in walk(text_node):
        # the text may be built from blanks (T of a constant) and constants only
        if isinstance(n, Call) and (n.op != "T" or not isinstance(n.args[0], Const)):
            return False
        if isinstance(n, Const) and isinstance(n.value, str) and _MARK in n.value:
            return False
    try:
        text = compile_tree(text_node)(symbolic)
    except Exception:  # noqa: BLE001 - the text always fails: so does every case that reaches it
        return True
    if not isinstance(text, str):
        return True  # the atom refuses it: every case that reaches it fails
    if atom.kind in ("OP", "CS") and call.op == "M":
        return False
    key = (atom.id, text)
    domains[key] = _domain(atom, domains.get(key))
    return True


def _domain(atom: Any, known: list[tuple[bool, int]] | None) -> list[tuple[bool, int]]:
    """The results an atom call can have: ``(hit, value)``."""
    if known is not None:
        return known
    if atom.kind == "EM":
        return [(False, 0), (True, 1)]
    if atom.kind == "SM":
        countable = sum(any(o and o[0] != "!" for o in group) for group in atom.groups)
        return [(n > 0, n) for n in range(countable + 1)]
    # OP/CS, used only through G: a hit or not (every answer hits below a threshold of 0)
    if atom.threshold <= 0:
        return [(True, 0)]
    return [(False, 0), (True, 0)] if atom.threshold <= 1 else [(False, 0)]
