"""Scoring many answers: chunks, deduplication, the columnar path, and ``jobs``.

A batch is cut into chunks. When every combo of the rule can be evaluated column-wise,
a chunk goes through :mod:`coscore.expr.columnar`: each atom runs once per *distinct*
string of its text column in one kernel call, and each combo is a few array passes.
Only the answers it flags — errors, inexact integers, malformed answers — are scored
again by the reference evaluator, each distinct one once. Otherwise every distinct
answer is scored by the reference evaluator. Results always keep the input order.
"""
from __future__ import annotations

import itertools
import math
import os
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Iterable, Iterator

import numpy as np

from ._fast.batch import check_answers, dedup_answers, dedup_strings, distinct_texts, joined_column, tune_malloc
from .expr.columnar import EXACT_LIMIT, BatchContext, build, column_kind, integral, signed_zeros, substring_groups, truthy
from .expr.nodes import BLANK_OPERATORS, Call, Const, walk

if TYPE_CHECKING:
    from .rule import AnswerLike, Batch, Rule

#: Answers per chunk: large enough to amortise per-chunk costs, small enough to bound memory.
DEFAULT_CHUNK_SIZE = 16_384
#: The fewest answers worth handing to another thread.
_MIN_SHARE = 4_096


class ColumnarPlan:
    """A rule's combos compiled for column-wise evaluation (``None`` from :func:`plan` if impossible).

    ``key`` is the one blank the rule reads (an int, or ``"*"`` for the joined blanks)
    when it reads nothing else: then two answers with the same such text score the
    same, and a batch is deduplicated on those texts alone.
    """

    def __init__(self, rule: "Rule"):
        spec = rule.spec
        self.rule = rule
        self.combos = [(c.id, build(c.tree), float(c.score), c.mode, _int_zero(c, rule.atoms)) for c in spec.combos]
        self.groups = substring_groups([c.tree for c in spec.combos], rule.atoms)
        reads = {
            (node.op, node.args[0].value)
            for c in spec.combos
            for node in walk(c.tree)
            if isinstance(node, Call) and node.op in BLANK_OPERATORS
        }
        blanks = {value for _, value in reads}
        structural = ("Q", "*") in reads or (rule.dialect == "manual" and ("L", "*") in reads)
        self.key = next(iter(blanks)) if len(blanks) == 1 and not structural else None

    def run(self, answers: list, view=None) -> tuple[np.ndarray, dict[str, np.ndarray], np.ndarray]:
        """Totals, combo results and flags for distinct, well-formed answers.

        With ``view`` set, each answer is a string standing for blank ``view`` (``"*"``:
        the joined blanks) — all the rule reads."""
        rule = self.rule
        ctx = BatchContext(answers, rule.atoms, rule.dialect == "manual", view, self.groups)
        n = len(answers)
        flag = np.zeros(n, dtype=bool)
        results: dict[str, np.ndarray] = {}
        with np.errstate(all="ignore"):
            for combo_id, evaluate, score, mode, int_zero in self.combos:
                kind, values, f = evaluate(ctx)
                if f is not None:
                    flag |= f
                if mode == "logic":
                    result = np.where(truthy((kind, values, f)), score, 0.0)
                elif kind != "num":  # a string in value mode is an error: the reference path says so
                    flag[:] = True
                    result = np.zeros(n)
                else:
                    result, f = signed_zeros(values * score, None, int_zero)
                    if f is not None:
                        flag |= f
                    flag |= np.abs(result) >= EXACT_LIMIT
                results[combo_id] = result
            combos = list(results.values())
            if rule.combo_mode == "ADD":
                total = np.zeros(n)
                for result in combos:
                    total = total + result
                    flag |= np.abs(total) >= EXACT_LIMIT
            else:
                total = combos[0].copy()
                for result in combos[1:]:
                    total = np.where(result > total, result, total)
            flag |= np.isnan(total)
            total = np.where(total < 0, 0.0, np.where(total > 10, 10.0, total))
        return total, results, flag


def _int_zero(combo, atoms) -> bool:
    """Whether a zero of the value-mode result ``expression * score`` is Python's int ``0``
    (an int score times an int expression; or a nonzero one times an expression whose
    zeros are ints), so that ``-0.0`` there means ``0.0`` (see :func:`signed_zeros`)."""
    return isinstance(combo.score, int) and integral(combo.tree, atoms, zero_only=combo.score != 0)


