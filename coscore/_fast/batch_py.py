"""Batch plumbing in pure Python: checking answers, taking blank columns, deduplicating.

The twin of the compiled :mod:`coscore._fast.batch` (same names, same results, the same
lists returned as themselves). An answer is well formed when it is an exact ``str`` (one
blank) or an exact ``list``/``tuple`` of exact ``str``; ``"a"``, ``["a"]`` and ``("a",)``
are the same answer.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import operator
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

#: ``None`` until the first batch; then whether the malloc parameters were set.
malloc_tuned: bool | None = None

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3


def _mallopt() -> bool:
    """glibc's mallopt(): mmap threshold 32 MB, trim threshold 256 MB (False elsewhere)."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None)
        mallopt = libc.mallopt
        _ = libc.gnu_get_libc_version  # glibc only (AttributeError elsewhere)
    except (OSError, AttributeError):
        return False
    return bool(mallopt(_M_MMAP_THRESHOLD, 32 << 20)) and bool(mallopt(_M_TRIM_THRESHOLD, 256 << 20))


def tune_malloc() -> bool:
    """Keep glibc from returning the chunk-sized blocks scoring allocates and frees to the
    OS after every chunk (mmap threshold 32 MB, trim threshold 256 MB). Process-wide, so
    done once, by the first batch scored, not at import; skipped when the environment sets
    ``COSCORE_MALLOC_TUNING=0`` or glibc's own ``MALLOC_MMAP_THRESHOLD_`` /
    ``MALLOC_TRIM_THRESHOLD_``. Returns True when set."""
    global malloc_tuned
    if malloc_tuned is None:
        wanted = (os.environ.get("COSCORE_MALLOC_TUNING", "1") != "0"
                  and "MALLOC_MMAP_THRESHOLD_" not in os.environ
                  and "MALLOC_TRIM_THRESHOLD_" not in os.environ)
        malloc_tuned = _mallopt() if wanted else False
    return malloc_tuned


def _check_list(answers: Any) -> list[Any]:
    if type(answers) is not list:
        raise TypeError(f"Argument 'answers' has incorrect type (expected list, got {type(answers).__name__})")
    return answers


def _blanks(answer: Any) -> Sequence[Any]:
    """The blanks of a (well-formed) answer: a str is its own one blank."""
    return (answer,) if type(answer) is str else answer


def _size(answer: Any) -> int:
    """The number of blanks of a well-formed answer, else -1."""
    if type(answer) is str:
        return 1
    if type(answer) is list or type(answer) is tuple:
        return len(answer) if all(type(b) is str for b in answer) else -1
    return -1


def _pick(answer: Any, index: int, joined: bool) -> tuple[Any, bool]:
    """(text, lacks): blank ``index`` of a well-formed answer (negative: from the end),
    or with ``joined`` its blanks joined; ``""`` when it lacks the blank."""
    blanks = _blanks(answer)
    if joined:
        return (blanks[0] if len(blanks) == 1 else "".join(blanks)), False
    j = index if index >= 0 else len(blanks) + index
    if 0 <= j < len(blanks):
        return blanks[j], False
    return "", True


def check_answers(answers: list[Any]) -> tuple[list[int], int, int]:
    """``(odd, most, fewest)``: the positions of answers that are not a ``str`` or a
    list/tuple of ``str``, and the largest and smallest blank counts of the others."""
    sizes = [_size(a) for a in _check_list(answers)]
    good = [n for n in sizes if n >= 0]
    return [i for i, n in enumerate(sizes) if n < 0], max(good, default=0), min(good, default=0)


def blank_column(answers: list[Any], n: int) -> tuple[list[Any], np.ndarray | None]:
    """Blank ``n`` (negative: from the end) of each well-formed answer, as a list, and a
    bool mask of the answers without it (``None`` when none lacks it; they get ``""``).

    When every answer is a ``str`` and ``n`` is ``0`` or ``-1``, the list returned is
    ``answers`` itself (read it, do not mutate it)."""
    n = operator.index(n)
    if n in (0, -1) and all(type(a) is str for a in _check_list(answers)):
        return answers, None
    picked = [_pick(a, n, False) for a in _check_list(answers)]
    missing = np.array([lacks for _, lacks in picked], dtype=bool)
    return [text for text, _ in picked], (missing if missing.any() else None)


def joined_column(answers: list[Any]) -> list[Any]:
    """All blanks of each well-formed answer joined with no separator.

    When every answer is a ``str``, the list returned is ``answers`` itself (read it,
    do not mutate it)."""
    if all(type(a) is str for a in _check_list(answers)):
        return answers
    return [_pick(a, 0, True)[0] for a in answers]


