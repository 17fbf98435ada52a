"""A drop-in replacement for the original CoScore engine's ``Rule`` class.

Frontends written for the original (its Flask app does
``score, debugInfo = Rule(rule).calculate(answers)``) change one import::

    from coscore.compat import Rule

    score, debugInfo = Rule(rule_dict).calculate(["blank 0", "blank 1"])
    del debugInfo["calMemory"]          # as the original's callers do

``score`` and every combo value in ``debugInfo`` have the original's Python types
(``int`` where it gives an int, ``float`` where it gives a float, ``bool`` where a
logic combo's ``score`` is one; never numpy scalars), so ``json.dumps`` of the result
is byte-identical to the original's. Where the original raises for an answer, the same
exception class is raised (``ZeroDivisionError``, ``TypeError``, ``IndexError``, …); a
NaN total raises ``ValueError`` (the original returned NaN). ADD totals use the
interpreter's own ``sum()`` as the original does (from Python 3.12 it compensates float
rounding, so the last bit can differ from :func:`coscore.compile`'s one left-to-right
order). Differences from the original are the documented deviations of docs/semantics.md;
in particular a rule that can never be scored (unknown atom type, bad ``comboMode``,
syntax error in a combo, …) raises :class:`coscore.RuleError` (a ``ValueError``) when
``Rule`` is built instead of misbehaving later.

Rules are compiled once and kept in a bounded LRU cache keyed by their content, so
building a ``Rule`` per request costs one ``json.dumps`` of the rule after the first time.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from . import rule as _rule
from .rulecache import DEFAULT_CACHE_SIZE, RuleCache, rule_key, rule_nbytes

__all__ = ["Rule", "RuleCache", "cache_info", "clear_cache", "compile_cached", "rule_key", "rule_nbytes"]


_CACHE = RuleCache(DEFAULT_CACHE_SIZE)


def compile_cached(source: Any) -> _rule.Rule:
    """:func:`coscore.compile` through the module-wide cache used by :class:`Rule`."""
    return _CACHE.get(source)


def cache_info() -> dict:
    """Statistics of the module-wide cache."""
    return _CACHE.info()


def clear_cache() -> None:
    """Empty the module-wide cache."""
    _CACHE.clear()


def _cal_memory() -> dict:
    # The original's per-answer memo table; callers delete it. Same keys, no content.
    return {"T": {}, "L": {}, "Q": {}, "F": {}, "U": {}, "S": {}, "GandM": {}}


class Rule:
    """The original engine's ``Rule``: ``Rule(rule_dict).calculate(answer_list)``.

    ``rule`` is the rule object (a dict as parsed from JSON; JSON text is accepted too).
    Raises :class:`coscore.RuleError` if the rule cannot be compiled.
    """

    __slots__ = ("_compiled", "_ids", "atoms", "comboMode", "combos", "rule")

    def __init__(self, rule: Mapping[str, Any] | str):
        compiled = _CACHE.get(rule)
        self._compiled = compiled
        self._ids = tuple(compiled.combo_ids)
        self.rule = rule
        source = compiled.spec.source
        # the original's public attributes
        self.atoms = source.get("atoms")
        self.combos = source.get("combos")
        self.comboMode = source.get("comboMode")

    def calculate(self, answer_list: Sequence[str]) -> tuple[Any, dict]:
        """Score one student's answer (a list of blanks): ``(score, debugInfo)``.

        ``debugInfo`` maps each combo id, in rule order, to the combo's value, then
        ``"calMemory"`` to a dict (delete it before serialising, as the original's
        callers do). Raises the original's exception class where it would have raised.
        """
        blanks = list(answer_list)  # indexing like the original (a str gives its characters)
        results: list = []
        score = self._compiled.evaluate(blanks, results, add=sum)  # the original totals with sum()
        debug = dict(zip(self._ids, results))
        debug["calMemory"] = _cal_memory()
        return score, debug

    def __repr__(self) -> str:
        return f"<coscore.compat.Rule combos {','.join(self._ids)} {self.comboMode}>"
