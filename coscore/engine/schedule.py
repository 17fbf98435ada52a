"""Scheduling: answers cut into chunks, chunks scored on ``jobs`` threads, results in order.

:func:`score_many` and :func:`score_chunks` score Python answers (a list is read in
place, any other iterable chunk by chunk); :func:`in_order` is the one way work items
run on threads here and in :mod:`coscore.pipeline`: on the calling thread for one
worker, else on a pool, at most a few items ahead, each result given back in order.
The kernels release the GIL, so threads score chunks in parallel.
"""
from __future__ import annotations

import itertools
import os
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Iterable, Iterator, TypeVar

from .._fast import tune_malloc
from ..results import Batch
from .builder import BatchBuilder, gather
from .chunk import score_list
from .plan import Plan
from .reference import AnswerLike

T = TypeVar("T")
R = TypeVar("R")

#: Answers per chunk: large enough to amortise per-chunk costs, small enough to bound memory.
DEFAULT_CHUNK_SIZE = 16_384
#: The fewest answers worth handing to another thread.
MIN_SHARE = 4_096


def workers(jobs: int) -> int:
    """The threads ``jobs`` asks for: ``-1`` (or ``0``) every core, ``-2`` all but one, …"""
    if jobs == -1 or jobs == 0:
        return os.cpu_count() or 1
    if jobs < -1:
        return max(1, (os.cpu_count() or 1) + 1 + jobs)
    return jobs


def even_chunk_size(n: int, threads: int) -> int:
    """A chunk size near :data:`DEFAULT_CHUNK_SIZE` that cuts ``n`` answers into a multiple
    of ``threads`` chunks of equal size, so that no thread is left with the tail alone."""
    if threads <= 1:
        return DEFAULT_CHUNK_SIZE
    count = max(1, round(n / DEFAULT_CHUNK_SIZE))
    if count > 1 or n >= threads * MIN_SHARE:  # else one chunk: threads would not pay off
        count = -(-count // threads) * threads
    return max(1, -(-n // count))


def ranges(n: int, chunk_size: int) -> list[tuple[int, int]]:
    """``(start, stop)`` of each chunk of ``n`` answers, ``chunk_size`` at a time."""
    if chunk_size < 1:
        raise ValueError("chunk_size must be at least 1")
    return [(start, min(n, start + chunk_size)) for start in range(0, n, chunk_size)]


def in_order(items: Iterable[T], run: Callable[[T], R], threads: int) -> Iterator[R]:
    """``run(item)`` of each item, in order: on this thread for one thread, else on a
    pool of ``threads``, at most ``threads`` items ahead of the one given back (memory:
    that many items' work)."""
    tune_malloc()  # once per process: chunk-sized blocks stay reusable (see coscore._fast.batch)
    if threads <= 1:
        for item in items:
            yield run(item)
        return
    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="coscore-score") as pool:
        pending: deque = deque()
        try:
            for item in items:
                pending.append(pool.submit(run, item))
                if len(pending) > threads:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:
            for future in pending:
                future.cancel()


def score_many(plan: Plan, answers: Iterable[AnswerLike], jobs: int = 1, chunk_size: int | None = None) -> Batch:
    """Score ``answers`` with ``plan`` into one :class:`~coscore.results.Batch` (input order kept).

    A list is scored straight into result arrays allocated once, chunk by chunk, each
    thread reading its chunks in place (``jobs > 1``: equal chunks, a multiple of the
    threads); any other iterable is read chunk by chunk (memory: ``jobs`` chunks plus
    the result), each chunk's results gathered as it comes.
    """
    threads = workers(jobs)
    if not isinstance(answers, list):
        if chunk_size is None:  # threads share the GIL-held steps better over larger chunks
            chunk_size = DEFAULT_CHUNK_SIZE if threads <= 1 else 2 * DEFAULT_CHUNK_SIZE
        return gather(plan.combo_ids, score_chunks(plan, answers, chunk_size, jobs))
    n = len(answers)
    builder = BatchBuilder(plan.combo_ids, n)
    cuts = ranges(n, chunk_size if chunk_size is not None else even_chunk_size(n, threads))

    def score(cut: tuple[int, int]) -> None:
        score_list(plan, answers, *cut, builder.part(*cut))

    for _ in in_order(cuts, score, threads if len(cuts) > 1 else 1):
        pass
    return builder.batch()


def score_chunks(plan: Plan, answers: Iterable[AnswerLike], chunk_size: int = DEFAULT_CHUNK_SIZE,
                 jobs: int = 1) -> Iterator[Batch]:
    """Score ``answers`` chunk by chunk, yielding one :class:`~coscore.results.Batch` per
    chunk, in order. With ``jobs > 1`` (``-1``: every core) chunks are scored by that
    many threads. Memory stays proportional to ``jobs`` chunks."""
    if chunk_size < 1:
        raise ValueError("chunk_size must be at least 1")

    def score(chunk: list) -> Batch:
        builder = BatchBuilder(plan.combo_ids, len(chunk))
        score_list(plan, chunk, 0, len(chunk), builder.part(0, len(chunk)))
        return builder.batch()

    return in_order(_chunks(answers, chunk_size), score, workers(jobs))


def _chunks(answers: Iterable[Any], size: int) -> Iterator[list]:
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