def _shared_atom_calls(rule: "Rule") -> bool:
    """Whether two ``G``/``M`` calls name different atoms with equal ids (``1`` and ``1.0``,
    ``True``): the reference path's per-answer atom cache, keyed by ``(id, text)`` as the
    original's, gives the second the first one's result, which depends on evaluation order."""
    names: dict = {}
    for c in rule.spec.combos:
        for node in walk(c.tree):
            if isinstance(node, Call) and node.op in "GM" and isinstance(node.args[0], Const):
                names.setdefault(node.args[0].value, set()).add(str(node.args[0].value))
    return any(len(spelled) > 1 for spelled in names.values())


def plan(rule: "Rule") -> ColumnarPlan | None:
    """The columnar plan of ``rule``, or ``None`` when some combo needs the reference path."""
    if not rule.spec.combos:
        return None
    if any(column_kind(c.tree) is None for c in rule.spec.combos) or _shared_atom_calls(rule):
        return None
    return ColumnarPlan(rule)


def score_chunk(rule: "Rule", answers: list, start: int = 0, stop: int | None = None) -> "Batch":
    """Score one chunk, ``answers[start:stop]`` (a list), into a :class:`Batch`."""
    from .rule import Batch

    stop = len(answers) if stop is None else stop
    n = stop - start
    columnar = rule._plan
    view = columnar.key if columnar is not None else None
    if view is None and (start or stop != len(answers)):
        answers, start = answers[start:stop], 0
    if columnar is not None and n:
        # identical answers are scored once: deduplicate what the combos can see;
        # answers that are not lists of strings (odd) are flagged for the reference path
        flag = np.zeros(n, dtype=bool)
        if view is not None:  # the rule reads one text per answer: no copy of the chunk needed
            distinct, inverse, missing, odd = distinct_texts(answers, view, start, stop)
            if missing is not None:
                flag |= missing
            flag[odd] = True
        else:
            odd, most, fewest = check_answers(answers)
            rows = answers
            if odd:
                rows = list(answers)
                for i in odd:
                    rows[i] = ()
                flag[odd] = True
            if most == fewest == 1 and not odd:  # one blank each: the answers are their blank
                view = 0
                distinct, inverse = dedup_strings(joined_column(rows))
            else:
                distinct, inverse = dedup_answers(rows)
        total, results, flag_distinct = columnar.run(distinct, view)
        if len(distinct) == n:  # all distinct: ``inverse`` is the identity
            scores, combos = total, results
            flag |= flag_distinct
        else:
            scores = total[inverse]
            combos = {cid: values[inverse] for cid, values in results.items()}
            flag |= flag_distinct[inverse]
        redo = np.flatnonzero(flag).tolist()
        if redo:
            scores[redo] = np.nan
            for values in combos.values():
                values[redo] = np.nan
    else:
        scores = np.full(n, np.nan)
        combos = {cid: np.full(n, np.nan) for cid in rule.combo_ids}
        redo = range(n)
    errors: list[str | None] = [None] * n
    completed: dict[int, int] = {}
    seen: dict = {}
    for i in redo:
        answer = answers[start + i]
        try:
            key = (answer,) if type(answer) is str else tuple(answer)
            outcome = seen.get(key)
        except TypeError:  # not an answer, or unhashable blanks
            key, outcome = None, None
        if outcome is None:
            outcome = rule.score(answer)
            if key is not None:
                seen[key] = outcome
        _store(i, outcome, scores, combos, errors)
        if outcome.error is not None:
            completed[i] = len(outcome.combos)
    return Batch(scores, errors, combos, completed)


def _store(i: int, outcome, scores: np.ndarray, combos: dict, errors: list) -> None:
    scores[i] = math.nan if outcome.error is not None else outcome.score
    errors[i] = outcome.error
    for cid, values in combos.items():
        values[i] = outcome.combos.get(cid, math.nan)


def _chunks(answers: Iterable, size: int) -> Iterator[list]:
    if isinstance(answers, list):
        for start in range(0, len(answers), size):
            yield answers[start : start + size]
        return
    iterator = iter(answers)
    while True:
        chunk = list(itertools.islice(iterator, size))
        if not chunk:
            return
        yield chunk


def _workers(jobs: int) -> int:
    if jobs == -1 or jobs == 0:
        return os.cpu_count() or 1
    if jobs < -1:
        return max(1, (os.cpu_count() or 1) + 1 + jobs)
    return jobs


