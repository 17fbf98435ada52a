"""How many blanks a rule reads: :func:`blank_need`, the number an exam item must list."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..expr.nodes import BLANK_OPERATORS, Call, Const, walk

if TYPE_CHECKING:
    from ..rule import Rule

__all__ = ["blank_need", "describe_need"]


def blank_need(rule: Rule) -> tuple[int, bool]:
    """``(need, any_number)`` for a compiled rule: ``need`` is the number of blanks it reads —
    the highest constant index any ``T``, ``L``, ``Q``, ``F`` or ``S`` call of any combo reads,
    plus one (``T(-2)`` needs 2) — whether that call runs on every answer or not; and
    ``any_number`` whether it reads any number of blanks (``T('*')``, or an index that is
    not a constant, such as ``T(1 + 1)``).

    Unlike :func:`coscore.expr.types.check_rule`'s ``blanks_needed`` (the blanks every
    answer must have), this counts every read: an item must list each column its rule may read.
    """
    need, any_number = 0, False
    for combo in rule.spec.combos:
        for node in walk(combo.tree):
            if not isinstance(node, Call) or node.op not in BLANK_OPERATORS:
                continue
            arg = node.args[0]
            if isinstance(arg, Const) and isinstance(arg.value, int):  # True reads blank 1, as in the evaluator
                index = int(arg.value)
                need = max(need, index + 1 if index >= 0 else -index)
            else:
                any_number = True
    return need, any_number


def describe_need(need: int, any_number: bool) -> str:
    """``need`` and ``any_number`` in words: ``reads 2 blanks (T(0)…T(1))``, ``reads any
    number of blanks ('*')``, ``reads at least 1 blank (T(0), and any number with '*')``…"""
    if need == 0:
        return "reads any number of blanks ('*')" if any_number else "reads no blank"
    calls = "T(0)" if need == 1 else f"T(0)…T({need - 1})"
    counted = f"{need:,} blank{'s' * (need != 1)}"
    if any_number:
        return f"reads at least {counted} ({calls}, and any number with '*')"
    return f"reads {counted} ({calls})"
