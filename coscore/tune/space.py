"""What ``coscore tune`` may change in a rule, and the rule each setting of it gives.

The knobs are what a teacher tweaks by hand: the threshold of each OP/CS atom, the
score of each combo and, when asked, leaving a combo out. A :class:`State` is one
setting of every knob; :class:`Space` knows a rule's knobs and their candidate values,
writes the rule of a state (the key order and everything not tuned kept as written)
and lists how a state differs from the original rule as JSON paths (:class:`Change`).

Candidate values: thresholds ``0, 0.05, …, 1`` (:data:`THRESHOLDS`, written as short
decimals: ``"0.45:…"``); scores ``1…10`` (``-1…-10`` for a penalty combo, one whose
score is negative), never 0, which ``coscore check`` warns about (leaving a combo out
is the ``drop`` knob). The original value is always a candidate too.
"""
from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..rule import Rule

#: Candidate OP/CS thresholds: multiples of 0.05 from 0 to 1.
THRESHOLDS: tuple[float, ...] = tuple(k / 20 for k in range(21))
#: Candidate combo scores (negated for a combo whose score is negative).
SCORES: tuple[int, ...] = tuple(range(1, 11))
#: The kinds of knob, in the order a search pass visits them.
KINDS: tuple[str, ...] = ("threshold", "score", "drop")


@dataclass(frozen=True)
class State:
    """One setting of the knobs: ``thresholds`` (one per :attr:`Space.atoms`), ``scores``
    (one per :attr:`Space.combos`) and the ids of the combos left out (``dropped``)."""

    thresholds: tuple[float, ...]
    scores: tuple[int | float, ...]
    dropped: frozenset[str] = frozenset()

    @property
    def structure(self) -> tuple[tuple[float, ...], frozenset[str]]:
        """What the engine must score again when it changes (scores only scale the combos)."""
        return self.thresholds, self.dropped


@dataclass(frozen=True)
class Knob:
    """One thing the search may change: the ``kind`` (:data:`KINDS`) and the atom or combo
    (``name``, at ``index`` in :attr:`Space.atoms` or :attr:`Space.combos`)."""

    kind: str
    index: int
    name: str


@dataclass(frozen=True)
class Change:
    """One difference between two rules: the JSON ``path``, the value ``before`` and
    ``after`` (``None`` when the combo at ``path`` was left out)."""

    path: str
    before: Any
    after: Any

    def __str__(self) -> str:
        if self.after is None:
            return f"{self.path}: removed"
        return f"{self.path}: {_shown(self.before)} → {_shown(self.after)}"

    def to_dict(self) -> dict[str, Any]:
        """``{"path", "before", "after"}`` (``after`` null for a combo left out)."""
        return {"path": self.path, "before": self.before, "after": self.after}


def _shown(value: Any) -> str:
    """A value as a change shows it: numbers as written, an OP/CS desc as ``"0.6:…"``."""
    if isinstance(value, str):
        head, colon, rest = value.partition(":")
        return json.dumps(head + colon + ("…" if rest else ""), ensure_ascii=False)
    return json.dumps(value, ensure_ascii=False)


def threshold_text(value: float) -> str:
    """How a candidate threshold is written in a desc: ``0.45``, ``0``, ``1``."""
    return f"{value:g}"


