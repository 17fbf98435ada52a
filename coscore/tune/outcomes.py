"""The distinct answers' combo results under each setting the search tries, scored by the
engine as little as possible and shared by every search (each fold's and the final one).

A combo's score only scales its contribution, so the engine scores a *structure* — the
atoms' thresholds and the combos left out — with every combo scored 1 (the *unit* rule:
each combo then gives its expression's value, 1 or 0 in logic mode), once; any setting of
the scores is then arithmetic on those columns (:func:`totals`), as the engine's own
``ADD``/``MAX`` and clamp. A structure one change away from a structure already scored
re-scores only the answers the change can reach:

- a threshold of atom ``k`` moved from ``t`` to ``t'``: an OP/CS atom's best similarity on
  a text does not depend on its threshold (a call hits iff ``best >= threshold``), so the
  best similarity of every text the atom reads is computed once (a one-atom probe rule at
  threshold 0, scored by the engine) and the answers to score again are those with a call
  of ``k`` whose best similarity lies in ``[min(t, t'), max(t, t'))`` — every other answer
  sees the same result from every call, so it takes the same path through its combos and
  scores the same. Which texts an answer's calls read comes from :meth:`coscore.Rule.trace`
  of the unit rule, made once per answer and structure, and only when that structure is
  the start of a move;
- a combo left out: only the answers that failed can change (another combo may then
  run); every other answer keeps its other combos' results.

The results equal scoring each setting's own rule (up to the sign of a zero), which the
held-out figures do anyway (:meth:`Outcomes.exact`).

The engine scores answers in batches (:meth:`coscore.search_budget.Meter.batches`), and
the search's budget is checked before each batch and each candidate,
so a search over its time or memory stops within a batch's time.
"""
from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..search_budget import UNBOUNDED, Meter
from .space import Space, State

#: The memory the kept structures may take at most (besides those a search has started a
#: move from), and the fewest kept whatever their size.
CACHE_BYTES = 256 << 20
CACHE_MIN = 16


@dataclass
class Scored:
    """One structure's (``key``: thresholds, combos left out) unit-rule results: ``columns``
    (distinct answers × combos, 0 for a combo left out), ``failed`` (the answers whose unit
    rule failed), and once traced, ``calls``: per tuned atom, the ``(answers, best
    similarities)`` of its calls."""

    key: Any
    columns: np.ndarray
    failed: np.ndarray
    parent: Any = None
    rescored: np.ndarray | None = None
    texts: list[list[tuple[str, str]]] | None = None
    calls: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)


@dataclass
class Work:
    """What the search cost the engine: settings evaluated, unit rules scored, answers
    scored by them, answers traced, probe texts."""

    candidates: int = 0
    scorings: int = 0
    answers_scored: int = 0
    traced: int = 0
    probed: int = 0

    def to_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


def totals(columns: np.ndarray, failed: np.ndarray, scores: Sequence[float], kept: Sequence[int],
           combo_mode: str) -> np.ndarray:
    """Each answer's clamped total from its unit columns: combo ``j`` contributes
    ``columns[:, j] * scores[j]``; ``ADD`` sums left to right, ``MAX`` keeps the first
    maximum (as Python's ``max``), then the total is clamped to 0–10; NaN where the
    answer failed (or its total is NaN, which fails it)."""
    total = np.zeros(len(failed))
    for position, j in enumerate(kept):
        part = columns[:, j] * scores[j]
        if combo_mode == "ADD" or position == 0:
            total = total + part if combo_mode == "ADD" else part
        else:
            total = np.where(part > total, part, total)
    total = np.where(total < 0, 0.0, np.where(total > 10, 10.0, total))
    total[failed] = np.nan
    return total


