"""The score range of a rule, beyond what the types bound (used by :mod:`.types`).

Answers likely to reach the ends of the range (:func:`witnesses`, scored by the rule),
each combo's contribution narrowed by the case analysis of :mod:`.cases`
(:func:`never_counting`), the combos of a ``MAX`` rule that never reach the total
(:func:`dominated`), and the bounds of the total on the 0–10 scale (:func:`total_range`).
A combo here is a :class:`coscore.expr.types.ComboType`: ``id``, ``mode``, and its
contribution's bounds ``lo`` and ``hi``.
"""
from __future__ import annotations

import math
from typing import Any

from ..diagnostics import Diagnostic
from ..spec import CompiledRule, RuleSpec
from .cases import Outcomes
from .nodes import Call, Const, walk

__all__ = [
    "SCALE",
    "WITNESS_BLANKS",
    "WITNESS_LENGTH",
    "WITNESS_TEXTS",
    "blank_count",
    "dominated",
    "never_counting",
    "show",
    "total_range",
    "witnesses",
]

INF = math.inf
#: The score scale the total is clamped to.
SCALE = (0, 10)

#: The most texts :func:`witnesses` draws from, the most blanks it varies one by one, and
#: the longest text it builds.
WITNESS_TEXTS, WITNESS_BLANKS, WITNESS_LENGTH = 400, 8, 5000


def witnesses(rule: CompiledRule, blanks: int) -> list[list[str]]:
    """Answers of ``blanks`` blanks likely to reach the ends of ``rule``'s score range:
    every blank empty, ``"null"``, each EM/OP/CS key, each SM option that can count (and
    one option of every group at once), all of them joined; each text in every blank at
    once and in one blank with the others empty."""
    texts: dict[str, None] = {"": None, "null": None}
    for atom in rule.atoms.values():
        if atom.kind == "SM":
            firsts = []
            for group in atom.groups:
                options = [o for o in group if o and o[0] not in "!~"]
                texts.update(dict.fromkeys(options))
                firsts.extend(options[:1])
            texts["".join(firsts)] = None
        else:
            texts.update(dict.fromkeys(atom.keys))
    pool = list(texts)[:WITNESS_TEXTS]
    pool.append("".join(pool)[:WITNESS_LENGTH])
    out = [[t] * blanks for t in pool]
    if 1 < blanks <= WITNESS_BLANKS:
        out += [[t if i == j else "" for j in range(blanks)] for t in pool for i in range(blanks)]
    return out


def blank_count(spec: RuleSpec) -> int:
    """The most blanks any part of the combos reads by number (at least 1)."""
    count = 1
    for combo in spec.combos:
        for node in walk(combo.tree):
            if isinstance(node, Call) and node.op in "TLQFS" and isinstance(node.args[0], Const):
                n = node.args[0].value
                if isinstance(n, int) and not isinstance(n, bool):
                    count = max(count, n + 1 if n >= 0 else -n)
    return count


def never_counting(spec: RuleSpec, combos: list[Any], found: Outcomes, known: list[Diagnostic]) -> list[Diagnostic]:
    """What the case analysis (:mod:`.cases`) adds: each combo's contribution narrowed to
    the values it takes, and warnings for combos that never count or never change the
    total, unless the types already said so."""
    flagged = {d.path.split(".")[1] for d in known if d.path.startswith("combos.") and d.severity == "warning"
               and ("never" in d.message or "always contributes 0" in d.message)}
    out = []
    for combo, tried, values, irrelevant in zip(combos, found.tried, found.contributions, found.irrelevant):
        if not tried:
            continue
        combo.lo, combo.hi = max(combo.lo, min(values)), min(combo.hi, max(values))
        combo.values = frozenset(values)
        if combo.id in flagged:
            continue
        path = f"combos.{combo.id}"
        if values == {0}:
            message = "never true" if combo.mode == "logic" else "always contributes 0"
            out.append(Diagnostic(path, f"{message} whatever its atoms find: this combo never counts",
                                  severity="warning"))
        elif irrelevant and len(combos) > 1:
            if spec.combo_mode == "MAX":
                why = "never reaches the MAX total: whatever the atoms find, another combo gives as much"
            else:
                why = "never changes the total: whatever the atoms find, the 0–10 clamp gives the same total without it"
            out.append(Diagnostic(path, why, severity="warning"))
    return out


def dominated(combos: list[Any]) -> list[Diagnostic]:
    """Warnings for the combos of a ``MAX`` rule that never reach the total."""
    out = []
    for combo in combos:
        if combo.lo == combo.hi == 0:
            continue  # already reported
        best_other = max((c.lo for c in combos if c is not combo), default=-INF)
        if combo.hi <= 0 or combo.hi <= best_other:
            why = ("never above 0" if combo.hi <= 0
                   else f"at most {show(combo.hi)}, while another combo always gives at least {show(best_other)}")
            out.append(Diagnostic(f"combos.{combo.id}", f"never reaches the MAX total ({why})", severity="warning"))
    return out


def total_range(combos: list[Any], mode: str) -> tuple[float, float]:
    """Bounds of the total from the combos' contributions, clamped to the scale."""
    if not combos:
        return 0, 0
    if mode == "ADD":
        lo, hi = sum(c.lo for c in combos), sum(c.hi for c in combos)
    else:
        lo, hi = max(c.lo for c in combos), max(c.hi for c in combos)
    if math.isnan(lo) or math.isnan(hi):
        lo, hi = -INF, INF
    return float(min(SCALE[1], max(SCALE[0], lo))), float(min(SCALE[1], max(SCALE[0], hi)))


def show(x: float) -> str:
    """A number as the messages show it (``5``, ``0.5``, ``1e+06``)."""
    return f"{x:g}"
