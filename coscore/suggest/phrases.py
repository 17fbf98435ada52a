"""Phrases that separate high marks from low ones and that no atom of the rule covers.

A *phrase* is a run of 2 to 4 characters (:data:`SIZES`) inside one *segment* of a
blank: a maximal run of letters, digits and combining marks (Unicode categories L, N,
M), so a phrase never spans punctuation, spaces, symbols or two blanks. No word
segmentation is needed: in Chinese or Japanese the runs of characters are the phrases.
Case is kept, as SM matches it.

The marked rows are split at the median mark: *high* rows are marked above it (at or
above it when no row is above), *low* rows the others. A phrase found in ``a`` of the
``n1`` high rows and ``c`` of the ``n0`` low rows has the log odds ratio
``log((a + ½)(d + ½) / ((b + ½)(c + ½)))`` (``b = n1 − a``, ``d = n0 − c``; ½ added to
every cell, Haldane–Anscombe), and ``z`` is that divided by its standard error
``sqrt(Σ 1 / (cell + ½))``: ``z > 0`` for a phrase of high marks, ``z < 0`` of low ones.

A phrase is *covered* when an atom already names it: it lies inside an EM/OP/CS key or
an SM option (its ``!``/``~`` prefix set aside), or an SM option lies inside it (every
answer with the phrase then has that option). Of phrases found in exactly the same rows,
only the longest is kept (``障碍物`` hides ``障碍`` when every answer with one has the other),
covered or not: ``否有``, found only inside ``是否有``, goes with it when ``是否`` is an option.
Fragments of one longer phrase are merged into it first: two phrases found in exactly the
same rows that overlap (the end of one is the start of the other: ``资源十分`` and
``源十分紧``) become the phrase they spell together (``资源十分紧``) when every one of those
rows has it, again until no two overlap, up to :data:`MERGED_LIMIT` characters.
"""
from __future__ import annotations

import dataclasses
import math
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from ..rule import Rule

#: The phrase lengths, in characters.
SIZES: tuple[int, ...] = (2, 3, 4)
#: The longest phrase that merging overlapping fragments makes, in characters.
MERGED_LIMIT = 16
#: The rows (and phrases) counted between two checks of the budget.
CHECK_EVERY = 512


def segments(text: str) -> list[str]:
    """The maximal runs of letters, digits and marks in ``text``."""
    out: list[str] = []
    start = None
    for i, ch in enumerate(text):
        if unicodedata.category(ch)[0] in "LNM":
            if start is None:
                start = i
        elif start is not None:
            out.append(text[start:i])
            start = None
    if start is not None:
        out.append(text[start:])
    return out


def ngrams(blanks: Sequence[str], sizes: Sequence[int] = SIZES) -> set[str]:
    """Every phrase of the answer ``blanks`` (each a string)."""
    found: set[str] = set()
    for blank in blanks:
        if type(blank) is not str:
            continue
        for part in segments(blank):
            for n in sizes:
                found.update(part[i:i + n] for i in range(len(part) - n + 1))
    return found


def atom_texts(rule: Rule) -> tuple[list[str], list[str]]:
    """What the atoms of ``rule`` (a compiled :class:`coscore.Rule`) name: every key and
    option (prefixes set aside), and the SM options alone."""
    keys: list[str] = []
    options: list[str] = []
    for atom in rule.atoms.values():
        if atom.kind == "SM":
            for group in atom.groups:
                for option in group:
                    text = option[1:] if option[:1] in ("!", "~") else option
                    if text:
                        options.append(text)
                        keys.append(text)
        else:
            keys.extend(k for k in atom.keys if k)
    return keys, options


def covered(phrase: str, keys: Sequence[str], options: Sequence[str]) -> bool:
    """Whether an atom names ``phrase`` (see the module doc)."""
    return any(phrase in key for key in keys) or any(option in phrase for option in options)


@dataclass
class Phrase:
    """One phrase: the ``rows`` (0-based) that have it, how many are ``high`` and ``low``,
    the mean mark with and without it, ``z`` (see the module doc), and how many of its
    rows the rule scores below the mark (``under``, by at least a rounded point) and above."""

    phrase: str
    rows: list[int]
    high: int
    low: int
    mean_with: float
    mean_without: float | None
    z: float
    under: int = 0
    over: int = 0
    examples: list[dict[str, Any]] = field(default_factory=list)

    @property
    def direction(self) -> str:
        """``"high"`` for a phrase of high marks, ``"low"`` of low ones."""
        return "high" if self.z > 0 else "low"


def split(marks: np.ndarray) -> tuple[np.ndarray, float, str]:
    """Which rows are high (a bool array), the median, and how the split reads (``"above 4"``)."""
    median = float(np.median(marks)) if marks.size else math.nan
    high = marks > median
    how = f"above {median:g}"
    if not high.any():
        high, how = marks >= median, f"{median:g} or more"
    return high, median, how


