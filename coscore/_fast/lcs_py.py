"""OP kernel in pure Python: best LCS(k, s) / len(k) over a fixed list of keys.

The twin of the compiled :mod:`coscore._fast.lcs` (same names, results bit for bit):
the textbook dynamic programme over code points, one row at a time. Used when the
compiled module is missing or ``COSCORE_IMPLEMENTATION=python``; see ``coscore._fast``.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator

from ._scorer_py import KeyScorer
from ._texts_py import text

_dense_limit = 8 << 20


def _set_dense_limit(nbytes: int) -> int:
    """Testing hook of the compiled kernel (how it stores long keys); no effect here.
    Returns the previous limit."""
    global _dense_limit
    old, _dense_limit = _dense_limit, int(nbytes)
    return old


def lcs_length(a: str, b: str) -> int:
    """Length of the longest common subsequence of two strings, over code points."""
    if not a or not b:
        return 0
    prev = [0] * (len(b) + 1)
    for ca in a:
        cur = [0]
        left = 0  # cur[j]
        for j, cb in enumerate(b):
            if ca == cb:
                left = prev[j] + 1
            elif prev[j + 1] > left:
                left = prev[j + 1]
            cur.append(left)
        prev = cur
    return prev[-1]


class LcsScorer(KeyScorer):
    """LcsScorer(keys): best(s) = max over keys of LCS(k, s) / len(k).

    An empty key has similarity 0.0; with no keys best() is 0.0.
    """

    __slots__ = ("_alphabet_size",)

    def __init__(self, keys: Iterable[str]):
        super().__init__(keys)
        self._alphabet_size = len(set("".join(text(k) for k in self._keys)))

    @property
    def alphabet_size(self) -> int:
        """The number of distinct code points of the keys."""
        return self._alphabet_size

    def _fractions(self, s: str) -> Iterator[tuple[int, int]]:
        return ((lcs_length(k, s), len(k)) for k in self._keys)

    def lengths(self, s: str) -> list[int]:
        """LCS(k, s) for every key, in key order."""
        t = text(s)
        return [lcs_length(k, t) for k in self._keys]
