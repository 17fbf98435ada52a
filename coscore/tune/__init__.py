"""Tuning a rule on marked answers: the thresholds and scores a teacher would otherwise
tweak by hand, searched for better agreement with the marks, and kept only when the
gain holds up on answers the search never saw (k-fold cross-validation and a paired
bootstrap interval above zero).

>>> result = tune(Path("traffic-light.rule.json"), answers, marks)   # doctest: +SKIP
>>> result.accepted, [str(c) for c in result.changes]                 # doctest: +SKIP
(True, ['atoms.0.desc: "0:…" → "0.15:…"', 'combos.C.score: 2 → 1'])

- :mod:`.space` — the knobs (:class:`State`, :class:`Change`) and the rule of a setting;
- :mod:`.outcomes` — the distinct answers scored once per structure, shared by every search;
- :mod:`.search` — coordinate ascent on one figure (:data:`METRICS`);
- :mod:`.judge` — cross-validation and the paired bootstrap;
- :mod:`.tuning` — :func:`tune` and its result, :class:`Tuning`; :mod:`.render` prints it.
"""
from __future__ import annotations

from .search import METRICS
from .space import Change, State
from .tuning import Tuning, tune

__all__ = ["METRICS", "Change", "State", "Tuning", "tune"]
