"""What a rule misses, from marked answers: the phrases that separate high marks from low
ones and that no atom covers (:mod:`.phrases`), and the distinct answers the rule scores
furthest from their marks, grouped by similarity, each with the atom that came closest
(:mod:`.misses`). :func:`suggest` gives both; :func:`render` prints them.

>>> found = suggest(Path("lane-change.rule.json"), answers, marks)   # doctest: +SKIP
>>> [(p.phrase, p.high, p.low) for p in found.high][:2]              # doctest: +SKIP
[('有障碍', 22, 11), ('左车道', 16, 5)]
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..search_budget import DEFAULT_SEARCH_BUDGET, Meter, SearchBudget, SearchStopped
from .misses import Closest, Group, Missed, missed
from .phrases import Phrase, find, split

if TYPE_CHECKING:
    from ..rule import Rule
    from ..spec import RuleSource

__all__ = ["Closest", "Group", "Missed", "Phrase", "Suggestions", "render_text", "suggest"]


@dataclass
class Suggestions:
    """The outcome of :func:`suggest`: ``n`` marked rows, how they were split (``split``:
    ``median``, ``high`` in words, ``n_high``, ``n_low``), the phrases of high marks
    (``high``) and of low marks (``low``), strongest first, ``covered`` (phrases left out
    because an atom names them), the ``groups`` of missed answers and ``failed`` (distinct
    answers the rule fails on, left out)."""

    n: int
    split: dict[str, Any]
    high: list[Phrase] = field(default_factory=list)
    low: list[Phrase] = field(default_factory=list)
    covered: int = 0
    groups: list[Group] = field(default_factory=list)
    failed: int = 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready data (the shape is documented in docs/tune.md)."""
        from ..report.sections import json_ready

        return json_ready({
            "n": self.n, "split": self.split,
            "phrases": [_phrase_dict(p) for p in [*self.high, *self.low]],
            "covered": self.covered,
            "groups": [{"direction": g.direction, "shared": g.shared,
                        "answers": [{**{k: v for k, v in asdict(m).items() if k != "closest"},
                                     "closest": asdict(m.closest) if m.closest else None} for m in g.answers]}
                       for g in self.groups],
            "failed": self.failed,
        })


def _phrase_dict(p: Phrase) -> dict[str, Any]:
    return {"phrase": p.phrase, "direction": p.direction, "rows": len(p.rows), "high": p.high, "low": p.low,
            "mean_mark_with": p.mean_with, "mean_mark_without": p.mean_without, "z": p.z,
            "under_scored": p.under, "over_scored": p.over, "examples": p.examples}


