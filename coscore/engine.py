"""Scoring many answers: deduplication, order, and assembling a :class:`Batch`."""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

import numpy as np

if TYPE_CHECKING:
    from .rule import AnswerLike, Batch, Rule


def score_many(rule: "Rule", answers: Iterable["AnswerLike"], jobs: int = 1) -> "Batch":
    """Score ``answers`` with ``rule``; each distinct answer is scored once."""
    from .rule import Batch

    answers = answers if isinstance(answers, list) else list(answers)
    n = len(answers)
    scores = np.full(n, np.nan)
    errors: list[str | None] = [None] * n
    combos = {cid: np.full(n, np.nan) for cid in rule.combo_ids}
    seen: dict = {}
    for i, answer in enumerate(answers):
        key = (answer,) if isinstance(answer, str) else tuple(answer) if isinstance(answer, (list, tuple)) else None
        try:
            outcome = seen.get(key) if key is not None else None
        except TypeError:
            key, outcome = None, None
        if outcome is None:
            outcome = rule.score(answer)
            if key is not None:
                seen[key] = outcome
        if outcome.error is None:
            scores[i] = outcome.score
        else:
            errors[i] = outcome.error
        for cid, value in outcome.combos.items():
            combos[cid][i] = value
    return Batch(scores, errors, combos)