class Outcomes:
    """The results of ``answers`` (distinct, each a list of blanks) under the settings of
    ``space``, compiled with ``limits``, within the budget ``meter`` (none by default);
    :attr:`work` counts what it cost."""

    def __init__(self, space: Space, answers: Sequence[list[str]], limits: Any = None, meter: Meter | None = None):
        self.space = space
        self.answers = list(answers)
        self.limits = limits
        self.meter = meter if meter is not None else UNBOUNDED.start()
        self.work = Work()
        self._scored: OrderedDict[Any, Scored] = OrderedDict()
        self._pinned: dict[Any, Scored] = {}
        self._best: dict[str, dict[str, float]] = {a: {} for a in space.atoms}
        self._kept_cache: dict[frozenset[str], list[int]] = {}

    # -- public ------------------------------------------------------------------------
    def scores(self, state: State, start: State | None = None) -> np.ndarray:
        """Each distinct answer's score under ``state`` (NaN where it fails); ``start`` is
        the state it is one change away from, when there is one."""
        self.meter.check()
        self.work.candidates += 1
        scored = self._structure(state.structure, None if start is None else start.structure)
        return totals(scored.columns, scored.failed, state.scores, self.kept(state.dropped), self.space.combo_mode)

    def exact(self, state: State, answers: Sequence[int] | np.ndarray) -> np.ndarray:
        """The scores of distinct answers ``answers`` by the rule of ``state`` itself, compiled
        and scored by the engine."""
        import coscore

        rule = coscore.compile(self.space.rule(state), limits=self.limits)
        wanted = np.asarray(answers, dtype=np.int64)
        parts = [rule.score_many([self.answers[i] for i in part]).scores for part in self.meter.batches(wanted)]
        return np.concatenate(parts) if parts else np.empty(0)

    def kept(self, dropped: frozenset[str]) -> list[int]:
        """The indexes of the combos not left out."""
        if dropped not in self._kept_cache:
            self._kept_cache[dropped] = [j for j, c in enumerate(self.space.combos) if c not in dropped]
        return self._kept_cache[dropped]

    def called(self, state: State) -> set[str]:
        """The tuned atoms that some answer's combos call under ``state``'s structure."""
        self.pin(state)
        calls = self._calls(self._pinned[state.structure])
        return {atom for atom, (rows, _) in calls.items() if rows.size}

    def pin(self, state: State) -> None:
        """Keep ``state``'s structure (a search moves from it) however many others come."""
        self._pinned[state.structure] = self._structure(state.structure, None)

    def unpin(self, state: State) -> None:
        """Let ``state``'s structure go like any other (a search moved on from it); the
        original rule's stays pinned, since every search starts from it."""
        if state.structure != self.space.original.structure:
            self._pinned.pop(state.structure, None)

    # -- structures ----------------------------------------------------------------------
    def _structure(self, key: Any, start: Any) -> Scored:
        found = self._pinned.get(key) or self._scored.get(key)
        if found is not None:
            if key in self._scored:
                self._scored.move_to_end(key)
            return found
        parent = self._pinned.get(start) if start is not None else None
        rows = self._reached(parent, start, key) if parent is not None else None
        scored = self._score(key, parent, rows)
        self._scored[key] = scored
        room = max(CACHE_MIN, CACHE_BYTES // max(1, scored.columns.nbytes + scored.failed.nbytes))
        while len(self._scored) > room:
            self._scored.popitem(last=False)
        return scored

    def _reached(self, parent: Scored, start: Any, key: Any) -> np.ndarray | None:
        """The answers a move from structure ``start`` to ``key`` can change (``None``: all)."""
        (before, dropped_before), (after, dropped_after) = start, key
        if not dropped_before <= dropped_after:   # a combo put back: its results are unknown
            return None
        reached = np.zeros(len(self.answers), dtype=bool)
        if dropped_after != dropped_before:
            reached |= parent.failed
        moved = [i for i, (t, u) in enumerate(zip(before, after)) if t != u]
        if moved:
            calls = self._calls(parent)
            for i in moved:
                rows, best = calls[self.space.atoms[i]]
                low, high = sorted((before[i], after[i]))
                reached[rows[(best >= low) & (best < high)]] = True
        return np.flatnonzero(reached)

    def _score(self, key: Any, parent: Scored | None, rows: np.ndarray | None) -> Scored:
        _thresholds, dropped = key
        if rows is None or parent is None:
            rows = np.arange(len(self.answers))
            columns = np.zeros((len(self.answers), len(self.space.combos)))
            failed = np.zeros(len(self.answers), dtype=bool)
        else:
            columns, failed = parent.columns.copy(), parent.failed.copy()
            columns[:, [j for j, c in enumerate(self.space.combos) if c in dropped]] = 0.0
        if rows.size:
            rule = self._unit_rule(key)
            for part in self.meter.batches(rows):
                batch = rule.score_many([self.answers[i] for i in part])
                for j in self.kept(dropped):
                    columns[part, j] = batch.combos[self.space.combos[j]]
                failed[part] = batch.failed
            self.work.scorings += 1
            self.work.answers_scored += int(rows.size)
        return Scored(key, columns, failed, parent, rows)

    def _unit_rule(self, key: Any) -> Any:
        import coscore

        thresholds, dropped = key
        state = State(thresholds, self.space.original.scores, dropped)
        return coscore.compile(self.space.rule(state, unit=True), limits=self.limits)

    # -- which texts each answer's calls read, and their best similarities ----------------
    def _calls(self, scored: Scored) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        if scored.texts is None:
            self._trace(scored)
        if not scored.calls and self.space.atoms:
            per_atom: dict[str, tuple[list[int], list[str]]] = {a: ([], []) for a in self.space.atoms}
            for row, calls in enumerate(scored.texts or []):
                for atom, text in calls:
                    per_atom[atom][0].append(row)
                    per_atom[atom][1].append(text)
            for atom, (rows, texts) in per_atom.items():
                best = self._similarities(atom, texts)
                scored.calls[atom] = (np.asarray(rows, dtype=np.int64), best)
        return scored.calls

    def _trace(self, scored: Scored) -> None:
        """The (atom, text) of each tuned atom's calls, per answer: the parent's for the
        answers this structure did not score again (a superset where a combo was left
        out, which is safe), traced anew for the others."""
        parent = scored.parent
        if parent is not None and parent.texts is None:
            self._trace(parent)
        n = len(self.answers)
        fresh = np.arange(n) if parent is None or scored.rescored is None else scored.rescored
        texts: list[list[tuple[str, str]]] = list(parent.texts) if parent is not None and parent.texts else [[]] * n
        if fresh.size:
            rule = self._unit_rule(scored.key)
            tuned = set(self.space.atoms)
            for k, i in enumerate(fresh):
                if k % 256 == 0:
                    self.meter.check()
                _, calls = rule.trace(self.answers[i])
                texts[i] = list(dict.fromkeys((c.atom, c.text) for c in calls
                                              if c.atom in tuned and type(c.text) is str))
            self.work.traced += int(fresh.size)
        scored.texts = texts
        scored.parent = None    # the chain back is no longer needed

    def _similarities(self, atom: str, texts: list[str]) -> np.ndarray:
        """The best similarity of atom ``atom`` on each of ``texts`` (computed once per text)."""
        known = self._best[atom]
        new = [t for t in dict.fromkeys(texts) if t not in known]
        if new:
            import coscore

            desc = self._desc(atom)
            probe = coscore.compile({"atoms": {"0": {"type": desc[0], "desc": "0:" + desc[1]}},
                                     "combos": {"A": {"combo": "M(0, T(0))", "score": 1, "mode": "value"}},
                                     "comboMode": "ADD"}, limits=self.limits)
            for part in self.meter.batches(np.arange(len(new))):
                values = probe.score_many([[new[i]] for i in part]).combos["A"]
                known.update(zip((new[i] for i in part), values.tolist()))
            self.work.probed += len(new)
        return np.fromiter((known[t] for t in texts), dtype=np.float64, count=len(texts))

    def _desc(self, atom: str) -> tuple[str, str]:
        """The type and keys (the desc after its threshold) of atom ``atom``."""
        for key, value in self.space.source.get("atoms", {}).items():
            if str(key) == atom:
                return value["type"], value["desc"].partition(":")[2]
        raise KeyError(atom)
