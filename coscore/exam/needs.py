"""How many blanks a rule reads (:func:`blank_need`), the number an exam item must list;
the count itself is the language's (:mod:`coscore.expr.reads`)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..expr.reads import BlankNeed

if TYPE_CHECKING:
    from ..rule import Rule

__all__ = ["blank_need", "describe_need"]


def blank_need(rule: Rule) -> BlankNeed:
    """``(need, any_number)`` for a compiled rule (:attr:`coscore.Rule.blank_need`): the
    number of blanks it reads — the highest constant index any ``T``, ``L``, ``Q``, ``F`` or
    ``S`` call reads, plus one, whether that call runs on every answer or not — and whether
    it reads any number of blanks (``T('*')``, or an index that is not a constant).

    Unlike :func:`coscore.expr.types.check_rule`'s ``blanks_needed`` (the blanks every
    answer must have), this counts every read: an item must list each column its rule may read.
    """
    return rule.blank_need


def describe_need(need: int, any_number: bool) -> str:
    """``need`` and ``any_number`` in words (:meth:`coscore.expr.reads.BlankNeed.describe`)."""
    return BlankNeed(need, any_number).describe()