class Space:
    """The knobs of one rule.

    ``source`` is the rule as JSON data (its key order is kept), ``rule`` the compiled
    :class:`coscore.Rule`; ``atoms`` the OP/CS atoms whose thresholds may change (rule
    order; by default every one, or those named in ``tuned_atoms``), ``combos`` every
    combo; ``drop`` whether combos may be left out (never the last one).
    """

    def __init__(self, source: Mapping[str, Any], rule: Rule, tuned_atoms: list[str] | None = None,
                 drop: bool = False):
        self.source = source
        self.combo_mode: str = rule.combo_mode
        similar = [a for a, atom in rule.atoms.items() if atom.kind in ("OP", "CS")]
        self.atoms: list[str] = [a for a in similar if tuned_atoms is None or a in tuned_atoms]
        self.combos: list[str] = list(rule.combo_ids)
        self.modes: list[str] = [c.mode for c in rule.spec.combos]
        self.drop = drop
        #: tuned atoms no answer's combos call (their thresholds change nothing): no knob
        self.idle: set[str] = set()
        self.original = State(tuple(rule.atoms[a].threshold for a in self.atoms),
                              tuple(c.score for c in rule.spec.combos))

    def knobs(self) -> list[Knob]:
        """Every knob, in the order a search pass visits them."""
        out = [Knob("threshold", i, a) for i, a in enumerate(self.atoms) if a not in self.idle]
        out += [Knob("score", j, c) for j, c in enumerate(self.combos)]
        if self.drop and len(self.combos) > 1:
            out += [Knob("drop", j, c) for j, c in enumerate(self.combos)]
        return out

    def candidates(self, knob: Knob, state: State) -> list[tuple[float, State]]:
        """The states one change of ``knob`` away from ``state``, each with its distance
        from the original value (what breaks a tie: the smaller change wins)."""
        out: list[tuple[float, State]] = []
        if knob.kind == "threshold":
            now, first = state.thresholds[knob.index], self.original.thresholds[knob.index]
            for value in sorted({*THRESHOLDS, first}):
                if value != now:
                    values = (*state.thresholds[:knob.index], value, *state.thresholds[knob.index + 1:])
                    out.append((abs(value - first), State(values, state.scores, state.dropped)))
        elif knob.kind == "score":
            if knob.name in state.dropped:
                return out
            now, first = state.scores[knob.index], self.original.scores[knob.index]
            sign = -1 if first < 0 else 1
            for value in sorted({*(sign * s for s in SCORES), first}):
                if value != now:
                    values = (*state.scores[:knob.index], value, *state.scores[knob.index + 1:])
                    out.append((abs(value - first), State(state.thresholds, values, state.dropped)))
        elif knob.name in state.dropped:
            out.append((0.0, State(state.thresholds, state.scores, state.dropped - {knob.name})))
        elif len(state.dropped) + 1 < len(self.combos):
            out.append((1.0, State(state.thresholds, state.scores, state.dropped | {knob.name})))
        return out

    def rule(self, state: State, unit: bool = False) -> dict[str, Any]:
        """The rule of ``state`` as JSON data; ``unit``: every combo scored 1, so that each
        combo's contribution is its expression's value (logic: 1 or 0)."""
        out = copy.deepcopy(dict(self.source))
        atoms = out.get("atoms", {})
        for key in atoms:
            desc = self._desc(state, str(key), atoms[key]["desc"])
            if desc is not None:
                atoms[key]["desc"] = desc
        combos = out.get("combos", {})
        for key in list(combos):
            name = str(key)
            if name in state.dropped:
                del combos[key]
                continue
            j = self.combos.index(name)
            if unit:
                combos[key]["score"] = 1
            elif state.scores[j] != self.original.scores[j]:
                combos[key]["score"] = state.scores[j]
        return out

    def _desc(self, state: State, atom: str, desc: str) -> str | None:
        """The desc of ``atom`` (written ``desc``) under ``state``: its new threshold before
        the keys as written; ``None`` when the threshold is its own."""
        if atom not in self.atoms:
            return None
        i = self.atoms.index(atom)
        if state.thresholds[i] == self.original.thresholds[i]:
            return None
        return f"{threshold_text(state.thresholds[i])}:{desc.partition(':')[2]}"

    def changes(self, state: State) -> list[Change]:
        """How the rule of ``state`` differs from the original, in the rule's own order."""
        out = []
        atoms = self.source.get("atoms", {})
        for key in atoms:
            desc = self._desc(state, str(key), atoms[key]["desc"])
            if desc is not None:
                out.append(Change(f"atoms.{key}.desc", atoms[key]["desc"], desc))
        combos = self.source.get("combos", {})
        for key in combos:
            name = str(key)
            j = self.combos.index(name)
            if name in state.dropped:
                out.append(Change(f"combos.{name}", copy.deepcopy(combos[key]), None))
            elif state.scores[j] != self.original.scores[j]:
                out.append(Change(f"combos.{name}.score", self.original.scores[j], state.scores[j]))
        return out

    def text(self, state: State, like: str = "") -> str:
        """The rule of ``state`` as JSON text, non-ASCII kept, laid out like the text
        ``like`` (the original's): its indentation (2 when it has none to copy) and a
        final newline when it ends with one (or is empty)."""
        indent = 2
        for line in like.splitlines()[1:2]:
            spaces = len(line) - len(line.lstrip(" "))
            indent = spaces if spaces else indent
        end = "\n" if like.endswith("\n") or not like else ""
        text = json.dumps(self.rule(state), ensure_ascii=False, indent=indent) + end
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:   # a lone surrogate (JSON can spell one, UTF-8 cannot): escape
            text = json.dumps(self.rule(state), indent=indent) + end
        return text