def score_chunks(rule: "Rule", answers: Iterable["AnswerLike"], chunk_size: int = DEFAULT_CHUNK_SIZE, jobs: int = 1) -> Iterator["Batch"]:
    """Score ``answers`` chunk by chunk, yielding one :class:`Batch` per chunk, in order.

    With ``jobs > 1`` (``-1``: every core) chunks are scored by that many threads; the
    kernels release the GIL. Memory stays proportional to ``jobs`` chunks.
    """
    if chunk_size < 1:
        raise ValueError("chunk_size must be at least 1")
    tune_malloc()  # once per process: chunk-sized blocks stay reusable (see coscore._fast.batch)
    workers = _workers(jobs)
    if workers <= 1:
        for chunk in _chunks(answers, chunk_size):
            yield score_chunk(rule, chunk)
        return
    with ThreadPoolExecutor(max_workers=workers) as pool:
        pending = []
        for chunk in _chunks(answers, chunk_size):
            pending.append(pool.submit(score_chunk, rule, chunk))
            if len(pending) > workers:
                yield pending.pop(0).result()
        for future in pending:
            yield future.result()


def concat(rule: "Rule", batches: list["Batch"]) -> "Batch":
    """One :class:`Batch` from consecutive ones; ``batches`` is emptied as it goes.

    Each column is joined and its chunks released before the next, so the peak is the
    result plus one column of chunks, not twice the result.
    """
    from .rule import Batch

    if len(batches) == 1:
        return batches.pop()
    if not batches:
        return Batch(np.empty(0), [], {cid: np.empty(0) for cid in rule.combo_ids})
    columns = {cid: [b.combos[cid] for b in batches] for cid in rule.combo_ids}
    scores = [b.scores for b in batches]
    errors: list[str | None] = [None] * sum(len(b.errors) for b in batches)
    completed: dict[int, int] = {}
    offset = 0
    for b in batches:
        if b.errors.count(None) != len(b.errors):
            errors[offset : offset + len(b.errors)] = b.errors
        completed.update((offset + i, done) for i, done in b.completed.items())
        offset += len(b.errors)
    batches.clear()
    joined_scores = np.concatenate(scores)
    del scores
    combos = {}
    for cid in rule.combo_ids:
        combos[cid] = np.concatenate(columns.pop(cid))
    return Batch(joined_scores, errors, combos, completed)


def _even_chunks(n: int, workers: int) -> int:
    """A chunk size near :data:`DEFAULT_CHUNK_SIZE` that cuts ``n`` answers into a multiple
    of ``workers`` chunks of equal size, so that no worker is left with the tail alone."""
    if workers <= 1:
        return DEFAULT_CHUNK_SIZE
    count = max(1, round(n / DEFAULT_CHUNK_SIZE))
    if count > 1 or n >= workers * _MIN_SHARE:  # else one chunk: threads would not pay off
        count = -(-count // workers) * workers
    return max(1, -(-n // count))


def score_many(rule: "Rule", answers: Iterable["AnswerLike"], jobs: int = 1, chunk_size: int | None = None) -> "Batch":
    """Score ``answers`` with ``rule`` into one :class:`Batch` (input order kept).

    A list is scored straight into result arrays allocated once, chunk by chunk, each
    worker reading its chunks in place (``jobs > 1``: equal chunks, a multiple of the
    workers); any other iterable is read chunk by chunk (memory: ``jobs`` chunks plus
    the result) and the chunks joined at the end.
    """
    workers = _workers(jobs)
    if not isinstance(answers, list):
        if chunk_size is None:  # threads share the GIL-held steps better over larger chunks
            chunk_size = DEFAULT_CHUNK_SIZE if workers <= 1 else 2 * DEFAULT_CHUNK_SIZE
        return concat(rule, list(score_chunks(rule, answers, chunk_size, jobs)))
    n = len(answers)
    if chunk_size is None:
        chunk_size = _even_chunks(n, workers)
    if chunk_size < 1:
        raise ValueError("chunk_size must be at least 1")
    from .rule import Batch

    tune_malloc()
    scores = np.empty(n)
    combos = {cid: np.empty(n) for cid in rule.combo_ids}
    errors: list[str | None] = [None] * n
    completed: dict[int, int] = {}

    def fill(start: int) -> None:
        stop = min(n, start + chunk_size)
        batch = score_chunk(rule, answers, start, stop)
        scores[start:stop] = batch.scores
        for cid, values in batch.combos.items():
            combos[cid][start:stop] = values
        if batch.errors.count(None) != len(batch.errors):
            errors[start:stop] = batch.errors
        completed.update((start + i, done) for i, done in batch.completed.items())

    starts = range(0, n, chunk_size)
    if workers <= 1 or len(starts) <= 1:
        for start in starts:
            fill(start)
    else:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            for _ in pool.map(fill, starts):
                pass
    return Batch(scores, errors, combos, completed)