def suggest(rule: Rule | RuleSource, answers: Sequence[Any], marks: Sequence[Any] | np.ndarray, *, top: int = 10,
            min_rows: int = 3, min_z: float = 2.0, examples: int = 3, limit: int = 20,
            similar: float = 0.4, budget: SearchBudget | None = None) -> Suggestions:
    """What ``rule`` (a dict, JSON text, an ``os.PathLike`` or a compiled
    :class:`coscore.Rule`) misses on ``answers`` (lists of blanks or strings) marked
    ``marks`` (``None``/NaN: unmarked, left out).

    Phrases: found in at least ``min_rows`` rows, ``|z| >= min_z``, the ``top`` strongest
    of each direction, with up to ``examples`` example answers each (those the rule
    scores wrong in the phrase's direction first: below the mark for a phrase of high
    marks). Missed answers: the ``limit`` furthest from their marks, grouped at
    similarity ``similar`` (0–1). It runs within ``budget`` (time, memory, cancel:
    :class:`coscore.search_budget.SearchBudget`; 120 s and 1 GiB by default). Raises
    :class:`coscore.RuleError` for a rule that does not compile, ``ValueError`` when no
    answer is marked, for a mark that is not a finite number and for an option out of
    range, and :class:`~coscore.search_budget.SearchStopped` past the budget, with the
    phrases found so far.
    """
    import coscore

    from ..marks import marks_array

    for name, value in (("top", top), ("min_rows", min_rows), ("examples", examples), ("limit", limit)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be a whole number of at least 1, not {value!r}")
    for name, number, least, most in (("min_z", min_z, 0.0, math.inf), ("similar", similar, 0.0, 1.0)):
        if isinstance(number, bool) or not isinstance(number, (int, float, np.integer, np.floating)) \
                or not math.isfinite(number) or not least <= number <= most:
            bounds = "a finite number of at least 0" if most == math.inf else f"a number from {least:g} to {most:g}"
            raise ValueError(f"{name} must be {bounds}, not {number!r}")
    meter = (DEFAULT_SEARCH_BUDGET if budget is None else budget).start()
    compiled = rule if isinstance(rule, coscore.Rule) else coscore.compile(rule)
    h_all = marks_array(marks)
    if len(h_all) != len(answers):
        raise ValueError(f"{len(answers)} answers but {len(h_all)} marks")
    rows = np.flatnonzero(~np.isnan(h_all))
    if not rows.size:
        raise ValueError("no marked answers: give marks for some of them")
    chosen = [[a] if isinstance(a, str) else list(a) for a in (answers[int(i)] for i in rows)]
    h = h_all[rows]
    phrases: list[Phrase] = []
    try:
        meter.stage = "the scoring of the marked answers"
        scores = _scores(compiled, chosen, meter)
        high, median, how = split(h)
        meter.stage = "the search for phrases"
        phrases, covered = find(chosen, h, compiled, min_rows, min_z, meter.check)
        phrases = [p for p in phrases if p.z > 0][:top] + [p for p in phrases if p.z < 0][:top]
        for p in phrases:   # the examples of the phrases shown
            meter.check()
            _examples(p, chosen, h, scores, high, rows, examples)
        meter.stage = "the search for missed answers"
        groups, failed = missed(compiled, chosen, h, scores, limit, similar, meter.check)
    except SearchStopped as stop:
        raise _stopped(stop, phrases, top, stop.stage or meter.stage) from None
    for group in groups:
        for m in group.answers:
            m.rows = [int(rows[r - 1]) + 1 for r in m.rows]
    return Suggestions(int(rows.size), {"median": median, "high": how, "n_high": int(high.sum()),
                                        "n_low": int((~high).sum())},
                       [p for p in phrases if p.z > 0], [p for p in phrases if p.z < 0], covered, groups, failed)


def _scores(rule: Rule, answers: list[list[str]], meter: Meter) -> np.ndarray:
    """The scores of ``answers``, in batches, the budget checked before each."""
    parts = [rule.score_many(part).scores for part in meter.batches(answers)]
    return np.concatenate(parts) if parts else np.empty(0)


def _stopped(stop: SearchStopped, phrases: list[Phrase], top: int, stage: str) -> SearchStopped:
    """``stop`` saying the phrases found so far (all of them once the missed answers were
    being looked for; none before)."""
    high = [p for p in phrases if p.z > 0][:top]
    low = [p for p in phrases if p.z < 0][:top]
    if not phrases:
        return stop.with_result("suggest", stage, "", {})
    shown = ", ".join(p.phrase for p in high[:5]) + ("…" if len(high) > 5 else "")
    best = (f"{len(high)} phrase{'s' * (len(high) != 1)} of high marks" + (f" ({shown})" if high else "")
            + f" and {len(low)} of low marks; the missed answers were not grouped")
    return stop.with_result("suggest", stage, best, {"phrases": [_phrase_dict(p) for p in [*high, *low]]})


def _examples(p: Phrase, answers: list[list[str]], marks: np.ndarray, scores: np.ndarray, high: np.ndarray,
              rows: np.ndarray, count: int) -> None:
    """Count the rows of ``p`` the rule scores under and over the mark, and pick its examples:
    distinct answers of its direction's rows, those scored wrong that way first."""
    from ..report import round_half_up

    picked = np.asarray(p.rows)
    gap = np.where(np.isnan(scores[picked]), 0,
                   round_half_up(np.nan_to_num(scores[picked])) - round_half_up(marks[picked]))
    p.under, p.over = int((gap < 0).sum()), int((gap > 0).sum())
    wanted = -1 if p.z > 0 else 1
    side = high[picked] if p.z > 0 else ~high[picked]

    def rank(k: int) -> tuple[bool, bool, float, int]:
        # a named function, not a lambda: mypy spends minutes inferring numpy's operators in a lambda
        row = int(picked[k])
        distance = 0.0 if np.isnan(scores[row]) else -abs(float(scores[row]) - float(marks[row]))
        return (not side[k], bool(gap[k] * wanted <= 0), distance, row)

    order = sorted(range(len(picked)), key=rank)
    seen: set[tuple] = set()
    for k in order:
        r = int(picked[k])
        key = tuple(answers[r])
        if key in seen:
            continue
        seen.add(key)
        score = float(scores[r])
        p.examples.append({"row": int(rows[r]) + 1, "answer": answers[r], "mark": float(marks[r]),
                           "score": None if math.isnan(score) else score})
        if len(p.examples) == count:
            break


def render_text(found: Suggestions, rule: str = "the rule", data: str = "the data") -> str:
    """The text ``coscore suggest`` prints (:func:`coscore.suggest.render.text`). Not named
    ``render``: the module :mod:`.render`, once imported, is the package's ``render``."""
    from .render import text

    return text(found, rule, data)
