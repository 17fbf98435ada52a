"""The distinct answers a rule scores furthest from their marks, grouped by similarity,
each with the atom that came closest.

An answer is *missed* when its score and its mark (the mean mark of its rows), each
rounded half up as ``coscore report`` rounds them, differ: *under* when the score is
lower (the rule lacks a key these answers use), *over* when it is higher (something
matched that should not). The most missed (largest ``|score − mark|``, then the most
rows) are grouped, in that order, by the similarity of their texts — the overlap
coefficient of their sets of phrases of 2 characters (:func:`.phrases.ngrams`; of single
characters for a text too short for any): the phrases they share over the smaller set's
size, so that a short answer inside a long one is alike — each joining the group of its
direction whose every answer is at least ``similar`` alike (the most alike such group),
or starting a group. A group of several answers shows the longest phrase they all
contain (``shared``).

The *closest atom* of an answer comes from its explanation (:func:`coscore.explain.explain`),
over the atom calls its combos made. Each call's closeness, from 0 to 1: an OP/CS call's
best similarity; an SM call's share of groups counted; an EM call's 1 when a key equals
the text, else the best multiset Jaccard of characters of a key and the text. For an
under-scored answer it is the call that fell short (OP/CS missed its threshold, SM left a
group uncounted, EM found no key) with the highest closeness; for an over-scored one,
the call that hit with the highest closeness (what gave the points).
"""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..explain import CSEvidence, EMEvidence, OPEvidence, SMEvidence, explain
from ..report import round_half_up
from .phrases import ngrams, segments

if TYPE_CHECKING:
    from ..rule import Rule


@dataclass
class Closest:
    """The atom call that came closest: ``atom``, ``kind``, the ``text`` it saw, whether it
    ``hit``, its ``closeness`` (0–1) and what it found (``detail``)."""

    atom: str
    kind: str
    text: str
    hit: bool
    closeness: float
    detail: str


@dataclass
class Missed:
    """One distinct answer: its ``rows`` (1-based), mean ``mark``, ``score`` and ``gap``
    (score − mark), and the closest atom call (``None`` when no call qualifies)."""

    answer: list[str]
    rows: list[int]
    mark: float
    score: float
    gap: float
    closest: Closest | None = None


@dataclass
class Group:
    """Similar missed answers of one ``direction`` (``"under"`` or ``"over"``) and the
    longest text they all contain (``""`` for one answer or none)."""

    direction: str
    answers: list[Missed] = field(default_factory=list)
    shared: str = ""


def missed(rule: Rule, answers: Sequence[Sequence[str]], marks: np.ndarray, scores: np.ndarray,
           limit: int = 20, similar: float = 0.4,
           check: Callable[[], None] | None = None) -> tuple[list[Group], int]:
    """The ``limit`` most missed distinct answers of the marked rows, grouped; and how
    many distinct answers failed (no score: see ``coscore explain``). ``check`` is called
    before each answer explained (a budget's check, which may stop the search)."""
    first: dict[tuple, int] = {}
    rows: list[list[int]] = []
    for i, answer in enumerate(answers):
        key = tuple(answer)
        if key not in first:
            first[key] = len(rows)
            rows.append([])
        rows[first[key]].append(i)
    found, failed = [], 0
    for key, k in first.items():
        score = float(scores[rows[k][0]])
        if math.isnan(score):
            failed += 1
            continue
        mark = float(np.mean(marks[rows[k]]))
        if round_half_up(score) != round_half_up(mark):
            found.append(Missed(list(key), [i + 1 for i in rows[k]], mark, score, score - mark))
    found.sort(key=lambda m: (-abs(m.gap), -len(m.rows), m.rows[0]))
    groups: list[Group] = []
    grams: list[list[set[str]]] = []
    for m in found[:limit]:
        if check is not None:
            check()
        direction = "under" if m.gap < 0 else "over"
        m.closest = closest(rule, m.answer, direction)
        mine = _bigrams(m.answer)
        alike = [(min(_overlap(mine, other) for other in grams[g]), g)
                 for g, group in enumerate(groups) if group.direction == direction]
        best = max(alike, default=(0.0, -1), key=lambda item: (item[0], -item[1]))
        if alike and best[0] >= similar:
            groups[best[1]].answers.append(m)
            grams[best[1]].append(mine)
        else:
            groups.append(Group(direction, [m]))
            grams.append([mine])
    for group in groups:
        if len(group.answers) > 1:
            group.shared = common_text([m.answer for m in group.answers])
    return groups, failed


