""":class:`~coscore.suggest.Suggestions` as the text ``coscore suggest`` prints."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..report.format import fmt
from .misses import Missed
from .phrases import Phrase

#: Characters of an answer shown on each side of the phrase in an example.
CONTEXT = 16
#: Characters of a missed answer shown.
SHOWN = 70


def text(found: Any, rule: str, data: str) -> str:
    """The phrases of high and of low marks of ``found`` (:class:`~coscore.suggest.Suggestions`),
    then the groups of missed answers."""
    split = found.split
    lines = [f"coscore suggest: {rule} on {data}",
             f"{found.n} marked rows: high marks are {split['high']} ({split['n_high']} rows), "
             f"low the others ({split['n_low']} rows)"]
    for direction, phrases in (("high", found.high), ("low", found.low)):
        lines += ["", f"phrases of {direction} marks no atom covers (rows with it: high / low, z):"]
        lines += [line for p in phrases for line in _phrase(p)] or ["  none"]
    if found.covered:
        lines.append(f"({found.covered} more phrase{'s' * (found.covered != 1)} that an atom already names "
                     "are not shown)")
    lines += ["", "answers the rule scores furthest from their marks, grouped by similarity:"]
    if not found.groups:
        lines.append("  none: every answer's rounded score equals its rounded mark")
    for number, group in enumerate(found.groups, 1):
        size = len(group.answers)
        how = "scored below the mark" if group.direction == "under" else "scored above the mark"
        shared = f", all containing \"{group.shared}\"" if group.shared else ""
        lines.append(f"group {number}: {size} answer{'s' * (size != 1)} {how}{shared}")
        for m in group.answers:
            lines += _missed(m)
    if found.failed:
        lines.append(f"({found.failed} distinct answer{'s' * (found.failed != 1)} fail: see coscore explain)")
    return "\n".join(lines)


def _phrase(p: Phrase) -> list[str]:
    without = mean(p.mean_without)
    wrong = (f"the rule scores {p.under} of its rows below the mark" if p.z > 0
             else f"the rule scores {p.over} of its rows above the mark")
    head = (f"  {p.phrase}  {p.high} / {p.low}  z {p.z:+.1f}  mean mark {mean(p.mean_with)} with it, "
            f"{without} without; {wrong}")
    return [head, *(f"      row {e['row']}  mark {_number(e['mark'])}  score {_number(e['score'])}  "
                    f"{_around(e['answer'], p.phrase)}" for e in p.examples)]


def _missed(m: Missed) -> list[str]:
    rows = ", ".join(str(r) for r in m.rows[:5]) + ("…" if len(m.rows) > 5 else "")
    shown = " | ".join(m.answer)
    shown = shown if len(shown) <= SHOWN else shown[:SHOWN] + "…"
    mark = f"mark {_number(m.mark)}" if len(m.rows) == 1 else f"mean mark {mean(m.mark)}"
    lines = [f"  {mark}  score {_number(m.score)}  row{'s' * (len(m.rows) > 1)} {rows}  {shown}"]
    if m.closest is None:
        lines.append("      closest atom: none fell short" if m.gap < 0 else "      closest atom: none hit")
    else:
        c = m.closest
        lines.append(f"      closest atom: {c.atom} ({c.kind}, {'hit' if c.hit else 'miss'}, closeness "
                     f"{c.closeness:.2f}): {c.detail}")
    return lines


def _around(answer: Sequence[str], phrase: str) -> str:
    """The answer around the phrase's first occurrence, the phrase in [brackets]."""
    joined = " | ".join(answer)
    at = joined.find(phrase)
    if at < 0:
        return joined[: 2 * CONTEXT]
    start, end = max(0, at - CONTEXT), min(len(joined), at + len(phrase) + CONTEXT)
    return (("…" if start else "") + joined[start:at] + f"[{phrase}]" + joined[at + len(phrase):end]
            + ("…" if end < len(joined) else ""))


def mean(value: float | None) -> str:
    """A mean of marks, with 2 decimals as ``coscore report`` shows its means."""
    return fmt(value, 2)


def _number(value: Any) -> str:
    if value is None:
        return "—"
    return f"{value:g}" if isinstance(value, float) else str(value)
