"""SM kernel in pure Python: count the groups of an SM desc that hit a string.

The twin of the compiled :mod:`coscore._fast.substring` (same names, same results).
For each group, t = s; its options in order: an empty option never matches; '!x' with
x in t stops the group; '~x' with x in t sets t = t.replace(x, '') and goes on to the
next check for the same option; an option found in t (the whole option text, prefix
included) counts the group and stops it (:func:`group_hits`; it and the check of the
groups, :func:`checked_groups`, are the ones of :mod:`coscore._fast._common`).

``kernel`` and ``use_ac`` say which scan the compiled scanner would use for the same
groups (the twin itself always walks the options with ``in``).
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from ._common import checked_groups, group_hits
from ._texts_py import as_seq, text, texts

_KERNEL_IN = 0   # leading options found with str `in` (automaton too big)
_KERNEL_AC = 1   # Aho-Corasick automaton
_KERNEL_SA = 2   # Shift-And

# dense automaton tables above this many entries fall back to str `in`
_MAX_TABLE = 1 << 22

_BIT = tuple(1 << b for b in range(64))

_sa_bits = 128
_nibbles = True


def _set_nibbles(on: bool) -> bool:
    """Testing hook of the compiled kernel (its AVX2 prefilter); no effect here.
    Returns the previous setting."""
    global _nibbles
    old, _nibbles = _nibbles, bool(on)
    return old


def _set_shift_and_bits(bits: int) -> int:
    """Testing hook: the largest total option length the compiled kernel scans with
    Shift-And (0: never, at most 128); decides ``kernel`` of scanners built afterwards.
    Returns the previous value."""
    global _sa_bits
    old, _sa_bits = _sa_bits, max(0, min(128, int(bits)))
    return old


def _kernel(leads: list[list[str]]) -> int:
    """The scan the compiled scanner picks for these leading options (see substring.pyx)."""
    patterns = dict.fromkeys(o for lead in leads for o in lead)
    if not patterns:
        return _KERNEL_IN
    if sum(len(o) for o in patterns) <= _sa_bits:
        return _KERNEL_SA
    states = 1 + len({o[:i] for o in patterns for i in range(1, len(o) + 1)})
    width = len(set("".join(patterns))) + 1
    return _KERNEL_IN if states * width > _MAX_TABLE else _KERNEL_AC


class SubstringScanner:
    """SubstringScanner(groups): count(s) = number of groups that hit s.

    groups: desc.split(",") then each .split("|"), options verbatim with their
    '!'/'~' prefixes.
    """

    __slots__ = ("_groups", "_has_tails", "_kernel")

    def __init__(self, groups: Iterable[Iterable[str]]):
        gs = checked_groups(groups)
        self._groups = gs
        leads: list[list[str]] = []
        self._has_tails = False
        for group in gs:
            first = next((i for i, o in enumerate(group) if o and o[0] in "!~"), len(group))
            lead = [o for o in group[:first] if o]
            if lead:
                leads.append(lead)
            if any(group[first:]):
                self._has_tails = True
        self._kernel = _kernel(leads)

    @property
    def groups(self) -> tuple[tuple[str, ...], ...]:
        """The groups, options verbatim."""
        return self._groups

    @property
    def kernel(self) -> int:
        """The compiled scanner's scan for these groups: 0 `in`, 1 Aho-Corasick, 2 Shift-And."""
        return self._kernel

    @property
    def use_ac(self) -> bool:
        """False only when the compiled scanner finds the leading options with `in`."""
        return self._kernel != _KERNEL_IN

    def __reduce__(self) -> tuple[Any, ...]:
        return (SubstringScanner, ([list(g) for g in self._groups],))

    def __repr__(self) -> str:
        return f"SubstringScanner({[list(g) for g in self._groups]!r})"

    def count(self, s: str) -> int:
        """Number of groups that hit s."""
        t = text(s)
        return sum(1 for g in self._groups if group_hits(g, t))

    def count_many(self, strings: Iterable[str]) -> np.ndarray:
        """count() of every string, as an int64 numpy array."""
        seq = as_seq(strings)
        if self._kernel == _KERNEL_IN or self._has_tails:
            counts: np.ndarray = self.count_many_parts(seq, (len(self._groups),))[0]
            return counts
        out = np.zeros(len(seq), dtype=np.int64)
        for i, t in enumerate(texts(seq) if len(seq) else ()):
            out[i] = sum(1 for g in self._groups if group_hits(g, t))
        return out

    def count_many_parts(self, strings: Iterable[str], parts: Sequence[int]) -> np.ndarray:
        """count_many() split by consecutive runs of groups, in one scan per string:
        ``parts`` are the numbers of groups of the runs, in order (they add up to all
        the groups). Returns an int64 array of shape ``(len(parts), len(strings))``."""
        seq = as_seq(strings)
        n_groups = len(self._groups)
        if sum(parts) != n_groups or any(p < 0 for p in parts):
            raise ValueError(f"parts must add up to the {n_groups} groups, got {list(parts)}")
        part_of = np.repeat(np.arange(len(parts), dtype=np.intp), np.asarray(parts, dtype=np.intp))
        out = np.zeros((len(parts), len(seq)), dtype=np.int64)
        if len(seq) == 0 or n_groups == 0:
            return out
        for i, t in enumerate(texts(seq)):
            for gi, g in enumerate(self._groups):
                if group_hits(g, t):
                    out[part_of[gi], i] += 1
        return out
