"""Scheduling: the threads ``jobs`` asks for, runs of rows, and work on threads in order.

:func:`in_order` is the one way work items run on threads (:mod:`coscore.pipeline.stream`
gives it the units of its chunks): on the calling thread for one worker, else on a pool,
at most a few items ahead, each result given back in order. The kernels release the
GIL, so threads score units in parallel.
"""
from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from .._fast import tune_malloc

T = TypeVar("T")
R = TypeVar("R")


def workers(jobs: int) -> int:
    """The threads ``jobs`` asks for: ``-1`` (or ``0``) every core, ``-2`` all but one, …"""
    if jobs == -1 or jobs == 0:
        return os.cpu_count() or 1
    if jobs < -1:
        return max(1, (os.cpu_count() or 1) + 1 + jobs)
    return jobs


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
        pending: deque[Future[Any]] = deque()
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
