"""What the OP and CS twins share (the twin of the compiled base ``_scorer.pyx``): a scorer
over a fixed tuple of keys whose best value is the largest of the keys' fractions, compared
exactly and divided once, as the compiled kernels do (see ``cs_frac_max`` in
``src/multiset.c``)."""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from ._texts_py import as_seq, text, texts


def frac_max(best: tuple[int, int], num: int, den: int) -> tuple[int, int]:
    """The larger of the fractions ``best`` and ``num / den`` (exact; the first on a tie).

    A ``den`` of 0 or a ``num`` of 0 never wins."""
    if den > 0 and num > 0 and num * best[1] > best[0] * den:
        return (num, den)
    return best


def frac_value(frac: tuple[int, int]) -> float:
    """A fraction as the kernels return it: both parts as doubles, divided once."""
    return float(frac[0]) / float(frac[1])


class KeyScorer:
    """KeyScorer(keys): best(s) = max over keys of the key's fraction for s (0.0 without
    keys); subclasses say what the fractions are (:meth:`_fractions`)."""

    __slots__ = ("_keys",)

    def __init__(self, keys: Iterable[str]):
        ks = list(keys)
        for k in ks:
            if not isinstance(k, str):
                raise TypeError(f"keys must be str, got {type(k).__name__}")
        self._keys = tuple(ks)

    @property
    def keys(self) -> tuple[str, ...]:
        """The keys, in order."""
        return self._keys

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (list(self._keys),))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({list(self._keys)!r})"

    def __len__(self) -> int:
        return len(self._keys)

    def _fractions(self, s: str) -> Iterator[tuple[int, int]]:
        """(numerator, denominator) of every key for the exact str ``s``."""
        raise NotImplementedError

    def _best(self, s: str) -> float:
        best = (0, 1)
        for num, den in self._fractions(s):
            best = frac_max(best, num, den)
        return frac_value(best)

    def best(self, s: str) -> float:
        """max over keys of the key's fraction (0.0 without keys)."""
        return self._best(text(s))

    def best_many(self, strings: Iterable[str]) -> np.ndarray:
        """best() of every string, as a float64 numpy array."""
        seq = as_seq(strings)
        out = np.empty(len(seq), dtype=np.float64)
        if len(seq) == 0:
            return out
        for i, t in enumerate(texts(seq)):
            out[i] = self._best(t)
        return out