def z_score(a: int, n1: int, c: int, n0: int) -> float:
    """The log odds ratio of a phrase in ``a`` of ``n1`` high rows and ``c`` of ``n0`` low
    rows, over its standard error (½ added to every cell)."""
    cells = (a + 0.5, n1 - a + 0.5, c + 0.5, n0 - c + 0.5)
    log_odds = math.log(cells[0] * cells[3] / (cells[1] * cells[2]))
    return log_odds / math.sqrt(sum(1 / x for x in cells))


def find(answers: Sequence[Sequence[str]], marks: np.ndarray, rule: Rule, min_rows: int = 3,
         min_z: float = 2.0, check: Callable[[], None] | None = None) -> tuple[list[Phrase], int]:
    """The phrases of ``answers`` (the marked rows) found in at least ``min_rows`` rows with
    ``|z| >= min_z`` that no atom of ``rule`` covers, strongest first; and how many
    phrases that qualified were left out as covered. ``check`` is called every
    :data:`CHECK_EVERY` rows and phrases (a budget's check, which may stop the search)."""
    high, _, _ = split(marks)
    n1, n0 = int(high.sum()), int((~high).sum())
    if not n1 or not n0:
        return [], 0
    rows_of: dict[str, list[int]] = {}
    for row, answer in enumerate(answers):
        if check is not None and row % CHECK_EVERY == 0:
            check()
        for phrase in ngrams(answer):
            rows_of.setdefault(phrase, []).append(row)
    keys, options = atom_texts(rule)
    total = float(marks.sum())
    qualified: list[Phrase] = []
    for k, (phrase, rows) in enumerate(rows_of.items()):
        if check is not None and k % CHECK_EVERY == 0:
            check()
        if len(rows) < min_rows:
            continue
        a = int(high[rows].sum())
        z = z_score(a, n1, len(rows) - a, n0)
        if abs(z) < min_z:
            continue
        with_sum = float(marks[rows].sum())
        rest = len(marks) - len(rows)
        qualified.append(Phrase(phrase, rows, a, len(rows) - a, with_sum / len(rows),
                                (total - with_sum) / rest if rest else None, z))
    longest = _longest(_merged(qualified, answers))
    kept = [p for p in longest if not covered(p.phrase, keys, options)]
    return kept, len(longest) - len(kept)


def _merged(phrases: list[Phrase], answers: Sequence[Sequence[str]]) -> list[Phrase]:
    """``phrases`` with the fragments of one longer phrase merged into it (see the module
    doc): of two phrases in exactly the same rows where the end of one is the start of the
    other, the text they spell together, when every one of their rows has it (at most
    :data:`MERGED_LIMIT` characters); the merged phrase has their rows and figures."""
    by_rows: dict[tuple[int, ...], list[Phrase]] = {}
    for p in phrases:
        by_rows.setdefault(tuple(p.rows), []).append(p)
    out: list[Phrase] = []
    for rows, same in by_rows.items():
        while len(same) > 1:
            merge = _overlapping(same, [answers[row] for row in rows])
            if merge is None:
                break
            first, second, text = merge
            same = [p for p in same if p is not first and p is not second and p.phrase not in text]
            same.append(dataclasses.replace(first, phrase=text))
        out.extend(same)
    return out


def _overlapping(same: list[Phrase], answers: list[Sequence[str]]) -> tuple[Phrase, Phrase, str] | None:
    """Two of ``same`` (phrases of the same rows) that overlap, and the longest text they
    spell together that every one of ``answers`` (those rows) has; ``None`` if none do."""
    starts: dict[str, list[Phrase]] = {}
    for q in same:
        for k in range(1, len(q.phrase)):
            starts.setdefault(q.phrase[:k], []).append(q)
    candidates: list[tuple[int, int, Phrase, Phrase, str]] = []
    for i, p in enumerate(same):
        for k in range(len(p.phrase) - 1, 0, -1):
            for q in starts.get(p.phrase[-k:], ()):
                text = p.phrase + q.phrase[k:]
                if q is not p and len(text) <= MERGED_LIMIT and p.phrase not in q.phrase and q.phrase not in p.phrase:
                    candidates.append((-len(text), i, p, q, text))
    candidates.sort(key=lambda c: (c[0], c[1], c[4]))
    for _, _, p, q, text in candidates:  # the longest first; the first every row has
        if all(any(type(b) is str and text in b for b in answer) for answer in answers):
            return p, q, text
    return None


def _longest(phrases: list[Phrase]) -> list[Phrase]:
    """Of phrases found in the same rows, the ones no other contains; strongest first
    (largest ``|z|``, then more rows, then the phrase itself)."""
    by_rows: dict[tuple[int, ...], list[Phrase]] = {}
    for p in phrases:
        by_rows.setdefault(tuple(p.rows), []).append(p)
    kept = [p for same in by_rows.values() for p in same
            if not any(p.phrase != q.phrase and p.phrase in q.phrase for q in same)]
    return sorted(kept, key=lambda p: (-abs(p.z), -len(p.rows), p.phrase))