def _bigrams(answer: Sequence[str]) -> set[str]:
    grams = ngrams(answer, (2,))
    return grams or {ch for blank in answer if type(blank) is str for ch in blank}


def _overlap(a: set[str], b: set[str]) -> float:
    """The overlap coefficient: shared items over the smaller set's size."""
    return len(a & b) / min(len(a), len(b)) if a and b else float(a == b)


def common_text(answers: Sequence[Sequence[str]], longest: int = 40) -> str:
    """The longest phrase (2 to ``longest`` letters, digits or marks: within one segment,
    :func:`.phrases.segments`) in every one of ``answers``; the first in the shortest
    answer when several are as long; ``""`` when there is none."""
    texts = ["\n".join(b for b in answer if type(b) is str) for answer in answers]
    parts = [part for blank in min(answers, key=lambda a: len("".join(map(str, a)))) if type(blank) is str
             for part in segments(blank)]
    for n in range(min(longest, max(map(len, parts), default=0)), 1, -1):
        for part in parts:
            for i in range(len(part) - n + 1):
                if all(part[i:i + n] in t for t in texts):
                    return part[i:i + n]
    return ""


def closest(rule: Rule, answer: Sequence[str], direction: str) -> Closest | None:
    """The closest atom call of ``answer`` (see the module doc) for an answer scored
    ``direction`` (``"under"`` or ``"over"``) of its mark."""
    best: Closest | None = None
    for call in explain(rule, list(answer)).calls:
        closeness, full, detail = _closeness(call.evidence, call.text)
        short = not full
        if ((direction == "under" and short) or (direction == "over" and call.hit)) and (
                best is None or closeness > best.closeness):
            best = Closest(call.atom, call.kind, call.text, bool(call.hit), closeness, detail)
    return best


def _closeness(ev: Any, text: str) -> tuple[float, bool, str]:
    """``(closeness, whether the call hit fully, what it found)`` of one call's evidence."""
    if isinstance(ev, (OPEvidence, CSEvidence)):
        if ev.best is None:
            return 0.0, False, "no keys"
        full = ev.best.similarity >= ev.threshold
        sign = "≥" if full else "<"
        return (ev.best.similarity, full,
                f"best key \"{ev.best.key}\" {ev.best.similarity:.3g} {sign} threshold {ev.threshold:g}")
    if isinstance(ev, SMEvidence):
        total = len(ev.groups)
        counted = [next(s.option for s in g.steps if s.action == "counted") for g in ev.groups if g.counted]
        missing = [g.steps[0].option if g.steps else "" for g in ev.groups if not g.counted]
        detail = f"{ev.count} of {total} groups counted" + (f" ({', '.join(counted)})" if counted else "")
        if missing:
            detail += f"; not: {', '.join(missing[:5])}" + ("…" if len(missing) > 5 else "")
        return (ev.count / total if total else 0.0), ev.count == total, detail
    if isinstance(ev, EMEvidence):
        if ev.matched is not None:
            return 1.0, True, f"key \"{ev.matched}\""
        scored = [(_characters(key, text), key) for key in ev.keys]
        value, key = max(scored, default=(0.0, ""), key=lambda item: item[0])
        return value, False, f"no key equal; most alike \"{key}\" ({value:.3g})"
    return 0.0, False, ""


def _characters(a: str, b: str) -> float:
    """The multiset Jaccard index of the characters of ``a`` and ``b``."""
    ca, cb = Counter(a), Counter(b)
    union = sum((ca | cb).values())
    return sum((ca & cb).values()) / union if union else 0.0
