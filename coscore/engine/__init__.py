"""The engine: a rule's plan, and one answer, a chunk or many answers scored with it.

- :mod:`.plan` — planning a rule once (:class:`Plan`, :func:`plan`);
- :mod:`.columnar` and :mod:`.context` — the vectorised evaluator and the chunk it
  evaluates in (texts deduplicated, kernels run, budgets kept);
- :mod:`.reference` — the one-answer path (:func:`score_one`, :func:`trace`, :func:`evaluate`);
- :mod:`.chunk` — one chunk scored: deduplicated, columns, flagged answers again by the reference;
- :mod:`.builder` — the one result builder, where every :class:`~coscore.results.Batch` is made;
- :mod:`.schedule` — threads and ``jobs``: units of work run on a pool, in order.

Every table of answers — Python answers, Arrow columns, a file's chunks — reaches the
engine through :mod:`coscore.pipeline`, which cuts it into chunks and reads their texts
ahead of scoring; :class:`coscore.Rule` is the public face of both.
"""
from __future__ import annotations

from .plan import ColumnarPlan, Plan, plan
from .reference import AnswerLike, evaluate, score_one, trace

__all__ = ["AnswerLike", "ColumnarPlan", "Plan", "evaluate", "plan", "score_one", "trace"]
