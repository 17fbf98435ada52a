"""CS kernel in pure Python: best character multiset Jaccard over a fixed list of keys.

The twin of the compiled :mod:`coscore._fast.jaccard` (same names, results bit for bit).
Tokens: every code point ``c`` that is not ``c.isspace()`` becomes ``c.lower()`` taken on
its own (so 'Σ' -> 'σ', never the final 'ς'; 'İ' lowercases to two code points and is a
token of its own). sim(k, s) = sum_c min(nk(c), ns(c)) / sum_c max(nk(c), ns(c)), 0.0 when
both texts have no tokens. The token counts (:func:`tokens`) and the token tables
(:func:`token_tables`) are the ones of :mod:`coscore._fast._common`.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator

from ._common import token_tables, tokens
from ._scorer_py import KeyScorer
from ._texts_py import text


def token(ch: str) -> int | None:
    """The CS token (an int) of a one-character str, or None for whitespace."""
    if isinstance(ch, str) and len(ch) != 1:   # as the compiled module's conversion says it
        raise ValueError(f"only single character unicode strings can be converted to Py_UCS4, got length {len(ch)}")
    c = ord(ch)
    if chr(c).isspace():
        return None
    low = chr(c).lower()
    if len(low) == 1:
        return ord(low)
    return token_tables()[0][c]


def multiset_counts(key: Counter[str], answer: Counter[str]) -> tuple[int, int]:
    """(sum_c min(nk(c), ns(c)), sum_c max(nk(c), ns(c))) of two token counts."""
    smin = sum(min(n, answer[t]) for t, n in key.items() if t in answer)
    return smin, sum(key.values()) + sum(answer.values()) - smin


class JaccardScorer(KeyScorer):
    """JaccardScorer(keys): best(s) = max over keys of the character multiset
    Jaccard similarity (0.0 without keys)."""

    __slots__ = ("_key_tokens",)

    def __init__(self, keys: Iterable[str]):
        super().__init__(keys)
        self._key_tokens = [tokens(text(k)) for k in self._keys]

    def _fractions(self, s: str) -> Iterator[tuple[int, int]]:
        answer = tokens(s)
        return (multiset_counts(key, answer) for key in self._key_tokens)

    def counts(self, s: str) -> list[tuple[int, int]]:
        """[(sum_min, sum_max)] per key, in key order."""
        return list(self._fractions(text(s)))
