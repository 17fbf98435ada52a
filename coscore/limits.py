"""Budgets: what one answer may cost to score, and how large a rule may be.

A :class:`Limits` goes with a compiled rule (``coscore.compile(rule, limits=Limits(...))``).
Its *answer* budgets bound each answer on every path (``score``, ``score_many``, the
command, the service, Dask); going over one makes that answer's outcome an error that
names the budget (:class:`BudgetExceeded`), before the memory or the time is spent. Its
*rule* budgets are checked when the rule is compiled, before any table is allocated;
going over one is a :class:`~coscore.RuleError` naming the budget.

The defaults are far above what real rules and answers need: raise one only for a rule
or data you trust.

What the budgets of a run measure and how they are given are here too: a process's
resident memory (:func:`rss_bytes`) and sizes in bytes on the command line
(:func:`parse_size`). The budgets of a search (``tune``, ``suggest``) are in
:mod:`coscore.search_budget`.
"""
from __future__ import annotations

import argparse
import dataclasses
import math
import os
import re
from dataclasses import dataclass, field

from .errors import CoscoreError

__all__ = ["DEFAULT_LIMITS", "BudgetExceeded", "Limits", "add_arguments", "finite_number", "from_arguments",
           "parse_size", "rss_bytes"]

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
_SIZE = re.compile(r"^\s*(\d+)\s*([kmg]i?b?|b)?\s*$", re.IGNORECASE)


def _limit(default: int, flag: str, what: str) -> int:
    return field(default=default, metadata={"flag": flag, "what": what})


@dataclass(frozen=True)
class Limits:
    """The budgets of a compiled rule. Every field is a positive ``int``.

    Per answer (over budget: that answer's outcome is an error naming the budget):

    - ``max_built_chars``: characters the combos may build for one answer in total, over
      every string ``+`` and repetition ``*`` of every combo (each string a combo builds
      is also limited to 10,000,000 characters, as the contract says);
    - ``max_atom_calls``: distinct atom calls (``G``/``M`` of an atom on a text) one
      answer may make — the entries of its per-answer atom-call cache;
    - ``max_work``: the kernel work of one answer's atom calls, summed: each call costs
      (text length + 1) × the atom's work per character (:attr:`coscore.atoms.Atom.work`:
      1 for EM and for SM atoms on a one-pass kernel, the number of options an SM atom
      searches one by one, the 64-bit words of an OP atom's keys, …). 10**9 units take
      about one to two seconds.

    Per rule (over budget: :class:`~coscore.RuleError` at compile time):

    - ``max_table_bytes``: the estimated memory of the atoms' match tables
      (:func:`coscore.atoms.table_bytes`), checked before any is allocated;
    - ``max_atoms``, ``max_keys`` (EM/OP/CS keys over all atoms), ``max_options``
      (SM options over all atoms), ``max_combos``, ``max_combo_chars`` (characters of
      combo text over all combos: compiling a combo costs about 13 µs and 400 bytes per
      character), checked from the rule's JSON before anything is read or parsed.
    """

    max_built_chars: int = _limit(10_000_000, "--max-answer-chars", "characters combos build per answer")
    max_atom_calls: int = _limit(100_000, "--max-answer-calls", "distinct atom calls per answer")
    max_work: int = _limit(2_000_000_000, "--max-answer-work", "kernel work per answer")
    max_table_bytes: int = _limit(256 * 2**20, "--max-rule-tables", "bytes of a rule's match tables")
    max_atoms: int = _limit(10_000, "--max-rule-atoms", "atoms in a rule")
    max_keys: int = _limit(200_000, "--max-rule-keys", "EM/OP/CS keys in a rule")
    max_options: int = _limit(200_000, "--max-rule-options", "SM options in a rule")
    max_combos: int = _limit(10_000, "--max-rule-combos", "combos in a rule")
    max_combo_chars: int = _limit(100_000, "--max-rule-combo-chars", "characters of combo text in a rule")

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if type(value) is not int or value < 1:
                raise ValueError(f"Limits.{f.name} must be a positive int, not {value!r}")


#: The budgets a rule gets unless told otherwise.
DEFAULT_LIMITS = Limits()


class BudgetExceeded(CoscoreError):
    """An answer went over one of its budgets: ``budget`` is the :class:`Limits` field,
    ``limit`` its value.

    The message names both: ``"answer budget exceeded: combos built more than
    10,000,000 characters (limit max_built_chars)"``.
    """

    def __init__(self, budget: str, limit: int):
        self.budget = budget
        self.limit = limit
        what = _ANSWER_BUDGETS[budget].format(limit=f"{limit:,}")
        super().__init__(f"answer budget exceeded: {what} (limit {budget})")


_ANSWER_BUDGETS = {
    "max_built_chars": "combos built more than {limit} characters",
    "max_atom_calls": "more than {limit} distinct atom calls",
    "max_work": "atom calls needed more than {limit} units of kernel work",
}


def over_rule_budget(budget: str, what: str, amount: int, limit: int) -> str:
    """The message of a rule over one of its budgets (a :class:`~coscore.Diagnostic`'s)."""
    return f"rule budget exceeded: {amount:,} {what}, more than {limit:,} (limit {budget})"


def rss_bytes(pid: int | str = "self") -> int:
    """The resident memory of process ``pid`` in bytes (0 where ``/proc`` is missing)."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as handle:
            return int(handle.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return 0


# -- command-line flags -------------------------------------------------------------------


def finite_number(text: str, low: float, what: str, *, above: bool = False) -> float:
    """``text`` as a finite number of at least ``low`` (more than ``low`` when ``above``),
    for an argparse ``type``; the error says it expected ``what``."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < low or (above and value == low):
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
    return value


def parse_size(text: str) -> int:
    """``"16777216"``, ``"16M"``, ``"512k"``, ``"1GiB"`` → bytes (an argparse ``type``)."""
    match = _SIZE.match(text)
    if not match:
        raise argparse.ArgumentTypeError(f"not a size in bytes: {text!r} (e.g. 16777216, 16M, 512K)")
    number, unit = int(match.group(1)), (match.group(2) or "b").lower()
    return number * {"b": 1, "k": 2**10, "m": 2**20, "g": 2**30}[unit[0]]


def _count(text: str) -> int:
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"not a positive whole number: {text!r}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``--max-answer-*`` and ``--max-rule-*`` flags, one per :class:`Limits` field."""
    group = parser.add_argument_group("budgets", "raise only for rules and data you trust (see docs/budgets.md)")
    for f in dataclasses.fields(Limits):
        group.add_argument(f.metadata["flag"], dest=f"limit_{f.name}", type=_count, default=None, metavar="N",
                           help=f"{f.metadata['what']} (default {f.default:,})")


def from_arguments(args: argparse.Namespace) -> Limits:
    """The :class:`Limits` the flags of :func:`add_arguments` ask for (defaults elsewhere)."""
    given = {f.name: getattr(args, f"limit_{f.name}", None) for f in dataclasses.fields(Limits)}
    return Limits(**{name: value for name, value in given.items() if value is not None})
