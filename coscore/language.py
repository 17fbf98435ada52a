"""What the rule language tells about a compiled rule, for the command, the service and the
apps: the problems its type pass finds (:func:`check_rule`, :func:`combo_findings`), what
each combo can give in Python's types and the text it writes (:func:`combo_kinds`), and the
score scale (:data:`SCORE_SCALE`). The fronts ask here, never :mod:`coscore.expr` itself.

>>> import coscore
>>> rule = coscore.compile({"atoms": {"0": {"type": "EM", "desc": "a"}},
...                         "combos": {"A": {"combo": "G(0, T(0)) and 'ok'", "score": 2, "mode": "logic"}},
...                         "comboMode": "ADD"})
>>> [(c.id, sorted(c.kinds), c.texts) for c in combo_kinds(rule)]
[('A', ['bool', 'str'], ('ok',))]
>>> check_rule(rule).describe_range()
'scores exactly 0–2'
"""
from __future__ import annotations

from dataclasses import dataclass

from .expr.nodes import Const, walk
from .expr.ranges import SCALE
from .expr.type_algebra import product_kinds
from .expr.types import ComboType, TypeReport, check_rule, combo_findings, combo_types
from .spec import CompiledRule

__all__ = ["SCORE_SCALE", "ComboKinds", "ComboType", "TypeReport", "check_rule", "combo_findings", "combo_kinds"]

#: The marks and scores a rule is written for: 0 to 10.
SCORE_SCALE: tuple[int, int] = SCALE

_INT = frozenset({"int"})


@dataclass(frozen=True)
class ComboKinds:
    """What one combo of a compiled rule can give, as Python type names (``"bool"``,
    ``"int"``, ``"float"``, ``"str"``).

    ``kinds``: what its expression may give. ``contribution``: what its contribution to the
    score may be ``(when non-zero, when zero)`` (a logic combo gives its score or the int 0,
    a value combo its value × its score); ``None`` when that cannot be known before scoring
    (the rule's ``U`` calls take arguments of different kinds, and ``U`` keeps one result per
    answer and arguments). ``texts``: the text constants written in the combo, in order.
    """

    id: str
    kinds: frozenset[str]
    contribution: tuple[frozenset[str], frozenset[str]] | None
    texts: tuple[str, ...]


def combo_kinds(rule: CompiledRule) -> list[ComboKinds]:
    """:class:`ComboKinds` of each combo of ``rule`` (a compiled :class:`coscore.Rule`), in the
    rule's order (from the type pass :func:`check_rule` makes, without scoring anything)."""
    types, mixed_u = combo_types(rule)
    found = []
    for combo, t in zip(rule.spec.combos, types, strict=True):
        texts = tuple(n.value for n in walk(combo.tree) if isinstance(n, Const) and isinstance(n.value, str))
        score = frozenset({type(combo.score).__name__})
        truthy, falsy = t.split
        contribution: tuple[frozenset[str], frozenset[str]] | None
        if mixed_u:
            contribution = None
        elif combo.mode == "logic":  # score if truthy else int 0
            contribution = (score if combo.score else frozenset(), _INT | (frozenset() if combo.score else score))
        else:  # value * score
            nonzero, zero = product_kinds(truthy, score), product_kinds(falsy, score)
            contribution = (nonzero, zero) if combo.score else (frozenset(), zero | nonzero)
        found.append(ComboKinds(combo.id, t.kinds, contribution, texts))
    return found
