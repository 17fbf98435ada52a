"""Which blanks a rule reads: :func:`blank_need`, the number of blank columns it takes.

Every ``T``, ``L``, ``Q``, ``F`` and ``S`` call reads a blank. A rule *needs* as many blanks
as the highest constant index any call of any combo reads, plus one (``T(-2)`` needs 2),
whether that call runs on every answer or not; it reads *any number* when a call reads
``'*'`` (every blank) or an index that is not a constant (``T(1 + 1)``). Columns are taken as
blanks by default only when they fit this need (:mod:`coscore.io.blanks`), and an exam item
lists exactly these.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from .nodes import BLANK_OPERATORS, Call, Const, Node, walk

__all__ = ["BlankNeed", "blank_need"]


class BlankNeed(NamedTuple):
    """How many blanks a rule reads: ``count`` (the highest index read, plus one) and
    whether it reads ``any_number`` of them (``'*'``, or an index computed per answer)."""

    count: int  # type: ignore[assignment]  # the field is named as the docs name it; tuple.count is shadowed
    any_number: bool

    def fits(self, columns: int) -> bool:
        """Whether ``columns`` blank columns are what the rule reads: exactly ``count``, or
        at least ``count`` when it reads any number."""
        return columns >= self.count if self.any_number else columns == self.count

    def describe(self) -> str:
        """In words: ``reads 2 blanks (T(0)…T(1))``, ``reads any number of blanks ('*')``,
        ``reads at least 1 blank (T(0), and any number with '*')``…"""
        if self.count == 0:
            return "reads any number of blanks ('*')" if self.any_number else "reads no blank"
        calls = "T(0)" if self.count == 1 else f"T(0)…T({self.count - 1})"
        counted = f"{self.count:,} blank{'s' * (self.count != 1)}"
        if self.any_number:
            return f"reads at least {counted} ({calls}, and any number with '*')"
        return f"reads {counted} ({calls})"


def blank_need(trees: Iterable[Node]) -> BlankNeed:
    """The :class:`BlankNeed` of combos whose parsed expressions are ``trees``."""
    need, any_number = 0, False
    for tree in trees:
        for node in walk(tree):
            if not isinstance(node, Call) or node.op not in BLANK_OPERATORS:
                continue
            arg = node.args[0]
            if isinstance(arg, Const) and isinstance(arg.value, int):  # True reads blank 1, as in the evaluator
                index = int(arg.value)
                need = max(need, index + 1 if index >= 0 else -index)
            else:
                any_number = True
    return BlankNeed(need, any_number)