def distinct_texts(answers: list[Any], key: Any, start: int = 0,
                   stop: int | None = None) -> tuple[list[Any], np.ndarray, np.ndarray | None, list[int], int]:
    """``(distinct, inverse, missing, odd, longest)`` for the text each of
    ``answers[start:stop]`` gives a rule: blank ``key`` (an int, negative from the end) or,
    for ``"*"``, its blanks joined. ``distinct`` lists the texts once each, in
    first-occurrence order (``answers`` itself when they are all distinct ``str`` and
    ``key`` is 0 or -1); ``inverse`` gives each answer's position among them; ``missing``
    masks the well-formed answers without blank ``key`` (``None`` when none); ``odd`` lists
    the answers that are not well formed; ``longest`` is the length of the longest text.
    The answers in ``missing`` and ``odd`` get the text ``""``; positions are relative to
    ``start``."""
    size = len(_check_list(answers))
    start = operator.index(start)
    end = size if stop is None else operator.index(stop)
    if not 0 <= start <= end <= size:
        raise IndexError(f"answers[{start}:{stop}] is not within the {size} answers")
    joined = isinstance(key, str)
    index = 0 if joined else operator.index(key)
    m = end - start
    inverse = np.empty(m, dtype=np.intp)
    if m == 0:
        return [], inverse, None, [], 0
    missing = np.zeros(m, dtype=bool)
    odd: list[int] = []
    first: dict[str, int] = {}
    for i in range(m):
        answer = answers[start + i]
        if _size(answer) < 0:
            odd.append(i)
            picked = ""
        else:
            picked, missing[i] = _pick(answer, index, joined)
        inverse[i] = first.setdefault(picked, len(first))
    distinct = list(first)
    if (m == size and len(distinct) == m and not odd and not missing.any() and not joined
            and index in (0, -1) and all(type(a) is str for a in answers)):
        distinct = answers   # every answer a distinct str: the answers are their texts
    return distinct, inverse, (missing if missing.any() else None), odd, max(map(len, first), default=0)


def longest(strings: Sequence[Any]) -> int:
    """The length of the longest of ``strings`` (0 when empty)."""
    return max(map(len, strings), default=0)


def plain_strings(values: Any) -> int:
    """How many of the first items of ``values`` (a list, or a 1-D contiguous ndarray of
    objects) are exact ``str``: ``len(values)`` when all are."""
    if not isinstance(values, list) and not (isinstance(values, np.ndarray) and values.dtype == object
                                             and values.ndim == 1 and values.flags.c_contiguous):
        raise TypeError("plain_strings reads a list or a 1-D contiguous object ndarray")
    for i, item in enumerate(values):
        if type(item) is not str:
            return i
    return len(values)


def dedup_strings(strings: list[Any]) -> tuple[list[Any], np.ndarray]:
    """``(distinct, index)``: the distinct strings in first-occurrence order and, for
    each input, its position among them (an intp array). When all are distinct,
    ``distinct`` is ``strings`` itself (read it, do not mutate it)."""
    for item in _check_list(strings):
        if type(item) is not str:
            raise TypeError(f"expected str, got {type(item).__name__}")
    index = np.empty(len(strings), dtype=np.intp)
    first: dict[str, int] = {}
    for i, s in enumerate(strings):
        index[i] = first.setdefault(s, len(first))
    if not strings:
        return [], index
    return (strings if len(first) == len(strings) else list(first)), index


def dedup_answers(answers: list[Any]) -> tuple[list[Any], np.ndarray]:
    """``(distinct, inverse)`` for well-formed answers (a ``str`` or a list/tuple of
    ``str``, as :func:`check_answers` vouches): the distinct answers in first-occurrence
    order (``"a"``, ``["a"]`` and ``("a",)`` are the same answer) and, for each input,
    its index among them. When all are distinct, ``distinct`` is ``answers`` itself."""
    inverse = np.empty(len(_check_list(answers)), dtype=np.intp)
    first: dict[tuple[Any, ...], int] = {}
    distinct: list[Any] = []
    plain = True
    for i, answer in enumerate(answers):
        if type(answer) is not str and type(answer) is not list and type(answer) is not tuple:
            raise TypeError(f"expected a str, list or tuple, got {type(answer).__name__}")
        blanks = tuple(_blanks(answer))
        plain = plain and all(type(b) is str for b in blanks)
        j = first.setdefault(blanks, len(first))
        if j == len(distinct):
            distinct.append(answer)
        inverse[i] = j
    if plain and answers and len(distinct) == len(answers):
        return answers, inverse
    return distinct, inverse
