"""Scoring one chunk of answers into a :class:`~coscore.engine.builder.Part`.

A chunk is deduplicated first: on the one text the rule reads when it reads one
(:attr:`~coscore.engine.plan.ColumnarPlan.key`), else on whole answers. The columnar
path (:func:`coscore.engine.columnar.run`) scores the distinct answers over whole
columns; the answers it flags — errors, inexact integers, malformed answers — and every
answer of a rule without a columnar plan are scored by the reference evaluator
(:func:`coscore.engine.reference.score_flagged`), each distinct one once.

A chunk comes as a Python list (:func:`score_list`) or as rows of Arrow blank columns
(:class:`~coscore._fast.BlankColumns`): :func:`read_texts` reads such a chunk's
texts in C without the GIL (a caller may do it in another thread, ahead of scoring),
and :func:`score_texts` scores what it read.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._fast import BlankColumns, check_answers, dedup_answers, dedup_strings, distinct_texts, joined_column
from . import columnar
from .builder import Part
from .context import BlankTexts
from .plan import Plan
from .reference import AnswerLike, score_flagged


def score_list(plan: Plan, answers: list[Any], start: int, stop: int, part: Part) -> None:
    """Score ``answers[start:stop]`` (a list, read in place) into ``part``."""
    n = stop - start
    key = plan.key
    if plan.columnar is None or not n:
        score_distinct(plan, None, None, None, np.ones(n, dtype=bool), lambda i: answers[start + i], part)
        return
    # identical answers are scored once: deduplicate what the combos can see;
    # answers that are not lists of strings (odd) are flagged for the reference path
    flag = np.zeros(n, dtype=bool)
    if key is not None:  # the rule reads one text per answer: no copy of the chunk needed
        distinct, inverse, missing, odd, bound = distinct_texts(answers, key, start, stop)
        if missing is not None:
            flag |= missing
        flag[odd] = True
        score_distinct(plan, distinct, inverse, key, flag, lambda i: answers[start + i], part, bound)
        return
    rows = answers[start:stop] if start or stop != len(answers) else answers
    odd, most, fewest = check_answers(rows)
    if odd:
        rows = list(rows)
        for i in odd:
            rows[i] = ()
        flag[odd] = True
    view: int | None = None
    unique: list[Any]
    if most == fewest == 1 and not odd:  # one blank each: the answers are their blank
        view = 0
        unique, inverse = dedup_strings(joined_column(rows))
    else:
        unique, inverse = dedup_answers(rows)
    score_distinct(plan, unique, inverse, view, flag, lambda i: answers[start + i], part)


def read_texts(plan: Plan, table: BlankColumns, start: int, stop: int) -> Any:
    """What scoring rows ``start:stop`` of ``table`` reads first: when the rule reads one
    text (``plan.key``), those texts deduplicated, read in C without the GIL (so this may
    run in another thread while a chunk is scored); when it reads several blanks only
    through the kernels (``plan.keys``), each blank's texts so, and the answers
    deduplicated on them (:func:`blank_texts`); else ``None``, and :func:`score_texts`
    takes whole answers (as Python objects, with the GIL)."""
    key = plan.key
    if key is not None:
        return table.texts(key, start, stop)
    keys = plan.keys
    return blank_texts(table, keys, start, stop) if keys is not None else None


def blank_texts(table: BlankColumns, keys: tuple[int | str, ...], start: int,
                stop: int) -> tuple[BlankTexts, np.ndarray, Any]:
    """Rows ``start:stop`` of ``table`` as :func:`read_texts` gives them for a rule reading
    the blanks ``keys``: ``(distinct, inverse, missing)``, the distinct answers (a
    :class:`BlankTexts`: each blank's distinct texts, read in C), each row's position
    among them, and the rows without one of those blanks (``None``: none)."""
    read = [table.texts(key, start, stop) for key in keys]
    code = np.zeros(stop - start, dtype=np.int64)
    for texts, inverse, _ in read:  # the answers' codes stay below rows², renumbered after each blank
        code = code * len(texts) + inverse
        _, first, code = np.unique(code, return_index=True, return_inverse=True)
    # in first-occurrence order, as every dedup gives them (all distinct: answer i is row i)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    first, code = first[order], rank[code.reshape(-1)]
    missing = None
    blanks = {}
    for key, (texts, inverse, absent) in zip(keys, read):
        flag = None
        if absent is not None:
            missing = absent if missing is None else missing | absent
            flag = absent[first]
        blanks[key] = (texts, inverse[first], flag if flag is not None and flag.any() else None)
    return BlankTexts(len(first), blanks), code, missing


def score_texts(plan: Plan, table: BlankColumns, start: int, stop: int, texts: Any, part: Part) -> None:
    """Score rows ``start:stop`` of ``table`` into ``part``; ``texts`` is what
    :func:`read_texts` gave for them."""
    if texts is not None:
        distinct, inverse, missing = texts
        flag = np.zeros(stop - start, dtype=bool)
        if missing is not None:
            flag |= missing
        score_distinct(plan, distinct, inverse, plan.key, flag, lambda i: table.answer(start + i), part)
        return
    distinct, inverse = table.answers(start, stop)
    view = 0 if table.n_columns == 1 else None
    score_distinct(plan, distinct, inverse, view, np.zeros(stop - start, dtype=bool),
                   lambda i: distinct[inverse[i]], part)


def score_distinct(plan: Plan, distinct: Any, inverse: np.ndarray | None, view: int | str | None, flag: np.ndarray,
                   answer_at: Callable[[int], AnswerLike], part: Part, longest: int | None = None) -> None:
    """Score a chunk of ``len(flag)`` answers given deduplicated into ``part``:
    ``distinct`` (what the rule's combos read: whole answers, or with ``view`` set the
    text of blank ``view`` of each, see :func:`coscore.engine.columnar.run`) and
    ``inverse`` (each answer's position among them). Answers where ``flag`` is set, those
    the columnar path flags and all of them when ``distinct`` is ``None`` (or the rule
    has no columnar plan) are scored by the reference evaluator; ``answer_at(i)`` gives
    answer ``i``; ``longest``, when known, bounds the length of the distinct texts."""
    n = len(flag)
    if plan.columnar is not None and distinct is not None and n:
        total, results, flag_distinct = columnar.run(plan.columnar, distinct, view, longest)
        if len(distinct) == n:  # all distinct: answer i is distinct answer i
            inverse = None
            flag |= flag_distinct
        else:
            flag |= flag_distinct[inverse]
        part.put_columns(total, results, inverse)
        redo = np.flatnonzero(flag).tolist()
    else:
        redo = range(n)
    score_flagged(plan, redo, answer_at, part.put_outcome)
