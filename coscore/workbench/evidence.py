"""One answer explained for the workbench's tester: :func:`coscore.explain.explain` as
JSON, each atom call's text cut into segments that say which characters the atom matched.

The marks come from the evidence ``explain`` gives, nothing else:

- EM: the whole text, when a key equals it;
- SM: in each group, the option that counted (every place it occurs in the text the
  group saw), the ``!`` option that excluded the group (``"excluded"``) and the text a
  ``~`` option cut out (``"removed"``), placed back on the call's text;
- OP: the text's characters in one longest common subsequence with the best key (and
  the key's, as ``key_segments``);
- CS: for the best key, as many of each shared character as the key and the text share.

A segment is ``{"text": ..., "mark": null | "hit" | "excluded" | "removed"}``; a text over
:data:`SHOWN_CHARS` characters is cut there (``text_length`` says how long it is).
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from ..catalog import said
from ..diagnostics import shorten
from ..explain import CSEvidence, EMEvidence, OPEvidence, SMEvidence, explain, to_dict
from ..http.responses import finite, short_strings

if TYPE_CHECKING:
    from ..rule import Rule

__all__ = ["explanation_json", "call_marks", "segments", "SHOWN_CHARS", "MAX_CALLS"]

#: The characters of a text shown with its marks.
SHOWN_CHARS = 2000
#: The atom calls listed for one answer.
MAX_CALLS = 1000
#: Which mark wins where two overlap.
_RANK = {"removed": 1, "excluded": 2, "hit": 3}

Mark = tuple[int, int, str]


def _occurrences(text: str, sub: str) -> list[tuple[int, int]]:
    """Where ``sub`` occurs in ``text``, left to right without overlaps (as ``str.replace``)."""
    found: list[tuple[int, int]] = []
    if not sub:
        return found
    at = text.find(sub)
    while at >= 0:
        found.append((at, at + len(sub)))
        at = text.find(sub, at + len(sub))
    return found


def _runs(positions: Sequence[int]) -> list[tuple[int, int]]:
    """Increasing ``positions`` as ``(start, end)`` runs of consecutive ones."""
    runs: list[list[int]] = []
    for p in positions:
        if runs and runs[-1][1] == p:
            runs[-1][1] = p + 1
        else:
            runs.append([p, p + 1])
    return [(a, b) for a, b in runs]


def _sm_marks(evidence: SMEvidence, text: str) -> list[Mark]:
    marks: list[Mark] = []
    for group in evidence.groups:
        seen, where = text, list(range(len(text)))  # the group's text; where each char was
        for step in group.steps:
            if step.action == "removed":
                spans = _occurrences(seen, step.option[1:])
                cut = {i for a, b in spans for i in range(a, b)}
                marks += [(a, b, "removed") for a, b in _runs([where[i] for i in sorted(cut)])]
                where = [p for i, p in enumerate(where) if i not in cut]
                seen = "".join(c for i, c in enumerate(seen) if i not in cut)
            elif step.action in ("counted", "excluded"):
                option = step.option if step.action == "counted" else step.option[1:]
                kind = "hit" if step.action == "counted" else "excluded"
                for a, b in _occurrences(seen, option):
                    marks += [(x, y, kind) for x, y in _runs(where[a:b])]
    return marks


def _cs_marks(evidence: CSEvidence, text: str) -> list[Mark]:
    shared = Counter({c: min(k, t) for c, k, t in evidence.counts if k and t})
    picked = []
    for i, char in enumerate(text):
        token = char.lower()
        if not char.isspace() and shared[token] > 0:
            shared[token] -= 1
            picked.append(i)
    return [(a, b, "hit") for a, b in _runs(picked)]


def call_marks(evidence: Any, text: str) -> list[Mark]:
    """``(start, end, kind)`` of the characters of ``text`` the atom matched (see the
    module's description); ``evidence`` is the call's :mod:`coscore.explain` evidence."""
    if isinstance(evidence, EMEvidence):
        return [(0, len(text), "hit")] if evidence.matched is not None and text else []
    if isinstance(evidence, SMEvidence):
        return _sm_marks(evidence, text)
    if isinstance(evidence, OPEvidence):
        return [(a, b, "hit") for a, b in _runs([i for i, hit in enumerate(evidence.text_matched) if hit])]
    if isinstance(evidence, CSEvidence):
        return _cs_marks(evidence, text)
    return []


def segments(text: str, marks: Sequence[Mark], limit: int = SHOWN_CHARS) -> list[dict[str, Any]]:
    """``text`` (its first ``limit`` characters) cut where its marks begin and end."""
    shown = text[:limit]
    kinds: list[str | None] = [None] * len(shown)
    for start, end, kind in marks:
        for i in range(max(start, 0), min(end, len(shown))):
            if kinds[i] is None or _RANK[kind] > _RANK[kinds[i]]:  # type: ignore[index]
                kinds[i] = kind
    out: list[dict[str, Any]] = []
    for char, mark in zip(shown, kinds):
        if out and out[-1]["mark"] == mark:
            out[-1]["text"] += char
        else:
            out.append({"text": char, "mark": mark})
    return out


def _detail(evidence: Any) -> dict[str, Any]:
    """The call's evidence as JSON, its per-character flags replaced by segments."""
    detail = {"type": type(evidence).__name__, **asdict(evidence)}
    detail.pop("text_matched", None)
    key_matched = detail.pop("key_matched", None)
    if isinstance(evidence, OPEvidence) and evidence.best is not None and key_matched:
        hits = [(a, b, "hit") for a, b in _runs([i for i, hit in enumerate(key_matched) if hit])]
        detail["key_segments"] = segments(evidence.best.key, hits)
    for name in ("keys", "scores", "counts", "groups"):
        if isinstance(detail.get(name), list) and len(detail[name]) > 100:
            detail[name + "_omitted"] = len(detail[name]) - 100
            detail[name] = detail[name][:100]
    return short_strings(detail)


def explanation_json(rule: Rule, answer: Sequence[str]) -> dict[str, Any]:
    """``answer`` (its blanks) scored by ``rule`` (compiled) and explained: ``score``,
    ``error``, ``combo_mode``, ``combos`` (each with its contribution, its expression's
    value and the numbers of its calls) and ``calls`` (each with its ``segments``)."""
    explanation = explain(rule, list(answer))
    data = to_dict(explanation)
    calls = []
    for entry, call in zip(data["calls"][:MAX_CALLS], explanation.calls):
        entry.pop("evidence")
        text = entry.pop("text")
        entry["text_length"] = len(text)
        entry["segments"] = segments(text, call_marks(call.evidence, text))
        entry["detail"] = _detail(call.evidence)
        calls.append(entry)
    data["calls"] = calls
    data["calls_omitted"] = max(0, len(explanation.calls) - MAX_CALLS)
    data["answer"] = [shorten(blank) for blank in data["answer"]]
    for combo in data["combos"]:
        for key in ("expression_value", "expression_error", "expression"):
            if isinstance(combo[key], str):
                combo[key] = shorten(combo[key])
    if isinstance(data["error"], str):
        data["error"] = shorten(data["error"])
    data["error_said"] = said(data["error"])  # the page renders errors in its language (coscore.catalog)
    for combo in data["combos"]:
        combo["expression_error_said"] = said(combo["expression_error"])
    return finite(data)
